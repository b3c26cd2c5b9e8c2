/**
 * The one pipeline every client request runs through, in both eras and on every transport: it tracks the
 * request, runs its handler, maps its error, and answers exactly once, or not at all when the request was
 * cancelled (cancellation.mdx) or its session ended. The mirror of the pending table for what we send.
 */
import { ErrorCode, McpError, type JsonRpcErrorObject } from '../protocol/errors.js';
import { errorResponse, type JsonRpcRequest, type JsonRpcResponse, resultResponse } from '../protocol/jsonrpc.js';
import type { Meta, RequestId } from '../protocol/types.js';
import { Context } from './context.js';
import type { IncomingRequests } from './incoming.js';
import type { Session } from './session.js';

/** One method's handler: its result, or a thrown McpError (anything else is answered -32603 and reported). */
export type MethodHandler = (session: Session, params: Record<string, unknown>, ctx: Context) => Record<string, unknown> | Promise<Record<string, unknown>>;

/** What differs between the eras once a request is admitted: the methods, and how results and errors are worded. */
export interface Dispatch {
  readonly methods: Readonly<Record<string, MethodHandler | undefined>>;
  /** The result as it goes on the wire. */
  complete(session: Session, method: string, params: Record<string, unknown>, result: Record<string, unknown>): Record<string, unknown>;
  /** The error as it goes on the wire. */
  error(err: McpError): McpError;
}

/** Where a request's one answer goes: its session, or the array a batch is answered with. */
export interface Answers {
  /** The response, or undefined when the message gets none (a notification, a cancelled request). */
  answer(id: RequestId | null, response: JsonRpcResponse | undefined): void;
}

/**
 * Run one request. `onStart` sees its context before the handler runs, so that a transport whose client
 * already left can cancel it first. Returns the context.
 */
export function serve(
  session: Session,
  request: JsonRpcRequest,
  dispatch: Dispatch,
  table: IncomingRequests | undefined,
  answers: Answers = session,
  onStart?: (ctx: Context) => void,
): Context {
  const params = request.params ?? {};
  const ctx = new Context(session, request.id, request.method, params._meta as Meta | undefined);
  table?.add(ctx.requestId, ctx);
  session.host.stats.requestsInFlight++;
  onStart?.(ctx);
  void run(session, request, params, ctx, dispatch, table, answers);
  return ctx;
}

/** Whether the tool or prompt a request names is registered (telemetry names only those: a client's made-up names are unbounded). */
function knownTarget(session: Session, method: string, params: Record<string, unknown>): boolean {
  const name = params.name;
  if (typeof name !== 'string') return true;
  if (method === 'tools/call') return session.host.catalog.tools.get(name) !== undefined;
  if (method === 'prompts/get') return session.host.catalog.prompts.get(name) !== undefined;
  return true;
}

async function run(
  session: Session,
  request: JsonRpcRequest,
  params: Record<string, unknown>,
  ctx: Context,
  dispatch: Dispatch,
  table: IncomingRequests | undefined,
  answers: Answers,
): Promise<void> {
  const { id, method } = request;
  const handler = dispatch.methods[method] ?? session.host.extensions.handler(method);
  // Without options.telemetry this is the only telemetry work a request does.
  const span = session.host.telemetry?.serverSpan(session, request, handler !== undefined, knownTarget(session, method, params));
  let response: JsonRpcResponse;
  try {
    if (!handler) throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${method}`);
    const result = await (span ? span.run(handler, session, params, ctx) : handler(session, params, ctx));
    response = resultResponse(id, dispatch.complete(session, method, params, result));
  } catch (err) {
    response = errorResponse(id, errorObject(session, dispatch, method, err));
  } finally {
    ctx.end();
    table?.remove(ctx.requestId, ctx);
    session.host.stats.requestsInFlight--;
  }
  answers.answer(id, ctx.aborted ? undefined : response);
  span?.end(response, ctx.aborted);
}

/**
 * An McpError is the handler's answer. Anything else is a failure the client is not told about (a path, a
 * query, a stack may be in it): it goes to the `error` event, and the client gets "Internal error".
 */
function errorObject(session: Session, dispatch: Dispatch, method: string, err: unknown): JsonRpcErrorObject {
  if (err instanceof McpError) return dispatch.error(err).toJSON();
  const error = err instanceof Error ? err : new Error(String(err));
  session.host.reportError(new Error(`${method} handler failed: ${error.message}`, { cause: error }), session);
  return { code: ErrorCode.InternalError, message: session.host.options.exposeErrors ? `Internal error: ${error.message}` : 'Internal error' };
}

/** The answers of one batch (2025-03-26), sent as one array, in the members' order, once every member has ended. */
export class BatchAnswers {
  private readonly slots: (JsonRpcResponse | undefined)[];
  private open: number;

  constructor(
    private readonly session: Session,
    size: number,
  ) {
    this.slots = new Array(size);
    this.open = size;
  }

  /** Member `index` ended, with this response or none (a notification, a reply, a cancelled request). */
  settle(index: number, response: JsonRpcResponse | undefined): void {
    this.slots[index] = response;
    if (--this.open > 0) return;
    const responses = this.slots.filter((r): r is JsonRpcResponse => r !== undefined);
    if (responses.length > 0) this.session.send(responses);
  }

  /** Where member `index` answers when it runs through the pipeline. */
  member(index: number): Answers {
    return { answer: (_id, response) => this.settle(index, response) };
  }
}
