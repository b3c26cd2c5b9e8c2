/**
 * WebSocket fuzzing: a server with the generated traffic's catalog on 127.0.0.1:0, sockets at chosen
 * protocol versions, and for each socket a ledger of the answers every frame sent on it must bring back
 * (from the reference model), what came back instead, and a barrier `ping` that proves the session alive.
 */
import type fc from 'fast-check';
import { type McpServer, WebSocketTransport } from '../../src/index.js';
import { brief, watchProcessErrors } from './fuzz.js';
import { within } from './waits.js';
import { type Frame, frameArb, frameText, RESERVED_ID_PREFIX, catalogServer, type Traffic } from './jsonrpc-arbitraries.js';
import { answerProblem, expectedForText, idKey, INVALID_REQUEST, PARSE_ERROR } from './jsonrpc-model.js';
import { unexpectedErrors } from './server-errors.js';
import { WsTestClient } from './ws-client.js';

/** The transport's maxMessageBytes: a larger frame would close the socket with 1009, as documented. */
export const MAX_MESSAGE_BYTES = 1024 * 1024;

/** Frames for `traffic` (text, JSON and binary) that fit in MAX_MESSAGE_BYTES. */
export function wsFrameArb(traffic: Traffic): fc.Arbitrary<Frame> {
  return frameArb(traffic, true).filter((frame) => Buffer.byteLength(frameText(frame) ?? '') < MAX_MESSAGE_BYTES - 1024);
}

const AWAIT_MS = 5_000;

/** How long answers may trail the barrier ping: handlers here answer at once, so this is generous. */
const STRAGGLER_MS = 1_000;

/** How long a socket may take to close before it is dropped. */
const CLOSE_MS = 1_000;

let barriers = 0;

/** One socket under fuzz: what it must get back, and what it got. */
export class FuzzSocket {
  /** Every message received since the socket was ready for fuzzing, parsed (or the text, when it was no JSON). */
  readonly received: unknown[] = [];
  /** Answers due, by id key: how many, and the refusal codes among them. */
  private readonly due = new Map<string, { count: number; codes: number[] }>();
  private dueTotal = 0;
  private arraysDue = 0;
  /** Replies the client sent, each of which the server reports on `error`. */
  responses = 0;
  /** Answers received so far, arrays counted by their members. */
  private answered = 0;
  /** Answers with -32700 or -32600 before the last checkpoint. */
  private refused = 0;

  constructor(
    readonly client: WsTestClient,
    /** Whether the session takes batches (it negotiated 2025-03-26). */
    readonly batches: boolean,
    /** Why waiting for answers is pointless now (something escaped the server), if it is. */
    private readonly broken: () => string | undefined = () => undefined,
  ) {
    client.socket.on('message', (data) => {
      const text = data.toString();
      let message: unknown;
      try {
        message = JSON.parse(text);
      } catch {
        message = { unparseable: text };
      }
      this.received.push(message);
      this.answered += Array.isArray(message) ? message.length : 1;
    });
  }

  /** Send one frame, and note what it must bring back. */
  send(frame: Frame): void {
    const text = frameText(frame);
    if (text === undefined) {
      this.owe(null, INVALID_REQUEST);
      this.client.socket.send((frame as { bytes: Uint8Array }).bytes, { binary: true });
      return;
    }
    // What the server reads: the frame's UTF-8 (a lone surrogate goes out as U+FFFD).
    const expected = expectedForText(Buffer.from(text, 'utf8').toString('utf8'), this.batches);
    for (const answer of expected.answers) this.owe(answer.id, answer.code);
    if (expected.array) this.arraysDue++;
    this.responses += expected.responses;
    this.client.socket.send(text);
  }

  private owe(id: string | number | null, code: number | undefined): void {
    const entry = this.due.get(idKey(id)) ?? { count: 0, codes: [] };
    entry.count++;
    if (code !== undefined) entry.codes.push(code);
    this.due.set(idKey(id), entry);
    this.dueTotal++;
  }

  /**
   * Wait until every answer due has come (or `STRAGGLER_MS` passed), then round-trip a `ping` so that
   * anything sent twice has arrived too. Fails if the ping gets no `{}` result: the session must live on.
   */
  async settle(): Promise<void> {
    await this.ping();
    await this.until(() => this.answered >= this.dueTotal, STRAGGLER_MS, 'the answers due').catch(() => {});
    await this.ping();
  }

  private async ping(): Promise<void> {
    const id = `${RESERVED_ID_PREFIX}barrier-${++barriers}`;
    this.client.socket.send(JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' }));
    const isBarrier = (m: unknown) => typeof m === 'object' && m !== null && (m as { id?: unknown }).id === id;
    await this.until(() => this.received.some(isBarrier), AWAIT_MS, `the answer to ping ${JSON.stringify(id)}`);
    const answer = this.received.find(isBarrier) as Record<string, unknown>;
    this.received.splice(this.received.indexOf(answer), 1);
    this.answered--;
    if ('error' in answer || JSON.stringify(answer.result) !== '{}') throw new Error(`ping answered ${JSON.stringify(answer)}`);
  }

  /**
   * Resolves once `condition()` holds, checked now and on every message that arrives; rejects after
   * `ms`, or as soon as the server is `broken`.
   */
  private until(condition: () => boolean, ms: number, what: string): Promise<void> {
    if (condition()) return Promise.resolve();
    let check = () => {};
    let watch: NodeJS.Timeout | undefined;
    const met = new Promise<void>((resolve, reject) => {
      check = () => {
        if (condition()) resolve();
      };
      this.client.socket.on('message', check);
      watch = setInterval(() => {
        const why = this.broken();
        if (why) reject(new Error(`${what}: given up, ${why}`));
      }, 50);
    });
    return within(met, ms, what).finally(() => {
      clearInterval(watch);
      this.client.socket.off('message', check);
    });
  }

  /** Everything that is wrong with what came back: malformed answers, answers missing or extra, arrays where none were due. */
  problems(): string[] {
    const problems: string[] = [];
    const got = new Map<string, { count: number; codes: number[] }>();
    let arrays = 0;
    for (const message of this.received) {
      if (Array.isArray(message)) {
        arrays++;
        if (message.length === 0) problems.push('an empty array arrived');
      }
      for (const answer of Array.isArray(message) ? message : [message]) {
        const problem = answerProblem(answer);
        if (problem) {
          problems.push(`${problem}: ${JSON.stringify(answer).slice(0, 300)}`);
          continue;
        }
        const { id, error } = answer as { id: string | number | null; error?: { code: number } };
        const entry = got.get(idKey(id)) ?? { count: 0, codes: [] };
        entry.count++;
        if (error) entry.codes.push(error.code);
        got.set(idKey(id), entry);
      }
    }
    if (arrays !== this.arraysDue) problems.push(`${arrays} batch answers (arrays) arrived; ${this.arraysDue} were due`);
    for (const key of new Set([...this.due.keys(), ...got.keys()])) {
      const due = this.due.get(key) ?? { count: 0, codes: [] };
      const came = got.get(key) ?? { count: 0, codes: [] };
      const what = `id ${key.length > 80 ? `${key.slice(0, 80)}…` : key}`;
      if (came.count !== due.count) problems.push(`${came.count} answers for ${what}; ${due.count} due`);
      for (const code of [PARSE_ERROR, INVALID_REQUEST]) {
        const wanted = due.codes.filter((c) => c === code).length;
        const found = came.codes.filter((c) => c === code).length;
        if (found < wanted) problems.push(`${found} answers with ${code} for ${what}; ${wanted} due`);
      }
    }
    return problems;
  }

  /**
   * Settle, list what is wrong so far, and forget the answers accounted for, so that a long run keeps
   * no record of them (replies sent and refusals stay counted).
   */
  async checkpoint(): Promise<string[]> {
    await this.settle();
    const problems = this.problems();
    this.forget();
    return problems;
  }

  /** Forget what came and what was due (counting the refusals among what came). */
  forget(): void {
    this.refused += this.refusalsNow();
    this.received.length = 0;
    this.client.received.length = 0;
    this.due.clear();
    this.dueTotal = 0;
    this.arraysDue = 0;
    this.answered = 0;
  }

  /** How many answers carried -32700 or -32600 (what `stats.invalidMessages` counts). */
  refusals(): number {
    return this.refused + this.refusalsNow();
  }

  private refusalsNow(): number {
    return this.received
      .flatMap((m) => (Array.isArray(m) ? m : [m]))
      .filter((m) => {
        const code = (m as { error?: { code?: unknown } }).error?.code;
        return code === PARSE_ERROR || code === INVALID_REQUEST;
      }).length;
  }
}

/** Opens a socket that initialized at `version` (undefined: connected, never initialized). */
export type OpenSocket = (version: string | undefined) => Promise<FuzzSocket>;

/** A server on 127.0.0.1:0 with the catalog, and every error it reports. */
export interface WsFuzzServer {
  server: McpServer;
  url: string;
  errors: Error[];
  /**
   * One round: `body` opens sockets and sends on them; then every socket is settled, what went wrong on
   * them and on the server since the round began is listed (answers, errors reported, stats,
   * process-level errors, and what `body` threw), and the sockets are closed.
   */
  round(body: (open: OpenSocket) => Promise<void>): Promise<string[]>;
  close(): Promise<void>;
}

export async function startWsFuzzServer(): Promise<WsFuzzServer> {
  const { server, errors } = catalogServer();
  const transport = new WebSocketTransport(server, { maxMessageBytes: MAX_MESSAGE_BYTES, keepAliveIntervalMs: 0 });
  const { url } = await within(transport.listen({ host: '127.0.0.1', port: 0 }), AWAIT_MS, 'listen');
  return {
    server,
    url,
    errors,
    async round(body) {
      const errorsBefore = errors.length;
      const invalidBefore = server.stats.invalidMessages;
      const processErrors = watchProcessErrors();
      const broken = () => (processErrors.errors.length > 0 ? 'an error escaped the server' : undefined);
      const sockets: [FuzzSocket, string][] = [];
      const problems: string[] = [];
      try {
        await body(async (version) => {
          const client = await within(WsTestClient.connect(url), AWAIT_MS, 'connect');
          const socket = new FuzzSocket(client, version === '2025-03-26', broken);
          sockets.push([socket, `socket ${sockets.length} (${version ?? 'not initialized'})`]);
          if (version !== undefined) {
            await within(client.initialize({ protocolVersion: version }), AWAIT_MS, 'initialize');
            // The answer to this ping says notifications/initialized has been handled.
            await within(client.request('ping'), AWAIT_MS, 'ping after initialize');
            socket.forget();
          }
          return socket;
        });
      } catch (err) {
        problems.push(brief(err, 2000));
      }
      try {
        for (const [socket, name] of sockets) {
          await socket.settle().catch((err: Error) => problems.push(`${name}: ${err.message}`));
          problems.push(...socket.problems().map((p) => `${name}: ${p}`));
        }
        const reported = errors.slice(errorsBefore);
        problems.push(...unexpectedErrors(reported).map((e) => `the server reported ${e}`));
        const responses = sockets.reduce((n, [s]) => n + s.responses, 0);
        const forReplies = reported.length;
        if (forReplies !== responses) problems.push(`${forReplies} errors reported for ${responses} replies to nothing`);
        const refusals = sockets.reduce((n, [s]) => n + s.refusals(), 0);
        const invalid = server.stats.invalidMessages - invalidBefore;
        if (invalid !== refusals) problems.push(`stats.invalidMessages went up by ${invalid}; ${refusals} answers were -32700 or -32600`);
        if (server.stats.requestsInFlight !== 0) problems.push(`stats.requestsInFlight is ${server.stats.requestsInFlight} once every answer is in`);
        problems.push(...processErrors.errors.map((e) => `uncaught in the process: ${brief(e, 2000)}`));
      } finally {
        processErrors.stop();
        for (const [socket, name] of sockets) {
          // A socket whose server side stopped reading never finishes the closing handshake: drop it.
          await within(socket.client.close(), CLOSE_MS, `closing ${name}`).catch(() => socket.client.socket.terminate());
        }
      }
      return problems;
    },
    async close() {
      await within(server.close(), AWAIT_MS, 'closing the server');
    },
  };
}
