/**
 * Switchboard with telemetry recording: the SDK's tracer and meter, async context and W3C propagation,
 * every span sampled and handed to a processor that drops it (no export cost), the histograms aggregated.
 */
import * as otel from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { serveSwitchboard } from './switchboard-app.mjs';

otel.context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
otel.propagation.setGlobalPropagator(new W3CTraceContextPropagator());
const dropped = { onStart() {}, onEnd() {}, forceFlush: async () => {}, shutdown: async () => {} };
const tracer = new BasicTracerProvider({ spanProcessors: [dropped] }).getTracer('bench');
// A reader, so that every measurement is aggregated; it exports (to nowhere) once an hour.
const exporter = { export: (_metrics, done) => done({ code: 0 }), forceFlush: async () => {}, shutdown: async () => {} };
const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
const meter = new MeterProvider({ readers: [reader] }).getMeter('bench');
await serveSwitchboard({ telemetry: { api: otel, tracer, meter } });
