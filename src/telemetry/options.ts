/** `McpServerOptions.telemetry`, checked once at construction with a message that says what to pass. */
import { isObject } from '../protocol/jsonrpc.js';

const API_HINT = "import * as otel from '@opentelemetry/api', then { telemetry: { api: otel } }";

/** The functions `telemetry.api` must have, by namespace; `metrics` only when no `meter` is given. */
const NEEDED: Readonly<Record<string, readonly string[]>> = {
  trace: ['getTracer', 'getSpan', 'setSpan', 'deleteSpan', 'isSpanContextValid'],
  context: ['active', 'with'],
  propagation: ['extract', 'inject'],
  metrics: ['getMeter'],
};

export function checkTelemetryOptions(telemetry: unknown): void {
  if (telemetry === undefined) return;
  if (!isObject(telemetry)) throw new TypeError(`McpServer option telemetry must be an object: ${API_HINT}`);
  const { api, tracer, meter, tracerName, resourceUriInSpanName } = telemetry;
  if (!isObject(api)) throw new TypeError(`McpServer option telemetry.api must be the OpenTelemetry API module: ${API_HINT}`);
  for (const [namespace, functions] of Object.entries(NEEDED)) {
    if (namespace === 'metrics' && meter !== undefined) continue;
    const holder = api[namespace];
    const missing = functions.find((name) => !isObject(holder) || typeof holder[name] !== 'function');
    if (missing !== undefined) {
      throw new TypeError(`McpServer option telemetry.api has no ${namespace}.${missing}(): pass the OpenTelemetry API module itself (${API_HINT})`);
    }
  }
  if (tracer !== undefined && (!isObject(tracer) || typeof tracer.startSpan !== 'function')) {
    throw new TypeError('McpServer option telemetry.tracer must be an OpenTelemetry Tracer (with startSpan), e.g. provider.getTracer("my-server")');
  }
  if (meter !== undefined && (!isObject(meter) || typeof meter.createHistogram !== 'function')) {
    throw new TypeError('McpServer option telemetry.meter must be an OpenTelemetry Meter (with createHistogram), e.g. provider.getMeter("my-server")');
  }
  if (tracerName !== undefined && (typeof tracerName !== 'string' || tracerName === '')) {
    throw new TypeError(`McpServer option telemetry.tracerName must be a non-empty string; got ${JSON.stringify(tracerName)}`);
  }
  if (resourceUriInSpanName !== undefined && typeof resourceUriInSpanName !== 'boolean') {
    throw new TypeError(`McpServer option telemetry.resourceUriInSpanName must be a boolean; got ${JSON.stringify(resourceUriInSpanName)}`);
  }
}
