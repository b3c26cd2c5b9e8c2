export { McpServer } from './server/mcp-server.js';
export type { ServerInfo, ServerStats } from './server/mcp-server.js';
export type { McpServerOptions } from './server/options.js';
export { McpSession } from './server/session.js';
export type { SessionState, SessionRequestOptions, OutgoingRequest } from './server/session.js';
export { RequestContext } from './server/context.js';
export { RequestEvent } from './server/request-event.js';
export type { McpServerEvents, ToolRequestEvent, PromptRequestEvent, ResourceRequestEvent, CompletionRequestEvent } from './server/events.js';
export type { Registration } from './server/registry.js';
export type { ToolConfig, ToolHandler } from './server/tools.js';
export type { PromptConfig, PromptHandler } from './server/prompts.js';
export type { ResourceConfig, ResourceTemplateConfig, ResourceHandler, ResourceTemplateHandler, ReadOutput } from './server/resources.js';
export type { Completer } from './server/completions.js';
export type { SchemaViolation } from './server/schema-compiler.js';
export { UriTemplate } from './server/uri-template.js';
export type { TransportKind } from './server/channel.js';

export { WebSocketTransport } from './transports/websocket.js';
export type { WebSocketTransportOptions } from './transports/websocket.js';
export { StreamableHttpTransport } from './transports/http/streamable-http.js';
export type { StreamableHttpTransportOptions, HttpRequestControl } from './transports/http/streamable-http.js';
export { InMemoryEventStore } from './transports/http/event-store.js';
export type { EventStore, StoredEvent, InMemoryEventStoreOptions } from './transports/http/event-store.js';
export type { ResponseMode } from './transports/http/http-session.js';
export { StdioTransport } from './transports/stdio.js';
export type { StdioTransportOptions } from './transports/stdio.js';
export type { ListenOptions, ListeningAddress } from './transports/listen.js';
export type { AllowedOrigins } from './transports/origin.js';

export type { ClientRequestOptions, ClientResponse } from './server/client-requests.js';
export type { InputOptions } from './server/context.js';
export { InputRequired, inputRequired, InputRequiredSignal } from './mrtr/input-required.js';
export type { InputRequest, InputMethod } from './mrtr/input-required.js';
export type { RequestStateOptions } from './mrtr/request-state.js';
export type { CacheHint } from './server/options.js';
export type { ElicitationResponse, SamplingResponse, RootsResponse } from './server/events.js';
export {
  confirm,
  ConfirmationError,
  UserDeclinedError,
  UserCanceledError,
  ElicitationFailedError,
  UnexpectedElicitActionError,
} from './elicitation/confirm.js';

export {
  McpError,
  ErrorCode,
  RequestTimeoutError,
  RequestCancelledError,
  ConnectionClosedError,
  ClientCapabilityError,
  ElicitationNotSupportedError,
  SamplingNotSupportedError,
  RootsNotSupportedError,
  NoBackChannelError,
  ElicitationValidationError,
  UrlElicitationRequiredError,
  LegacyOnlyRequestError,
  UnsupportedProtocolVersionError,
  HeaderMismatchError,
  InvalidRequestStateError,
} from './protocol/errors.js';
export type { JsonRpcErrorObject, ElicitationViolation } from './protocol/errors.js';
export { LEGACY_PROTOCOL_VERSIONS, LATEST_LEGACY_PROTOCOL_VERSION, MODERN_PROTOCOL_VERSIONS, negotiateProtocolVersion } from './protocol/versions.js';
export { normalizeClientCapabilities } from './protocol/capabilities.js';
export type * from './protocol/types.js';
export type { JsonRpcMessage, JsonRpcRequest, JsonRpcNotification, JsonRpcResponse } from './protocol/jsonrpc.js';
