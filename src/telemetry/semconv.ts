/** Names from the OpenTelemetry semantic conventions for MCP (gen-ai/mcp.md, Development status). */

export const ATTR = {
  methodName: 'mcp.method.name',
  protocolVersion: 'mcp.protocol.version',
  sessionId: 'mcp.session.id',
  resourceUri: 'mcp.resource.uri',
  requestId: 'jsonrpc.request.id',
  jsonrpcVersion: 'jsonrpc.protocol.version',
  toolName: 'gen_ai.tool.name',
  promptName: 'gen_ai.prompt.name',
  operationName: 'gen_ai.operation.name',
  errorType: 'error.type',
  statusCode: 'rpc.response.status_code',
  networkTransport: 'network.transport',
  networkProtocol: 'network.protocol.name',
  clientAddress: 'client.address',
} as const;

export const METRIC = {
  operationDuration: 'mcp.server.operation.duration',
  sessionDuration: 'mcp.server.session.duration',
} as const;

/** The conventions' advice for both histograms, in seconds. */
export const DURATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];

/** `SpanKind` and `SpanStatusCode` of @opentelemetry/api 1.x: fixed by the API specification. */
export const SPAN_KIND_SERVER = 1;
export const SPAN_KIND_CLIENT = 2;
export const STATUS_ERROR = 2;

/** `mcp.method.name` of a method the server does not serve: client-chosen names stay out of span names and metrics. */
export const OTHER_METHOD = '_OTHER';

/** `error.type` for a tools/call answered with an `isError` result. */
export const TOOL_ERROR = 'tool_error';
/** `error.type` for a request that ended without its answer (cancelled, or its session ended). */
export const CANCELLED = 'cancelled';
