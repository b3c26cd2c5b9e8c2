/**
 * The terminal client's only way to the screen. Every text it writes passes escapeControls, so a server's
 * string cannot move the cursor, overwrite a line, set the window title or reorder itself; colours are
 * added here, after escaping, and only when stdout is a terminal (and NO_COLOR is unset). Lines from stdin
 * are read in order (kept when they arrive before they are asked for, as piped input does), one user of
 * the prompt at a time; what arrives while a question is on screen waits until it is answered.
 */
import { createInterface, type Interface } from 'node:readline/promises';
import { escapeControls } from '../src/index.js';

/** A prompt gave way to someone else (the idle tool menu only). */
export class Interrupted extends Error {}

export type Ask = (prompt: string) => Promise<string | null>;

/** ANSI colours the client uses. */
export const BOLD = 1;
export const DIM = 2;
export const RED = 31;
export const CYAN = 36;

/** Text to colour, once escaped. */
export class Styled {
  constructor(
    readonly code: number,
    readonly text: unknown,
  ) {}
}

export function style(code: number, text: unknown): Styled {
  return new Styled(code, text);
}

/** Lines held while a question is on screen; past this, they are counted and the count is printed. */
const MAX_HELD_LINES = 1000;

/** A server's value as text: strings as they are, anything else as JSON (or String when it has none). */
export function asText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '';
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** Lines of a server's text, CRLF or LF; each is escaped when it is printed. */
export function linesOf(value: unknown): string[] {
  return asText(value).replaceAll('\r\n', '\n').split('\n');
}

export class Terminal {
  readonly color: boolean;
  private readonly rl: Interface;
  private readonly echo: boolean;
  private readonly lines: string[] = [];
  private waiter: ((line: string | null) => void) | undefined;
  private ended = false;
  private tail: Promise<void> = Promise.resolve();
  private queued = 0;
  private interruptHolder: (() => void) | undefined;
  /** Someone has the prompt: notices wait in `held` until they are done. */
  private asking = false;
  private readonly held: { stream: NodeJS.WriteStream; line: string }[] = [];
  private dropped = 0;

  constructor(onInterrupt: () => void) {
    const interactive = Boolean(process.stdin.isTTY && process.stdout.isTTY);
    this.color = Boolean(process.stdout.isTTY) && !process.env.NO_COLOR;
    this.echo = !process.stdin.isTTY;
    this.rl = createInterface({ input: process.stdin, output: process.stdout, terminal: interactive });
    this.rl.on('line', (line) => {
      const waiter = this.waiter;
      this.waiter = undefined;
      if (waiter) waiter(line);
      else this.lines.push(line);
    });
    this.rl.on('close', () => {
      this.ended = true;
      const waiter = this.waiter;
      this.waiter = undefined;
      waiter?.(null);
    });
    this.rl.on('SIGINT', onInterrupt);
  }

  /** Print a line made of `parts` (our text, the server's, a value that is not a string, styled text), now. */
  print(...parts: unknown[]): void {
    process.stdout.write(`${this.render(parts)}\n`);
  }

  /** Print `text` line by line: the first after `first`, the others after `indent`. */
  printText(first: unknown[], text: unknown, indent: unknown = '  '): void {
    const [head, ...rest] = linesOf(text);
    this.print(...first, head);
    for (const line of rest) this.print(indent, line);
  }

  /** A line on stderr, now. */
  fail(...parts: unknown[]): void {
    process.stderr.write(`${this.render(parts)}\n`);
  }

  /** A line that may arrive at any time (a log message, progress): held while a question is on screen. */
  notice(...parts: unknown[]): void {
    this.hold(process.stdout, this.render(parts));
  }

  /** A warning on stderr, held as notices are. */
  warn(...parts: unknown[]): void {
    this.hold(process.stderr, this.render(parts));
  }

  /**
   * Run `fn` with the prompt to itself; others wait their turn. An interruptible user (the idle tool
   * menu) gives way as soon as anyone else wants the prompt, or a notice arrives: its `ask` rejects with
   * Interrupted. The signal ends `fn`'s current question (its `ask` rejects with the signal's reason).
   */
  async use<T>(fn: (ask: Ask) => Promise<T>, options: { interruptible?: boolean; signal?: AbortSignal } = {}): Promise<T> {
    const previous = this.tail;
    let release!: () => void;
    this.tail = new Promise<void>((resolve) => (release = resolve));
    this.queued++;
    this.interruptHolder?.();
    await previous;
    this.queued--;
    this.asking = true;
    const control = new AbortController();
    const onAbort = () => control.abort(options.signal!.reason);
    options.signal?.addEventListener('abort', onAbort, { once: true });
    if (options.signal?.aborted) onAbort();
    if (options.interruptible) {
      this.interruptHolder = () => {
        if (!control.signal.aborted) control.abort(new Interrupted('interrupted'));
      };
      if (this.queued > 0) this.interruptHolder();
    }
    try {
      return await fn((prompt) => this.read(prompt, control.signal));
    } finally {
      this.interruptHolder = undefined;
      options.signal?.removeEventListener('abort', onAbort);
      this.asking = false;
      this.flush();
      release();
    }
  }

  /** Stop reading: a pending question gets end of input. */
  close(): void {
    this.rl.close();
  }

  private render(parts: unknown[]): string {
    return parts.map((part) => (part instanceof Styled ? this.paint(part.code, escapeControls(asText(part.text))) : escapeControls(asText(part)))).join('');
  }

  private paint(code: number, text: string): string {
    return this.color ? `\x1b[${code}m${text}\x1b[0m` : text;
  }

  private hold(stream: NodeJS.WriteStream, line: string): void {
    if (!this.asking) {
      stream.write(`${line}\n`);
      return;
    }
    if (this.held.length < MAX_HELD_LINES) this.held.push({ stream, line });
    else this.dropped++;
    this.interruptHolder?.();
  }

  private flush(): void {
    for (const { stream, line } of this.held.splice(0)) stream.write(`${line}\n`);
    if (this.dropped > 0) this.print(style(DIM, `(${this.dropped} more lines arrived while you answered; they were dropped)`));
    this.dropped = 0;
  }

  private read(prompt: string, signal: AbortSignal): Promise<string | null> {
    if (signal.aborted) return Promise.reject(signal.reason);
    const shown = escapeControls(prompt);
    if (this.ended && this.lines.length === 0) {
      // The interface is closed: the prompt is shown for the transcript, and gets end of input.
      this.print(shown);
      return Promise.resolve(null);
    }
    this.rl.setPrompt(shown);
    this.rl.prompt();
    if (this.lines.length > 0) {
      const line = this.lines.shift()!;
      if (this.echo) this.print(line);
      return Promise.resolve(line);
    }
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        if (this.waiter === waiter) this.waiter = undefined;
        // The prompt stays on screen without an answer: end its line, and drop what was typed into it.
        if (this.rl.terminal) this.rl.write(null, { ctrl: true, name: 'u' });
        this.print();
        reject(signal.reason);
      };
      const waiter = (line: string | null) => {
        signal.removeEventListener('abort', onAbort);
        if (line === null || this.echo) this.print(line ?? '');
        resolve(line);
      };
      this.waiter = waiter;
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }
}
