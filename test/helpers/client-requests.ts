/**
 * Shared pieces for tests of server-to-client requests with a typed result (elicitation, sampling,
 * roots): client capability sets, response-event recording, typed-error assertions, tool calls and
 * their text results, and the asks and answers the MRTR tests share.
 */
import { expect } from 'vitest';
import { McpError, type CreateMessageParams, type ElicitParams, type McpServer, type McpSession, type OutgoingRequest } from '../../src/index.js';
import type { Outcome } from './outcome.js';
import type { Json, WsTestClient } from './ws-client.js';

/** Client capability sets, as a client sends them in `initialize`. */
export const CAPS = {
  none: {},
  /** The 2025-06-18 form: means form mode only. */
  legacyElicitation: { elicitation: {} },
  form: { elicitation: { form: {} } },
  url: { elicitation: { url: {} } },
  formAndUrl: { elicitation: { form: {}, url: {} } },
  sampling: { sampling: {} },
  samplingTools: { sampling: { tools: {} } },
  roots: { roots: { listChanged: true } },
} as const;

export type ResponseEventName = 'responseElicitationCreate' | 'responseSamplingCreateMessage' | 'responseRootsList';
export type ResponseArgs = [session: McpSession, request: OutgoingRequest, response: Json];

export interface ResponseLog {
  /** Every emission so far, in order. */
  readonly all: ResponseArgs[];
  /** The next emission (or the first not yet taken by `next`). */
  next(): Promise<ResponseArgs>;
}

/** Record every emission of a response event from now on; `next()` hands them out one by one, in order. */
export function responseLog(server: McpServer, event: ResponseEventName): ResponseLog {
  const all: ResponseArgs[] = [];
  let taken = 0;
  const waiting: ((args: ResponseArgs) => void)[] = [];
  (server as unknown as { on(e: string, fn: (...args: unknown[]) => void): void }).on(event, (...args: unknown[]) => {
    all.push(args as ResponseArgs);
    const waiter = waiting.shift();
    if (waiter) {
      taken++;
      waiter(args as ResponseArgs);
    }
  });
  return {
    all,
    next() {
      if (taken < all.length) return Promise.resolve(all[taken++]);
      return new Promise<ResponseArgs>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no further '${event}' event within 5000 ms`)), 5000);
        waiting.push((args) => {
          clearTimeout(timer);
          resolve(args);
        });
      });
    },
  };
}

/** The error of an outcome that must have failed. */
export function errorOf(outcome: Outcome<unknown>): unknown {
  expect(outcome.ok).toBe(false);
  return outcome.ok ? undefined : outcome.error;
}

/** `error` is an instance of `cls` (and of McpError) with exactly this code, message and data. */
export function expectMcpError(
  error: unknown,
  cls: abstract new (...args: never[]) => McpError,
  fields: { code: number; message: string | RegExp; data?: unknown },
): void {
  expect(error).toBeInstanceOf(cls);
  expect(error).toBeInstanceOf(McpError);
  const e = error as McpError;
  expect({ code: e.code, message: e.message, data: e.data }).toEqual({
    code: fields.code,
    message: typeof fields.message === 'string' ? fields.message : expect.stringMatching(fields.message),
    data: fields.data,
  });
}

/** The thrown value of `fn`, which must throw synchronously. */
export function thrownBy(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected the call to throw synchronously, but it returned');
}

/** Start `tools/call` with this id; resolves with the whole response message. */
export function callTool(client: WsTestClient, name: string, args: Json = {}, id: string | number = `call-${name}`): Promise<Json> {
  return client.request('tools/call', { name, arguments: args }, id);
}

/** A CallToolResult of one text block (as a raw client receives it, and as the SDK client returns it). */
export function toolText(text: string, isError?: true): { content: { type: 'text'; text: string }[]; isError?: true } {
  return isError ? { content: [{ type: 'text', text }], isError } : { content: [{ type: 'text', text }] };
}

/** The whole handshake-era response of a tools/call whose result is one text block (no resultType in this era). */
export function textResult(id: string | number, text: string, isError?: true): Json {
  return { jsonrpc: '2.0', id, result: toolText(text, isError) };
}

/** The text of a `{ content: { text } }` value ('' when there is none). */
export function textOf(value: unknown): string {
  return (value as { content?: { text?: string } })?.content?.text ?? '';
}

// The asks and answers of the MRTR tests, on a legacy-era session and on 2026-07-28.

export const NAME_SCHEMA = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } as const;
export const NAME_Q = { message: 'What is your name?', requestedSchema: NAME_SCHEMA } as unknown as ElicitParams;
export const SEAT_Q = {
  message: 'Which seat?',
  requestedSchema: { type: 'object', properties: { seat: { type: 'string' } }, required: ['seat'] },
} as unknown as ElicitParams;
export const SAMPLE_Q: CreateMessageParams = { messages: [{ role: 'user', content: { type: 'text', text: 'Capital of France?' } }], maxTokens: 20 };

export const ADA = { action: 'accept', content: { name: 'Ada' } };
export const PARIS = { role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'test-model', stopReason: 'endTurn' };
export const ROOTS = { roots: [{ uri: 'file:///work', name: 'Work' }, { uri: 'file:///home' }] };

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const RESPONSE_FIELDS = { elicitation: ['action', 'content'], sampling: ['role', 'content', 'model', 'stopReason'], roots: ['roots'] } as const;

/** A response event's payload on success, with every key present as the runtime sends it (absent ones undefined). */
export function succeeded(kind: keyof typeof RESPONSE_FIELDS, fields: Record<string, unknown>): Record<string, unknown> {
  const response: Record<string, unknown> = { isError: false, errorCode: undefined, errorMessage: undefined, errorData: undefined };
  for (const field of RESPONSE_FIELDS[kind]) response[field] = undefined;
  return { ...response, ...fields };
}
