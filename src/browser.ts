/**
 * `switchboard-mcp/browser`: the client alone, for a browser (or any runtime with fetch and WebSocket).
 * Nothing here reaches a Node-only module: HTTP goes through fetch, WebSocket through the platform's own.
 */
export { McpClient } from './client/mcp-client.js';
export { escapeControls } from './client/escape-controls.js';
export { describeFields } from './client/form-fields.js';
export type { FormField } from './client/form-fields.js';
export type {
  ConnectOptions,
  ListToolsResult,
  ListPromptsResult,
  ListResourcesResult,
  ListResourceTemplatesResult,
  CallToolRest,
  ToolCallResult,
} from './client/mcp-client.js';
export type { ToolMap, ToolTypes, UntypedTools } from './schema/tool-map.js';
export type { McpClientOptions, ClientEra } from './client/options.js';
export type { Era } from './protocol/versions.js';
export type {
  CallOptions,
  HandlerContext,
  ElicitationHandler,
  SamplingHandler,
  RootsHandler,
  LogMessage,
  McpClientEvents,
  ListenNotifications,
  SubscriptionOptions,
  Subscription,
} from './client/api.js';
export type { ClientTransport, ClientSink, SendContext, ModernHeaders } from './client/transport.js';
export { StreamableHttpClientTransport } from './client/transports/streamable-http.js';
export type { StreamableHttpClientTransportOptions } from './client/transports/streamable-http.js';
export type { FetchLike } from './client/transports/http-client.js';
export { BrowserWebSocketClientTransport } from './client/transports/browser-websocket.js';
export type { BrowserWebSocketClientTransportOptions } from './client/transports/browser-websocket.js';
export {
  McpError,
  ErrorCode,
  RequestTimeoutError,
  RequestCancelledError,
  ConnectionClosedError,
  ElicitationValidationError,
  UnsupportedProtocolVersionError,
} from './protocol/errors.js';
export type { JsonRpcErrorObject, ElicitationViolation } from './protocol/errors.js';
export type * from './protocol/types.js';
export type { JsonRpcMessage, JsonRpcRequest, JsonRpcNotification, JsonRpcResponse } from './protocol/jsonrpc.js';
