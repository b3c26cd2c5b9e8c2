/**
 * The parts of `@opentelemetry/api` the server uses, as shapes. The package is an optional peer: the
 * application passes its module in (`{ telemetry: { api: otel } }`) and nothing here imports it, so the
 * server loads, and these types check, without it.
 */

/** An OpenTelemetry context: immutable, opaque to us. */
export interface OtelContext {
  getValue(key: symbol): unknown;
}

export type OtelAttributes = Record<string, string | number | boolean | undefined>;

export interface OtelSpanContext {
  traceId: string;
  spanId: string;
  traceFlags: number;
}

export interface OtelSpan {
  spanContext(): OtelSpanContext;
  /** False for a span that was not sampled (or with no SDK): its attributes would be thrown away. */
  isRecording(): boolean;
  setAttribute(key: string, value: string | number | boolean): unknown;
  setAttributes(attributes: OtelAttributes): unknown;
  /** `code` is `SpanStatusCode` (2 is ERROR). */
  setStatus(status: { code: number; message?: string }): unknown;
  end(): void;
}

export interface OtelSpanOptions {
  /** `SpanKind` (1 is SERVER, 2 is CLIENT). */
  kind?: number;
  links?: { context: OtelSpanContext }[];
}

export interface OtelTracer {
  startSpan(name: string, options?: OtelSpanOptions, context?: OtelContext): OtelSpan;
}

export interface OtelHistogram {
  record(value: number, attributes?: OtelAttributes): void;
}

export interface OtelMeter {
  createHistogram(name: string, options?: { description?: string; unit?: string; advice?: { explicitBucketBoundaries?: number[] } }): OtelHistogram;
}

/** `@opentelemetry/api` as `import * as otel from '@opentelemetry/api'` (or its default export) gives it. */
export interface OtelApi {
  trace: {
    getTracer(name: string, version?: string): OtelTracer;
    getSpan(context: OtelContext): OtelSpan | undefined;
    setSpan(context: OtelContext, span: OtelSpan): OtelContext;
    deleteSpan(context: OtelContext): OtelContext;
    isSpanContextValid(spanContext: OtelSpanContext): boolean;
  };
  context: {
    active(): OtelContext;
    with<A extends unknown[], R>(context: OtelContext, fn: (...args: A) => R, thisArg?: unknown, ...args: A): R;
  };
  propagation: {
    extract<Carrier>(
      context: OtelContext,
      carrier: Carrier,
      getter?: { keys(carrier: Carrier): string[]; get(carrier: Carrier, key: string): string | string[] | undefined },
    ): OtelContext;
    inject<Carrier>(context: OtelContext, carrier: Carrier, setter?: { set(carrier: Carrier, key: string, value: string): void }): void;
  };
  metrics: {
    getMeter(name: string, version?: string): OtelMeter;
  };
}

/** `McpServerOptions.telemetry`: OpenTelemetry spans and metrics after the MCP semantic conventions. */
export interface TelemetryOptions {
  /** The OpenTelemetry API: `import * as otel from '@opentelemetry/api'`, then `{ api: otel }`. */
  api: OtelApi;
  /** Spans go to this tracer. Default: `api.trace.getTracer(tracerName)`, the global provider's. */
  tracer?: OtelTracer;
  /** The histograms are made on this meter. Default: `api.metrics.getMeter(tracerName)`. */
  meter?: OtelMeter;
  /** The instrumentation scope of the default tracer and meter. Default `switchboard-mcp`. */
  tracerName?: string;
  /**
   * Name `resources/read`, `resources/subscribe` and `resources/unsubscribe` spans after their URI too
   * (`resources/read file:///a.txt`). Default false: the conventions keep URIs out of span names, whose
   * cardinality they would raise without bound; the URI is always the span's `mcp.resource.uri`.
   */
  resourceUriInSpanName?: boolean;
}
