/**
 * The terminal client: `npm run client -- <url> [--era auto|legacy|modern]`.
 *
 * Connects McpClient to a server (http(s) URLs speak Streamable HTTP, ws(s) URLs WebSocket), lists its
 * tools (a listing that repeats a cursor or runs past 100 pages is cut short with a warning on stderr, and
 * the tools it gave are offered), and calls the one the user picks, asking for each argument of its `inputSchema`. Progress
 * (`progress 3/10 counted to 3`) and log messages (`[info] ...`) are printed while a call runs, then the
 * result: its text blocks, `structuredContent` as JSON, and `isError` flagged.
 *
 * What the server asks for is answered at the terminal, in either era:
 * - Elicitation, form mode: the server's name and message, then "accept, decline or cancel? [a/d/c]"
 *   FIRST, and only after `a` one prompt per property (title or name, `*` when required, the description,
 *   numbered options for enums, the default in brackets, which an empty answer takes). A wrong answer is
 *   asked again with the reason. `!decline` or `!cancel` at any field prompt answers that at once.
 *   The fields are `describeFields`'s; how each answer is read is `readAnswer` in ./prompts.ts, which has no I/O.
 * - Elicitation, URL mode: the URL as a browser reads it (`new URL(url).href`) and its host are printed,
 *   and "Open this URL on host <host>? [y/N]" asked, naming the host again on the line answered. Nothing
 *   is opened here: `y` answers accept (the user opens it), anything else decline.
 * - Sampling: the messages are printed and the user types the reply, sent as the assistant's text with
 *   model `human`; `!decline` refuses it (error -1, as the spec suggests for a user's rejection).
 * - Roots: the working directory, as one `file://` root.
 * Requests the server sends while the tool menu waits interrupt it; several are asked one after another.
 * What the server sends at any time (log messages, progress, notes) waits while a question is on screen,
 * and is printed once it is answered (the idle tool menu gives way to it at once).
 *
 * Every server string reaches the screen through ./terminal.ts, which escapes controls, bidi and invisible
 * characters (`\x1b`, `<U+202E>`): a server cannot move the cursor, rewrite a line or set the title.
 *
 * Input is read line by line with node:readline, so piped stdin works (each line read is echoed, so the
 * output reads as a transcript); colours only when stdout is a terminal (and NO_COLOR is unset).
 * Exit: an empty line or `q` at the tool menu, end of input, or Ctrl+C: the client is closed and the exit
 * code is 0. Exit code 1, with one line on stderr: no URL, a URL that is not http(s)/ws(s), a failed
 * connection, or the server closing the connection.
 * When input ends in the middle of a question, the question is answered cancel (or, for sampling,
 * refused), then the client exits.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  type CallToolResult,
  type ClientEra,
  type CreateMessageParams,
  type CreateMessageResult,
  describeFields,
  type ElicitParams,
  type ElicitResult,
  type FormField,
  McpClient,
  McpError,
  type Tool,
} from '../src/index.js';
import { fieldText, hostOf, hrefOf, parseAction, parseCommandLine, parseYesNo, readAnswer } from './prompts.js';
import { type Ask, asText, BOLD, CYAN, DIM, Interrupted, linesOf, RED, style, Terminal } from './terminal.js';

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}

function messageOf(err: unknown): string {
  return oneLine(err instanceof Error ? err.message : String(err));
}

function clientVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: unknown };
    return typeof pkg.version === 'string' ? pkg.version : '0.0.0';
  } catch {
    return '0.0.0';
  }
}

class TerminalClient {
  private readonly terminal: Terminal;
  private readonly client: McpClient;
  private closing = false;
  /** The server's questions being answered, and when the last one was. */
  private readonly answering = new Set<Promise<unknown>>();

  constructor(
    private readonly url: string,
    era: ClientEra,
  ) {
    this.terminal = new Terminal(() => void this.quit(0, true));
    this.client = new McpClient(
      { name: 'switchboard-terminal', title: 'Switchboard terminal client', version: clientVersion() },
      // URL mode is declared here; form mode, sampling and roots would be derived from the handlers, but
      // giving capabilities replaces the derived ones.
      { era, capabilities: { elicitation: { form: {}, url: {} }, sampling: {}, roots: {} } },
    );
    this.client.onElicitation((params, ctx) => this.answerQuestion(ctx.signal, (ask) => this.elicit(params, ask), { action: 'cancel' }));
    this.client.onSampling((params, ctx) =>
      this.answerQuestion(
        ctx.signal,
        (ask) => this.sample(params, ask),
        () => {
          throw new McpError(-1, 'User rejected sampling request');
        },
      ),
    );
    this.client.onRoots(() => {
      const cwd = process.cwd();
      const uri = pathToFileURL(cwd).href;
      this.terminal.notice(style(DIM, `(the server asked for roots: sent ${uri})`));
      return { roots: [{ uri, name: basename(cwd) || cwd }] };
    });
    this.client.on('log', ({ level, logger, data }) => {
      const lines = linesOf(data);
      this.terminal.notice(style(CYAN, `[${asText(level)}${logger ? ` ${asText(logger)}` : ''}] ${lines[0]}`));
      for (const line of lines.slice(1)) this.terminal.notice(style(CYAN, `  ${line}`));
    });
    this.client.on('elicitationComplete', (elicitationId, request) => {
      this.terminal.notice(style(DIM, `(the server says the URL step ${asText(elicitationId)}${request ? ` at ${hrefOf(request.url)}` : ''} is complete)`));
    });
    this.client.on('error', (error) => {
      if (!this.closing) this.terminal.warn(`warning: ${messageOf(error)}`);
    });
    if (!process.stdin.isTTY) process.on('SIGINT', () => void this.quit(0, true));
  }

  async run(): Promise<void> {
    try {
      await this.client.connect(this.url, { timeoutMs: 15_000 });
    } catch (err) {
      this.terminal.fail(`error: cannot connect to ${this.url}: ${messageOf(err)}`);
      return this.quit(1);
    }
    // Only now: a failed connect also ends in 'close' ("closed by the client").
    this.client.on('close', (reason) => {
      if (this.closing) return;
      this.terminal.fail(`error: the connection closed: ${oneLine(reason)}`);
      void this.quit(1);
    });
    const client = this.client;
    const info = client.serverInfo;
    const server = [info?.name ?? '(unnamed server)', info?.version].filter(Boolean).map(asText).join(' ');
    this.terminal.print(`Connected to ${server} over ${client.protocolVersion} (${client.era})`);
    if (client.instructions) {
      this.terminal.print('Instructions:');
      for (const line of linesOf(client.instructions)) this.terminal.print('  ', line);
    }
    // A 2026-07-28 server sends no log messages unless each request names a level.
    if (client.serverCapabilities?.logging) await client.setLogLevel('info').catch(() => {});

    let tools: Tool[];
    try {
      // A listing the server does not end is cut short, with a warning from the client's error event.
      tools = await client.listAllTools();
    } catch (err) {
      if (this.closing) return;
      this.terminal.fail(`error: tools/list failed: ${messageOf(err)}`);
      return this.quit(1);
    }
    this.printTools(tools);
    while (!this.closing) {
      const tool = await this.chooseTool(tools);
      if (this.closing) return;
      if (tool === undefined) return this.quit(0);
      const args = await this.terminal.use((ask) => this.askArguments(tool, ask));
      if (this.closing) return;
      if (args === undefined) {
        this.terminal.print('(not called)');
        continue;
      }
      await this.call(tool, args);
    }
  }

  /** Close the client and leave: `code` 0 for a user's quit, 1 for a failure. */
  async quit(code: number, interrupted = false): Promise<void> {
    if (this.closing) {
      if (interrupted) process.exit(code);
      return;
    }
    this.closing = true;
    if (interrupted) this.terminal.print();
    process.exitCode = code;
    // A question still open is answered (cancel) once input stops; McpClient.close() lets answers
    // already given go out before it closes the connection.
    this.terminal.close();
    await Promise.allSettled([...this.answering]);
    await this.client.close().catch(() => {});
    // Nothing should be left open; if something is, do not hang on it.
    setTimeout(() => process.exit(code), 2000).unref();
  }

  private printTools(tools: Tool[]): void {
    if (tools.length === 0) {
      this.terminal.print('The server has no tools.');
      return;
    }
    this.terminal.print('Tools:');
    tools.forEach((tool, i) => {
      const description = tool.description === undefined ? undefined : linesOf(tool.description)[0].trim();
      const title = tool.title === undefined ? undefined : asText(tool.title);
      const about = title && description ? `${title}: ${description}` : (title ?? description);
      this.terminal.print(`  ${i + 1}) `, style(BOLD, tool.name), about ? ` — ${about}` : '');
    });
  }

  /** The tool the user picks, or undefined to quit (empty line, q, end of input). */
  private async chooseTool(tools: Tool[]): Promise<Tool | undefined> {
    const range = tools.length > 0 ? `1-${tools.length} or a name, ` : '';
    for (;;) {
      let line: string | null;
      try {
        line = await this.terminal.use((ask) => ask(`Tool to call (${range}empty or q quits): `), { interruptible: true });
      } catch (err) {
        if (err instanceof Interrupted) continue; // the server asked or sent something; ask again below it
        throw err;
      }
      const text = line?.trim() ?? '';
      if (line === null || text === '' || text.toLowerCase() === 'q' || text.toLowerCase() === 'quit') return undefined;
      if (text === '?' || text.toLowerCase() === 'l') {
        this.printTools(tools);
        continue;
      }
      const index = /^\d+$/.test(text) ? Number(text) : Number.NaN;
      const tool =
        (index >= 1 && index <= tools.length ? tools[index - 1] : undefined) ??
        tools.find((t) => t.name === text) ??
        tools.find((t) => asText(t.name).toLowerCase() === text.toLowerCase());
      if (tool) return tool;
      this.terminal.print(style(RED, `  no tool ${JSON.stringify(text)}; type ${range}or ? to list them`));
    }
  }

  /** Every argument of the tool's inputSchema, asked in order; undefined when the user cancels (or input ends). */
  private async askArguments(tool: Tool, ask: Ask): Promise<Record<string, unknown> | undefined> {
    const fields = describeFields(tool.inputSchema);
    if (fields.length > 0) this.terminal.print('Arguments of ', tool.name, ' (!cancel goes back):');
    const args: Record<string, unknown> = {};
    for (const field of fields) {
      const value = await this.askField(field, ask);
      if (value.kind === 'stop') return undefined;
      if (value.kind === 'value') args[field.name] = value.value;
    }
    return args;
  }

  /** One field, asked until the answer is taken: its value, a skip, or a stop (an action, or end of input). */
  private async askField(
    field: FormField,
    ask: Ask,
  ): Promise<{ kind: 'value'; value: unknown } | { kind: 'skip' } | { kind: 'stop'; action: 'decline' | 'cancel' }> {
    const text = fieldText(field);
    this.terminal.print(style(BOLD, text.heading));
    for (const option of text.options) this.terminal.print(option);
    for (;;) {
      const line = await ask(`  ${text.prompt}`);
      if (line === null) return { kind: 'stop', action: 'cancel' };
      const answer = readAnswer(field, line);
      switch (answer.kind) {
        case 'error':
          this.terminal.print(style(RED, `  ✗ ${answer.message}`));
          continue;
        case 'action':
          return { kind: 'stop', action: answer.action };
        case 'skip':
          return { kind: 'skip' };
        case 'value':
          return { kind: 'value', value: answer.value };
      }
    }
  }

  private async call(tool: Tool, args: Record<string, unknown>): Promise<void> {
    let result: CallToolResult;
    try {
      result = await this.client.callTool(tool.name, args, {
        timeoutMs: 30 * 60_000,
        onProgress: ({ progress, total, message }) => {
          this.terminal.notice(
            style(DIM, `progress ${asText(progress)}${total !== undefined ? `/${asText(total)}` : ''}${message ? ` ${asText(message)}` : ''}`),
          );
        },
      });
    } catch (err) {
      if (!this.closing) this.terminal.print(style(RED, `Call failed: ${messageOf(err)}`));
      return;
    }
    this.printResult(result);
  }

  private printResult(result: CallToolResult): void {
    const { terminal } = this;
    terminal.print(result.isError ? style(RED, 'Result (isError: the tool reports a failure):') : 'Result:');
    for (const block of Array.isArray(result.content) ? result.content : []) {
      switch (block?.type) {
        case 'text':
          for (const line of linesOf(block.text)) terminal.print('  ', line);
          break;
        case 'image':
        case 'audio': {
          const bytes = typeof block.data === 'string' ? Math.floor((block.data.length * 3) / 4) : 0;
          terminal.print(`  [${block.type} `, block.mimeType, `, ${bytes} bytes]`);
          break;
        }
        case 'resource_link':
          terminal.print('  [link ', block.uri, block.name ? ` (${asText(block.name)})` : '', ']');
          break;
        case 'resource': {
          const contents = (block.resource ?? {}) as { uri?: string; text?: string };
          terminal.printText(['  [resource ', contents.uri ?? '', ']', typeof contents.text === 'string' ? ' ' : ''], contents.text ?? '', '    ');
          break;
        }
        default:
          terminal.print('  ', block);
      }
    }
    if (result.structuredContent !== undefined) terminal.print('structuredContent: ', result.structuredContent);
  }

  /**
   * A question from the server, with the prompt to itself. When the server withdraws it (`signal`), the
   * answer is never sent; end of input answers `onEnd`.
   */
  private answerQuestion<T>(signal: AbortSignal, fn: (ask: Ask) => Promise<T | null>, onEnd: T | (() => T)): Promise<T> {
    const answer = this.ask(signal, fn, onEnd);
    this.answering.add(answer);
    const done = () => void this.answering.delete(answer);
    answer.then(done, done);
    return answer;
  }

  private async ask<T>(signal: AbortSignal, fn: (ask: Ask) => Promise<T | null>, onEnd: T | (() => T)): Promise<T> {
    try {
      const answer = await this.terminal.use(fn, { signal });
      if (answer !== null) return answer;
    } catch (err) {
      if (!signal.aborted) throw err;
      this.terminal.print(style(DIM, '(the server withdrew its question)'));
    }
    return typeof onEnd === 'function' ? (onEnd as () => T)() : onEnd;
  }

  private serverName(): string {
    return asText(this.client.serverInfo?.name ?? 'The server');
  }

  /** An elicitation: null when input ends. */
  private async elicit(params: ElicitParams, ask: Ask): Promise<ElicitResult | null> {
    const { terminal } = this;
    terminal.print();
    // Lines of the message after its first are marked, so that none can pass for the URL and host lines.
    terminal.printText([style(BOLD, `${this.serverName()} asks:`), ' '], params.message, '  | ');
    if (params.mode === 'url') {
      const host = hostOf(params.url);
      terminal.print('  URL:  ', hrefOf(params.url));
      terminal.print('  host: ', style(BOLD, host));
      terminal.print(style(DIM, '  (nothing is opened for you: check the host, and open it in a browser yourself)'));
      // The question itself names the host: whatever was printed above it, the answer is about this one.
      const line = await ask(`Open this URL on host ${host}? [y/N] `);
      if (line === null) return null;
      const action = parseYesNo(line) ? 'accept' : 'decline';
      terminal.print(style(DIM, `(answered ${action})`));
      return { action };
    }

    let action: 'accept' | 'decline' | 'cancel' | undefined;
    while (action === undefined) {
      const line = await ask('accept, decline or cancel? [a/d/c] ');
      if (line === null) return null;
      action = parseAction(line);
      if (action === undefined) terminal.print(style(RED, '  ✗ answer a, d or c'));
    }
    if (action !== 'accept') {
      terminal.print(style(DIM, `(answered ${action})`));
      return { action };
    }
    terminal.print(style(DIM, '(* is required; an empty answer takes the [default] or skips; !decline or !cancel stops)'));
    const content: Record<string, unknown> = {};
    for (const field of describeFields(params.requestedSchema)) {
      const answer = await this.askField(field, ask);
      if (answer.kind === 'stop') {
        terminal.print(style(DIM, `(answered ${answer.action})`));
        return { action: answer.action };
      }
      if (answer.kind === 'value') content[field.name] = answer.value;
    }
    terminal.print(style(DIM, '(answered accept)'));
    return { action: 'accept', content: content as ElicitResult['content'] };
  }

  /** Sampling: the user writes the model's reply. Null when input ends. */
  private async sample(params: CreateMessageParams, ask: Ask): Promise<CreateMessageResult | null> {
    const { terminal } = this;
    terminal.print();
    terminal.print(style(BOLD, `${this.serverName()} asks for a model reply (sampling, at most ${asText(params.maxTokens)} tokens); you are the model.`));
    if (params.systemPrompt) terminal.printText(['  system: '], params.systemPrompt, '    ');
    for (const message of Array.isArray(params.messages) ? params.messages : []) {
      const blocks = Array.isArray(message?.content) ? message.content : [message?.content];
      for (const block of blocks) {
        const text = block && typeof block === 'object' && block.type === 'text' && typeof block.text === 'string' ? block.text : asText(block);
        terminal.printText([`  ${asText(message?.role)}: `], text, '    ');
      }
    }
    for (;;) {
      const line = await ask('Reply text (!decline refuses): ');
      if (line === null) return null;
      const command = line.trim().toLowerCase();
      if (command === '!decline' || command === '!cancel') throw new McpError(-1, 'User rejected sampling request');
      if (line.trim() === '') {
        terminal.print(style(RED, '  ✗ type the reply, or !decline'));
        continue;
      }
      return { role: 'assistant', content: { type: 'text', text: line }, model: 'human' };
    }
  }
}

async function main(argv: readonly string[]): Promise<void> {
  const parsed = parseCommandLine(argv);
  if ('error' in parsed) {
    process.stderr.write(`${parsed.error}\n`);
    process.exitCode = 1;
    return;
  }
  await new TerminalClient(parsed.url, parsed.era).run();
}

await main(process.argv.slice(2));
