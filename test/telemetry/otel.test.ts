import * as otel from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  AggregationTemporality,
  type HistogramMetricData,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { McpServer, type McpServerOptions, type McpSession, type TelemetryOptions } from '../../src/index.js';
import { HttpTestClient } from '../helpers/http-client.js';
import { modernCall } from '../helpers/modern.js';
import { nextEvent } from '../helpers/server-events.js';
import { type RunningServer, startWebSocket, startHttp, startStdio } from '../helpers/servers.js';
import { useCleanups } from '../helpers/cleanups.js';
import type { WsTestClient } from '../helpers/ws-client.js';
import { useWsSessions } from '../helpers/ws-sessions.js';

const cleanups = useCleanups();
const h = useWsSessions(cleanups);

const SERVER = otel.SpanKind.SERVER;
const CLIENT = otel.SpanKind.CLIENT;
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_ID = '00f067aa0ba902b7';
const TRACE_META = { traceparent: `00-${TRACE_ID}-${PARENT_ID}-01`, tracestate: 'rojo=00f067aa0ba902b7' };
const WS = { 'network.transport': 'tcp', 'network.protocol.name': 'websocket' };
const BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];

// What an application sets up once: async context and W3C propagation (the SDK's NodeTracerProvider.register() does both).
beforeAll(() => {
  otel.context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  otel.propagation.setGlobalPropagator(new W3CTraceContextPropagator());
});
afterAll(() => {
  otel.context.disable();
  otel.propagation.disable();
});

let spans: InMemorySpanExporter;
let tracerProvider: BasicTracerProvider;
let metricExporter: InMemoryMetricExporter;
let meterProvider: MeterProvider;
/** The option under test: the API, and a tracer and meter that record into memory. */
let telemetry: TelemetryOptions;

/** New in-memory providers, shut down (and any global registration undone) after the servers of the test close. */
function freshTelemetry(): void {
  spans = new InMemorySpanExporter();
  const traces = (tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }));
  metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const reader = new PeriodicExportingMetricReader({ exporter: metricExporter, exportIntervalMillis: 3_600_000 });
  const meters = (meterProvider = new MeterProvider({ readers: [reader] }));
  telemetry = { api: otel, tracer: traces.getTracer('test'), meter: meters.getMeter('test') };
  cleanups.push(async () => {
    otel.trace.disable();
    otel.metrics.disable();
    await traces.shutdown();
    await meters.shutdown();
  });
}

/** The one finished span named `name`. */
function span(name: string): ReadableSpan {
  const found = spans.getFinishedSpans().filter((s) => s.name === name);
  expect(found.map((s) => s.name)).toEqual([name]);
  return found[0];
}

/** The data points of histogram `name`, as attributes and count, in the order the SDK keeps them. */
async function histogram(name: string): Promise<{ attributes: otel.Attributes; count: number }[]> {
  await meterProvider.forceFlush();
  const metrics =
    metricExporter
      .getMetrics()
      .at(-1)
      ?.scopeMetrics.flatMap((scope) => scope.metrics) ?? [];
  const metric = metrics.find((m) => m.descriptor.name === name) as HistogramMetricData | undefined;
  if (!metric) return [];
  expect(metric.descriptor.unit).toBe('s');
  return metric.dataPoints.map((point) => {
    expect(point.value.buckets.boundaries).toEqual(BUCKETS);
    return { attributes: point.attributes, count: point.value.count };
  });
}

function withTools(server: McpServer): void {
  server.registerTool('echo', { inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }, (args) => `echo ${String(args.text)}`);
  server.registerTool('fails', {}, () => {
    throw new Error('disk full');
  });
  server.registerTool('traced', {}, async () => {
    // After an await, as application code makes its spans: the context crossed it.
    await new Promise((resolve) => setTimeout(resolve, 1));
    telemetry.tracer!.startSpan('tool work').end();
    return 'done';
  });
  server.registerTool('ask', {}, async (_args, ctx) => {
    const answer = await ctx.elicit(ASK);
    return `${answer.action}`;
  });
  server.registerTool('waits', {}, (_args, ctx) => new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve('late'))));
  server.registerPrompt('greet', {}, () => ({ messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }] }));
  server.registerResource('test://a', { name: 'a' }, () => 'A');
}

const ASK = { message: 'Who are you?', requestedSchema: { type: 'object' as const, properties: { name: { type: 'string' as const } } } };

async function wsServer(options: McpServerOptions = { telemetry }): Promise<RunningServer> {
  return startWebSocket(cleanups, withTools, { server: options });
}

async function openSession(running: RunningServer, capabilities = {}): Promise<{ client: WsTestClient; session: McpSession }> {
  const initialized = nextEvent<[McpSession]>(running.server, 'initialized');
  const client = await h.connectUrl(running.url);
  await client.initialize({ capabilities });
  const [session] = await initialized;
  return { client, session };
}

describe('SERVER spans', () => {
  it('a tools/call over WebSocket is a SERVER span named after its tool, with the request, session and transport as attributes', async () => {
    freshTelemetry();
    const running = await wsServer();
    const { client, session } = await openSession(running);
    const reply = await client.request('tools/call', { name: 'echo', arguments: { text: 'hi' } }, 7);
    expect(reply.result).toEqual({ content: [{ type: 'text', text: 'echo hi' }] });

    const call = span('tools/call echo');
    expect(call.kind).toBe(SERVER);
    expect(call.parentSpanContext).toBeUndefined();
    expect(call.status).toEqual({ code: otel.SpanStatusCode.UNSET });
    expect(call.attributes).toEqual({
      'mcp.method.name': 'tools/call',
      'jsonrpc.request.id': '7',
      'jsonrpc.protocol.version': '2.0',
      'mcp.protocol.version': '2025-11-25',
      'mcp.session.id': session.id,
      'gen_ai.tool.name': 'echo',
      'gen_ai.operation.name': 'execute_tool',
      'client.address': '127.0.0.1',
      ...WS,
    });
    // initialize makes the session and negotiates the version: the span gets both once it has run.
    expect(span('initialize').attributes).toEqual({
      'mcp.method.name': 'initialize',
      'jsonrpc.request.id': '1',
      'jsonrpc.protocol.version': '2.0',
      'mcp.protocol.version': '2025-11-25',
      'mcp.session.id': session.id,
      'client.address': '127.0.0.1',
      ...WS,
    });
  });

  it('takes its parent from the traceparent and tracestate in _meta, and is the parent of the spans the handler starts', async () => {
    freshTelemetry();
    const running = await wsServer();
    const { client } = await openSession(running);
    await client.request('tools/call', { name: 'traced', _meta: TRACE_META });

    const call = span('tools/call traced');
    expect(call.spanContext().traceId).toBe(TRACE_ID);
    expect(call.parentSpanContext).toMatchObject({ traceId: TRACE_ID, spanId: PARENT_ID, isRemote: true });
    expect(call.spanContext().traceState?.serialize()).toBe('rojo=00f067aa0ba902b7');
    const work = span('tool work');
    expect(work.spanContext().traceId).toBe(TRACE_ID);
    expect(work.parentSpanContext?.spanId).toBe(call.spanContext().spanId);
  });

  it('ignores trace context in _meta that is not a string, and starts a new trace', async () => {
    freshTelemetry();
    const running = await wsServer();
    const { client } = await openSession(running);
    await client.request('tools/call', { name: 'echo', arguments: {}, _meta: { traceparent: 42, tracestate: ['x'] } });
    expect(span('tools/call echo').parentSpanContext).toBeUndefined();
  });

  it('names a JSON-RPC error by its code in error.type and rpc.response.status_code, with status ERROR and the message', async () => {
    freshTelemetry();
    const running = await wsServer();
    const { client } = await openSession(running);
    const reply = await client.request('tools/call', { name: 'nope', arguments: {} });
    expect(reply.error).toEqual({ code: -32602, message: 'Unknown tool: nope' });

    // An unregistered tool's name is the client's to choose: it stays out of the span name and the attributes.
    const call = span('tools/call');
    expect(call.attributes).toMatchObject({ 'mcp.method.name': 'tools/call', 'error.type': '-32602', 'rpc.response.status_code': '-32602' });
    expect(call.attributes).not.toHaveProperty('gen_ai.tool.name');
    expect(call.status).toEqual({ code: otel.SpanStatusCode.ERROR, message: 'Unknown tool: nope' });
  });

  it('names a tool result with isError: true tool_error, with the error text as the status message', async () => {
    freshTelemetry();
    const running = await wsServer();
    const { client } = await openSession(running);
    const reply = await client.request('tools/call', { name: 'fails', arguments: {} });
    expect(reply.result).toMatchObject({ isError: true, content: [{ type: 'text', text: 'disk full' }] });

    const call = span('tools/call fails');
    expect(call.attributes['error.type']).toBe('tool_error');
    expect(call.attributes).not.toHaveProperty('rpc.response.status_code');
    expect(call.status).toEqual({ code: otel.SpanStatusCode.ERROR, message: 'disk full' });
  });

  it('calls a method the server does not serve _OTHER, so client-chosen names stay out of span names and metrics', async () => {
    freshTelemetry();
    const running = await wsServer();
    const { client } = await openSession(running);
    const reply = await client.request('made/up', { name: 'x' });
    expect(reply.error.code).toBe(-32601);

    const other = span('_OTHER');
    expect(other.attributes).toMatchObject({ 'mcp.method.name': '_OTHER', 'error.type': '-32601' });
    expect(other.attributes).not.toHaveProperty('gen_ai.tool.name');
  });

  it('ends a cancelled request with error.type cancelled', async () => {
    freshTelemetry();
    const running = await wsServer();
    const { client } = await openSession(running);
    client.sendRaw({ jsonrpc: '2.0', id: 'w', method: 'tools/call', params: { name: 'waits', arguments: {} } });
    await vi.waitFor(() => expect(running.server.stats.requestsInFlight).toBe(1));
    client.notify('notifications/cancelled', { requestId: 'w', reason: 'changed my mind' });

    await vi.waitFor(() => expect(spans.getFinishedSpans().map((s) => s.name)).toContain('tools/call waits'));
    const call = span('tools/call waits');
    expect(call.attributes['error.type']).toBe('cancelled');
    expect(call.status.code).toBe(otel.SpanStatusCode.ERROR);
  });

  it('names prompts/get after its prompt, and keeps a resource URI out of the span name unless asked', async () => {
    freshTelemetry();
    const running = await wsServer();
    const { client } = await openSession(running);
    await client.request('prompts/get', { name: 'greet' });
    await client.request('resources/read', { uri: 'test://a' });
    expect(span('prompts/get greet').attributes).toMatchObject({ 'mcp.method.name': 'prompts/get', 'gen_ai.prompt.name': 'greet' });
    expect(span('prompts/get greet').attributes).not.toHaveProperty('gen_ai.operation.name');
    expect(span('resources/read').attributes).toMatchObject({ 'mcp.method.name': 'resources/read', 'mcp.resource.uri': 'test://a' });

    freshTelemetry();
    const named = await wsServer({ telemetry: { ...telemetry, resourceUriInSpanName: true } });
    const other = await openSession(named);
    await other.client.request('resources/subscribe', { uri: 'test://a' });
    expect(span('resources/subscribe test://a').attributes).toMatchObject({ 'mcp.resource.uri': 'test://a' });
  });

  it('over Streamable HTTP: the Mcp-Session-Id of a legacy-era session, and none for a 2026-07-28 request, which has its version', async () => {
    freshTelemetry();
    const running = await startHttp(cleanups, withTools, { server: { telemetry } });
    const client = new HttpTestClient(running.url);
    await client.initialize();
    await client.call('tools/call', { name: 'echo', arguments: { text: 'a' } }, 5);
    expect(span('tools/call echo').attributes).toEqual({
      'mcp.method.name': 'tools/call',
      'jsonrpc.request.id': '5',
      'jsonrpc.protocol.version': '2.0',
      'mcp.protocol.version': '2025-11-25',
      'mcp.session.id': client.sessionId,
      'gen_ai.tool.name': 'echo',
      'gen_ai.operation.name': 'execute_tool',
      'client.address': '127.0.0.1',
      'network.transport': 'tcp',
      'network.protocol.name': 'http',
    });
    await client.delete();

    spans.reset();
    const reply = await modernCall(running.url, 'tools/call', { name: 'echo', arguments: { text: 'b' } }, { id: 9, meta: TRACE_META });
    expect(reply.result.content).toEqual([{ type: 'text', text: 'echo b' }]);
    const modern = span('tools/call echo');
    expect(modern.attributes).toEqual({
      'mcp.method.name': 'tools/call',
      'jsonrpc.request.id': '9',
      'jsonrpc.protocol.version': '2.0',
      'mcp.protocol.version': '2026-07-28',
      'gen_ai.tool.name': 'echo',
      'gen_ai.operation.name': 'execute_tool',
      'client.address': '127.0.0.1',
      'network.transport': 'tcp',
      'network.protocol.name': 'http',
    });
    expect(modern.parentSpanContext).toMatchObject({ traceId: TRACE_ID, spanId: PARENT_ID });
  });

  it('over stdio: network.transport pipe, and no network protocol; a span current on arrival is a link, not the parent', async () => {
    freshTelemetry();
    const { input, awaitLines } = startStdio(cleanups, undefined, { server: { telemetry } });
    const answered = awaitLines(1);
    // As an instrumented transport below MCP would have it: its own span current while the line arrives.
    const ambient = tracerProvider.getTracer('transport').startSpan('transport read');
    otel.context.with(otel.trace.setSpan(otel.context.active(), ambient), () => {
      input.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' })}\n`);
    });
    await answered;
    ambient.end();
    const ping = span('ping');
    expect(ping.attributes).toEqual({
      'mcp.method.name': 'ping',
      'jsonrpc.request.id': '1',
      'jsonrpc.protocol.version': '2.0',
      'network.transport': 'pipe',
    });
    expect(ping.parentSpanContext).toBeUndefined();
    expect(ping.links.map((link) => link.context.spanId)).toEqual([ambient.spanContext().spanId]);
  });
});

describe('requests to the client', () => {
  it('an elicitation a handler asks is a CLIENT span under its SERVER span, and its request carries that span as traceparent', async () => {
    freshTelemetry();
    const running = await wsServer();
    const { client, session } = await openSession(running, { elicitation: {} });
    const reply = client.request('tools/call', { name: 'ask', arguments: {}, _meta: TRACE_META });
    const asked = await client.nextMessage('elicitation/create');
    client.respond(asked.id, { action: 'accept', content: { name: 'Ada' } });
    expect((await reply).result).toEqual({ content: [{ type: 'text', text: 'accept' }] });

    const call = span('tools/call ask');
    const elicit = span('elicitation/create');
    expect(elicit.kind).toBe(CLIENT);
    expect(elicit.spanContext().traceId).toBe(TRACE_ID);
    expect(elicit.parentSpanContext?.spanId).toBe(call.spanContext().spanId);
    expect(elicit.status).toEqual({ code: otel.SpanStatusCode.UNSET });
    expect(elicit.attributes).toEqual({
      'mcp.method.name': 'elicitation/create',
      'jsonrpc.request.id': String(asked.id),
      'jsonrpc.protocol.version': '2.0',
      'mcp.protocol.version': '2025-11-25',
      'mcp.session.id': session.id,
      ...WS,
    });
    expect(asked.params._meta).toEqual({ traceparent: `00-${TRACE_ID}-${elicit.spanContext().spanId}-01`, tracestate: 'rojo=00f067aa0ba902b7' });
    expect(asked.params.message).toBe(ASK.message);
    // The handler's params object is the application's: the trace context went into a copy.
    expect(ASK).not.toHaveProperty('_meta');
  });

  it('names an error reply by its code, and a request that got no reply in time timeout', async () => {
    freshTelemetry();
    const running = await wsServer();
    const { client, session } = await openSession(running, { elicitation: {} });
    const failed = session.elicit(ASK).catch((err: unknown) => err);
    const asked = await client.nextMessage('elicitation/create');
    client.respondError(asked.id, -32603, 'no person here');
    await failed;
    expect(span('elicitation/create').attributes).toMatchObject({ 'error.type': '-32603', 'rpc.response.status_code': '-32603' });
    expect(span('elicitation/create').status).toEqual({ code: otel.SpanStatusCode.ERROR, message: 'no person here' });

    spans.reset();
    await session.ping({ timeoutMs: 20 }).catch(() => undefined);
    const ping = span('ping');
    expect(ping.kind).toBe(CLIENT);
    expect(ping.parentSpanContext).toBeUndefined();
    expect(ping.attributes['error.type']).toBe('timeout');
    expect(ping.attributes).not.toHaveProperty('rpc.response.status_code');
    expect(ping.status.code).toBe(otel.SpanStatusCode.ERROR);
  });
});

describe('metrics', () => {
  it('records mcp.server.operation.duration per request and mcp.server.session.duration when a session ends', async () => {
    freshTelemetry();
    const running = await wsServer();
    const { client } = await openSession(running);
    await client.request('tools/call', { name: 'echo', arguments: {} });
    await client.request('tools/call', { name: 'echo', arguments: {} });
    await client.request('tools/call', { name: 'nope', arguments: {} });
    await client.request('tools/call', { name: 'fails', arguments: {} });
    const version = { 'mcp.protocol.version': '2025-11-25', ...WS };
    const tool = (name: string) => ({ 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': name, 'gen_ai.operation.name': 'execute_tool', ...version });
    expect(await histogram('mcp.server.operation.duration')).toEqual([
      { attributes: { 'mcp.method.name': 'initialize', ...version }, count: 1 },
      { attributes: tool('echo'), count: 2 },
      {
        attributes: { 'mcp.method.name': 'tools/call', ...version, 'error.type': '-32602', 'rpc.response.status_code': '-32602' },
        count: 1,
      },
      { attributes: { ...tool('fails'), 'error.type': 'tool_error' }, count: 1 },
    ]);
    expect(await histogram('mcp.server.session.duration')).toEqual([]);

    const ended = nextEvent(running.server, 'sessionEnd');
    await client.close();
    await ended;
    expect(await histogram('mcp.server.session.duration')).toEqual([{ attributes: version, count: 1 }]);
  });
});

describe('a tracer that throws', () => {
  it('costs the spans, never an answer: ending a span that throws leaves the request answered and the server serving', async () => {
    const broken = () => {
      throw new Error('exporter on fire');
    };
    const span = {
      isRecording: () => true,
      setAttribute: () => span,
      setAttributes: () => span,
      setStatus: () => span,
      recordException: () => {},
      spanContext: () => otel.INVALID_SPAN_CONTEXT,
      end: broken,
    };
    const tracer = { startSpan: () => span, startActiveSpan: broken };
    const running = await wsServer({ telemetry: { api: otel, tracer: tracer as never } });
    const { client } = await openSession(running);
    expect((await client.request('tools/call', { name: 'echo', arguments: {} })).result).toBeDefined();
    expect((await client.request('ping', {})).result).toEqual({});
  });
});

describe('opting in', () => {
  it('without the option nothing is recorded or propagated, even with global providers registered', async () => {
    freshTelemetry();
    otel.trace.setGlobalTracerProvider(tracerProvider);
    otel.metrics.setGlobalMeterProvider(meterProvider);
    const running = await wsServer({});
    const { client } = await openSession(running, { elicitation: {} });
    await client.request('tools/call', { name: 'echo', arguments: {}, _meta: TRACE_META });
    const reply = client.request('tools/call', { name: 'ask', arguments: {}, _meta: TRACE_META });
    const asked = await client.nextMessage('elicitation/create');
    client.respond(asked.id, { action: 'decline' });
    await reply;

    expect(asked.params).not.toHaveProperty('_meta');
    expect(spans.getFinishedSpans()).toEqual([]);
    expect(await histogram('mcp.server.operation.duration')).toEqual([]);
  });

  it('with only { api }, spans and metrics go to the global providers', async () => {
    freshTelemetry();
    otel.trace.setGlobalTracerProvider(tracerProvider);
    otel.metrics.setGlobalMeterProvider(meterProvider);
    const running = await wsServer({ telemetry: { api: otel } });
    const { client } = await openSession(running);
    await client.request('tools/call', { name: 'echo', arguments: {} });
    expect(span('tools/call echo').instrumentationScope.name).toBe('switchboard-mcp');
    expect((await histogram('mcp.server.operation.duration')).length).toBe(2);
  });

  it('refuses a telemetry option that is not the API module, saying what to pass', () => {
    const info = { name: 's', version: '1' };
    expect(() => new McpServer(info, { telemetry: otel as never })).toThrow(
      "McpServer option telemetry.api must be the OpenTelemetry API module: import * as otel from '@opentelemetry/api', then { telemetry: { api: otel } }",
    );
    expect(() => new McpServer(info, { telemetry: { api: { trace: otel.trace } as never } })).toThrow(/telemetry\.api has no context\.active\(\)/);
    expect(() => new McpServer(info, { telemetry: { api: otel, tracer: {} as never } })).toThrow(/telemetry\.tracer must be an OpenTelemetry Tracer/);
    expect(() => new McpServer(info, { telemetry: { api: otel, tracerName: '' } })).toThrow(/tracerName must be a non-empty string/);
    expect(() => new McpServer(info, { telemetry: { api: otel, resourceUriInSpanName: 'yes' as never } })).toThrow(/must be a boolean/);
  });
});
