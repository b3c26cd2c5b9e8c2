/**
 * The CLIENT span of one request the server sends its client (elicitation/create, sampling/createMessage,
 * roots/list, ping, session.request): a child of what is current when it is sent (the handler's SERVER
 * span, when a handler asks), carried to the client in `params._meta`, ended when the request ends.
 */
import { ConnectionClosedError, McpError, RequestCancelledError, RequestTimeoutError } from '../protocol/errors.js';
import { isObject } from '../protocol/jsonrpc.js';
import type { RequestId } from '../protocol/types.js';
import { addTransport, type Instruments, META_SETTER, type TracedSession } from './instruments.js';
import type { OtelAttributes, OtelContext, OtelSpan, OtelSpanOptions } from './otel-api.js';
import { ATTR, SPAN_KIND_CLIENT, STATUS_ERROR } from './semconv.js';

const CLIENT: OtelSpanOptions = { kind: SPAN_KIND_CLIENT };

export class ClientSpan {
  private readonly span: OtelSpan;
  private readonly context: OtelContext;

  constructor(
    private readonly instruments: Instruments,
    session: TracedSession,
    method: string,
    id: RequestId,
  ) {
    const { api } = instruments;
    const parent = api.context.active();
    this.span = instruments.tracer.startSpan(method, CLIENT, parent);
    this.context = api.trace.setSpan(parent, this.span);
    if (!this.span.isRecording()) return;
    const attributes: OtelAttributes = {
      [ATTR.methodName]: method,
      [ATTR.requestId]: String(id),
      [ATTR.jsonrpcVersion]: '2.0',
      [ATTR.protocolVersion]: session.protocolVersion,
      [ATTR.sessionId]: session.initializedId,
    };
    addTransport(attributes, session.transport);
    this.span.setAttributes(attributes);
  }

  /**
   * `params` with this span's trace context in `_meta` (gen-ai/mcp.md, "Context propagation"): a copy
   * when there is anything to add, so the caller's object is never changed.
   */
  inject(params: Record<string, unknown>): Record<string, unknown> {
    const carrier: Record<string, unknown> = {};
    try {
      this.instruments.api.propagation.inject(this.context, carrier, META_SETTER);
    } catch {
      return params;
    }
    for (const _key in carrier) {
      const meta = params._meta;
      return { ...params, _meta: isObject(meta) ? { ...meta, ...carrier } : carrier };
    }
    return params;
  }

  /** The request ended: with a result (`error` undefined), an error reply, a timeout, a cancellation or the session's end. */
  end(error: unknown): void {
    try {
      this.finish(error);
    } catch {
      // As for server spans: a throwing tracer costs the span, never the request's outcome.
    }
  }

  private finish(error: unknown): void {
    const { span } = this;
    if (error !== undefined && span.isRecording()) {
      const [errorType, statusCode] = classify(error);
      span.setAttribute(ATTR.errorType, errorType);
      if (statusCode !== undefined) span.setAttribute(ATTR.statusCode, statusCode);
      span.setStatus({ code: STATUS_ERROR, message: error instanceof Error ? error.message : String(error) });
    }
    span.end();
  }
}

/** `error.type` (and the JSON-RPC code, if the client answered with one): local endings are named, not numbered. */
function classify(error: unknown): [errorType: string, statusCode: string | undefined] {
  if (error instanceof RequestTimeoutError) return ['timeout', undefined];
  if (error instanceof RequestCancelledError) return ['cancelled', undefined];
  if (error instanceof ConnectionClosedError) return ['connection_closed', undefined];
  if (error instanceof McpError) return [String(error.code), String(error.code)];
  return ['_OTHER', undefined];
}
