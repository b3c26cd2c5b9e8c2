/**
 * A server's OpenTelemetry instrumentation (gen-ai/mcp.md), made once from `options.telemetry`. The
 * server holds none without that option, and its request path then does no telemetry work.
 */
import type { JsonRpcRequest } from '../protocol/jsonrpc.js';
import type { RequestId } from '../protocol/types.js';
import { ClientSpan } from './client-span.js';
import { addTransport, Instruments, type TracedSession } from './instruments.js';
import type { OtelAttributes, TelemetryOptions } from './otel-api.js';
import { ATTR } from './semconv.js';
import { ServerSpan } from './server-span.js';

export class Telemetry {
  private readonly instruments: Instruments;

  constructor(options: TelemetryOptions) {
    this.instruments = new Instruments(options);
  }

  /** The SERVER span of a client request; `served` is whether the server has a handler for its method. */
  serverSpan(session: TracedSession, request: JsonRpcRequest, served: boolean, known: boolean): ServerSpan | undefined {
    try {
      return new ServerSpan(this.instruments, session, request, served, known);
    } catch {
      // A tracer that throws (the API promises it never does) costs the request its span, not its answer.
      return undefined;
    }
  }

  /** The CLIENT span of a request to the client, made once it has its id. */
  clientSpan(session: TracedSession, method: string, id: RequestId): ClientSpan | undefined {
    try {
      return new ClientSpan(this.instruments, session, method, id);
    } catch {
      return undefined;
    }
  }

  /** An initialized session ended: its `mcp.server.session.duration`. */
  sessionEnded(session: TracedSession): void {
    const attributes: OtelAttributes = {};
    if (session.protocolVersion !== undefined) attributes[ATTR.protocolVersion] = session.protocolVersion;
    addTransport(attributes, session.transport);
    try {
      this.instruments.sessionDuration.record((Date.now() - session.createdAt.getTime()) / 1000, attributes);
    } catch {
      // A meter that throws costs the point, not the session's end.
    }
  }
}
