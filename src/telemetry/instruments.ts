/** What every span and measurement of one server shares: the API, the tracer and the histograms, made once. */
import type { OtelApi, OtelAttributes, OtelHistogram, OtelTracer, TelemetryOptions } from './otel-api.js';
import { ATTR, DURATION_BUCKETS, METRIC } from './semconv.js';

/** A session as telemetry reads it (the server's Session is one). */
export interface TracedSession {
  /** `websocket`, `http` or `stdio`. */
  readonly transport: string;
  readonly remoteAddress: string | undefined;
  readonly protocolVersion: string | undefined;
  /** The id of a session that initialize made; undefined for one that serves a single 2026-07-28 request. */
  readonly initializedId: string | undefined;
  readonly createdAt: Date;
}

type Meta = Record<string, unknown>;

/** Reads trace context from a request's `_meta`: only string values, whatever else a client put there. */
export const META_GETTER: { keys(carrier: Meta): string[]; get(carrier: Meta, key: string): string | undefined } = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const value = carrier[key];
    return typeof value === 'string' ? value : undefined;
  },
};

export const META_SETTER: { set(carrier: Meta, key: string, value: string): void } = {
  set: (carrier, key, value) => {
    carrier[key] = value;
  },
};

export class Instruments {
  readonly api: OtelApi;
  readonly tracer: OtelTracer;
  readonly operationDuration: OtelHistogram;
  readonly sessionDuration: OtelHistogram;
  readonly resourceUriInSpanName: boolean;

  constructor(options: TelemetryOptions) {
    const { api, tracerName = 'switchboard-mcp' } = options;
    this.api = api;
    this.tracer = options.tracer ?? api.trace.getTracer(tracerName);
    const meter = options.meter ?? api.metrics.getMeter(tracerName);
    const advice = { explicitBucketBoundaries: DURATION_BUCKETS };
    this.operationDuration = meter.createHistogram(METRIC.operationDuration, {
      unit: 's',
      description: 'MCP request duration as observed on the receiver from the time it was received until the result or error is sent',
      advice,
    });
    this.sessionDuration = meter.createHistogram(METRIC.sessionDuration, {
      unit: 's',
      description: 'The duration of the MCP session as observed on the MCP server',
      advice,
    });
    this.resourceUriInSpanName = options.resourceUriInSpanName === true;
  }
}

/** `network.transport` and `network.protocol.name` of a transport (gen-ai/mcp.md, "Recording MCP transport"). */
export function addTransport(attributes: OtelAttributes, transport: string): void {
  if (transport === 'stdio') {
    attributes[ATTR.networkTransport] = 'pipe';
  } else if (transport === 'http' || transport === 'websocket') {
    attributes[ATTR.networkTransport] = 'tcp';
    attributes[ATTR.networkProtocol] = transport;
  }
}
