import * as otel from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, ConsoleSpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { McpServer, WebSocketTransport } from 'switchboard-mcp';

// Once per process (NodeSDK does all three): context that follows awaits, W3C propagation, and an exporter.
otel.context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
otel.propagation.setGlobalPropagator(new W3CTraceContextPropagator());
otel.trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new ConsoleSpanExporter())] }));

const server = new McpServer({ name: 'weather', version: '1.0.0' }, { telemetry: { api: otel } });
const tracer = otel.trace.getTracer('weather');

server.registerTool('get_weather', { inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }, async ({ city }) => {
  // A child of the server's `tools/call get_weather` span, whose parent is the client's traceparent.
  const lookup = tracer.startSpan('forecast lookup', { attributes: { city: String(city) } });
  lookup.end();
  return `It is sunny in ${city}.`;
});

const { url } = await new WebSocketTransport(server).listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 3000) });
console.log(`listening on ${url}`);
