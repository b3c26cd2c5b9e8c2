/**
 * The SERVER span of one client request, and its `mcp.server.operation.duration`: started when the
 * pipeline takes the request, current while its handler runs, ended once its answer has gone out.
 */
import { isErrorResponse, type JsonRpcRequest, type JsonRpcResponse, isObject } from '../protocol/jsonrpc.js';
import { addTransport, type Instruments, META_GETTER, type TracedSession } from './instruments.js';
import type { OtelAttributes, OtelContext, OtelSpan, OtelSpanOptions } from './otel-api.js';
import { ATTR, CANCELLED, OTHER_METHOD, SPAN_KIND_SERVER, STATUS_ERROR, TOOL_ERROR } from './semconv.js';

const SERVER: OtelSpanOptions = { kind: SPAN_KIND_SERVER };

export class ServerSpan {
  private readonly startedMs = performance.now();
  private readonly span: OtelSpan;
  /** The context the handler runs in: the span's, so that the spans it starts are its children. */
  private readonly context: OtelContext;
  /** The request's method, or `_OTHER` for one the server does not serve. */
  private readonly method: string;
  private readonly toolName: string | undefined;
  private readonly promptName: string | undefined;
  /** What the span was given at its start; initialize tells the rest only once it has run. */
  private readonly startVersion: string | undefined;
  private readonly startSessionId: string | undefined;

  constructor(
    private readonly instruments: Instruments,
    private readonly session: TracedSession,
    request: JsonRpcRequest,
    served: boolean,
    /** Whether the tool or prompt it names is registered: only then does its (client-chosen) name reach names and metrics. */
    known: boolean,
  ) {
    const { api, tracer } = instruments;
    const method = served ? request.method : OTHER_METHOD;
    const params = served ? request.params : undefined;
    const name = known && typeof params?.name === 'string' ? params.name : undefined;
    const uri = typeof params?.uri === 'string' && method.startsWith('resources/') ? params.uri : undefined;
    this.method = method;
    this.toolName = method === 'tools/call' ? name : undefined;
    this.promptName = method === 'prompts/get' ? name : undefined;
    this.startVersion = session.protocolVersion;
    this.startSessionId = session.initializedId;

    // gen-ai/mcp.md: the parent is the context `_meta` carries; a span current on arrival (an HTTP server span) is a link.
    const active = api.context.active();
    const ambient = api.trace.getSpan(active);
    let parent = ambient ? api.trace.deleteSpan(active) : active;
    const meta = request.params?._meta;
    if (isObject(meta)) parent = api.propagation.extract(parent, meta, META_GETTER);
    const linked = ambient?.spanContext();
    const options = linked && api.trace.isSpanContextValid(linked) ? { kind: SPAN_KIND_SERVER, links: [{ context: linked }] } : SERVER;
    const target = this.toolName ?? this.promptName ?? (instruments.resourceUriInSpanName ? uri : undefined);
    this.span = tracer.startSpan(target === undefined ? method : `${method} ${target}`, options, parent);
    this.context = api.trace.setSpan(parent, this.span);
    if (!this.span.isRecording()) return;

    const attributes: OtelAttributes = {
      [ATTR.methodName]: method,
      [ATTR.requestId]: String(request.id),
      [ATTR.jsonrpcVersion]: '2.0',
      [ATTR.protocolVersion]: this.startVersion,
      [ATTR.sessionId]: this.startSessionId,
      [ATTR.resourceUri]: uri,
      [ATTR.clientAddress]: session.remoteAddress,
    };
    if (this.toolName !== undefined) {
      attributes[ATTR.toolName] = this.toolName;
      attributes[ATTR.operationName] = 'execute_tool';
    }
    if (this.promptName !== undefined) attributes[ATTR.promptName] = this.promptName;
    addTransport(attributes, session.transport);
    this.span.setAttributes(attributes);
  }

  /** Call `fn` with the span current: what it (and what it awaits) starts is the span's child. */
  run<A extends unknown[], R>(fn: (...args: A) => R, ...args: A): R {
    return this.instruments.api.context.with(this.context, fn, undefined, ...args);
  }

  /** The request ended: with `response` sent, or with nothing sent (`cancelled`). A tracer that throws costs the span only. */
  end(response: JsonRpcResponse, cancelled: boolean): void {
    try {
      this.finish(response, cancelled);
    } catch {
      // The OpenTelemetry API promises never to throw; a tracer that does must not take the server with it.
    }
  }

  private finish(response: JsonRpcResponse, cancelled: boolean): void {
    const seconds = (performance.now() - this.startedMs) / 1000;
    let errorType: string | undefined;
    let statusCode: string | undefined;
    let message: string | undefined;
    if (cancelled) {
      errorType = CANCELLED;
      message = 'The request was cancelled, or its session ended, before it was answered';
    } else if (isErrorResponse(response)) {
      errorType = statusCode = String(response.error.code);
      message = response.error.message;
    } else if (this.toolName !== undefined && response.result.isError === true) {
      errorType = TOOL_ERROR;
      message = firstText(response.result);
    }
    const { span, session } = this;
    const version = this.startVersion ?? session.protocolVersion;
    if (span.isRecording()) {
      if (this.startVersion === undefined && version !== undefined) span.setAttribute(ATTR.protocolVersion, version);
      const sessionId = this.startSessionId === undefined ? session.initializedId : undefined;
      if (sessionId !== undefined) span.setAttribute(ATTR.sessionId, sessionId);
      if (errorType !== undefined) {
        span.setAttribute(ATTR.errorType, errorType);
        if (statusCode !== undefined) span.setAttribute(ATTR.statusCode, statusCode);
        span.setStatus({ code: STATUS_ERROR, message });
      }
    }
    span.end();

    // Only keys with values: a metric's attribute set is its series, and an undefined value would still name one.
    const attributes: OtelAttributes = { [ATTR.methodName]: this.method };
    if (version !== undefined) attributes[ATTR.protocolVersion] = version;
    if (errorType !== undefined) attributes[ATTR.errorType] = errorType;
    if (statusCode !== undefined) attributes[ATTR.statusCode] = statusCode;
    if (this.toolName !== undefined) {
      attributes[ATTR.toolName] = this.toolName;
      attributes[ATTR.operationName] = 'execute_tool';
    }
    if (this.promptName !== undefined) attributes[ATTR.promptName] = this.promptName;
    addTransport(attributes, session.transport);
    this.instruments.operationDuration.record(seconds, attributes);
  }
}

/** The status message of an `isError` tool result: its first text, which says what failed. */
function firstText(result: Record<string, unknown>): string | undefined {
  const content = result.content;
  const first = Array.isArray(content) ? content[0] : undefined;
  return isObject(first) && typeof first.text === 'string' ? first.text : undefined;
}
