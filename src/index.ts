export { McpServer } from './server/mcp-server.js';
export type { ServerInfo } from './server/mcp-server.js';
export type { ServerStats } from './server/stats.js';
export type { McpServerOptions, ResolvedServerOptions, CacheHint } from './server/options.js';
export type {
  TelemetryOptions,
  OtelApi,
  OtelTracer,
  OtelSpan,
  OtelSpanOptions,
  OtelSpanContext,
  OtelContext,
  OtelMeter,
  OtelHistogram,
  OtelAttributes,
} from './telemetry/otel-api.js';
export type {
  McpSession,
  SessionState,
  SessionRequestOptions,
  OutgoingRequest,
  RequestContext,
  RequestEvent,
  InputOptions,
} from './server/api.js';
export type {
  McpServerEvents,
  ToolRequestEvent,
  PromptRequestEvent,
  ResourceRequestEvent,
  CompletionRequestEvent,
  ElicitationResponse,
  SamplingResponse,
  RootsResponse,
} from './server/events.js';
export type { Registration } from './server/registry.js';
export type {
  ToolConfig,
  ToolHandler,
  ToolHandlerFor,
  ToolReturn,
  StructuredToolResult,
  ToolSchema,
  ToolRegistration,
  ToolsOf,
} from './server/tools.js';
export type { PromptArguments, PromptArgsOf, PromptConfig, PromptHandler, PromptHandlerFor } from './server/prompts.js';
export type { ElicitFormResult, ElicitResultFor, ElicitUrlResult, FormContent, FormSchema } from './elicitation/form-schema.js';
export type { ResourceConfig, ResourceTemplateConfig, ResourceHandler, ResourceTemplateHandler, ReadOutput } from './server/resources.js';
export type { Completer } from './server/completions.js';
export type { SchemaViolation } from './schema/compiler.js';
export type { StandardSchemaV1, StandardJSONSchemaV1, StandardSchemaWithJSON } from './schema/standard.js';
export type { InferSchema, InferSchemaInput, FromJsonSchema } from './schema/infer.js';
export type { TransportKind } from './server/port.js';
export type { ServedEras } from './protocol/versions.js';

export type { SharedState, SharedEvent } from './server/shared-state.js';
export { Skills, useSkills, SKILLS_EXTENSION } from './extensions/skills.js';
export type { SkillDefinition, SkillEntry, SkillsOptions } from './extensions/skills.js';
export { Tasks, useTasks } from './extensions/tasks/tasks.js';
export type { TasksOptions, TasksEvents, TaskToolConfig, TaskToolHandler } from './extensions/tasks/tasks.js';
export type { ExtensionToolConfig } from './server/tools.js';
export { MemoryTaskStore } from './extensions/tasks/store.js';
export type { TaskStore, StoredTask, SaveCondition, MemoryTaskStoreOptions } from './extensions/tasks/store.js';
export { TASKS_EXTENSION } from './protocol/tasks.js';
export type { Task, DetailedTask, TaskStatus } from './protocol/tasks.js';
export type {
  ServerExtension,
  ExtensionMethod,
  ExtensionRequest,
  ExtensionHandle,
  ToolCall,
  DetachOptions,
  ClientQuestion,
  ListenFilter,
} from './server/extension-api.js';
export { bearer } from './auth/bearer.js';
export type { BearerOptions, IntrospectionOptions, TokenPrincipal, TokenClaims } from './auth/bearer.js';
export type { JwksOptions } from './auth/issuer-keys.js';
export { UrlElicitationBinder, ElicitationBindingError } from './auth/url-elicitation.js';
export type { UrlElicitationBinderOptions, IssuedElicitation } from './auth/url-elicitation.js';
export { AuthError } from './transports/auth.js';
export type { AuthHook, AuthOption, HttpAuthenticator, Challenge } from './transports/auth.js';
export { RedisScale, connectRedisScale } from './scale/redis.js';
export type { RedisScaleOptions } from './scale/redis.js';
export type { RedisTaskStore, RedisTaskStoreOptions } from './scale/redis-task-store.js';
export type { RedisEventStore, RedisEventStoreOptions } from './scale/redis-event-store.js';

// The client as `switchboard-mcp/browser` has it, with what both ends share (errors, wire types); then its Node-only transports.
export * from './browser.js';
export { WebSocketClientTransport } from './client/transports/websocket.js';
export type { WebSocketClientTransportOptions } from './client/transports/websocket.js';
export { StdioClientTransport } from './client/transports/stdio.js';
export type { StdioClientTransportOptions } from './client/transports/stdio.js';

export { WebSocketTransport } from './transports/websocket/websocket.js';
export type { WebSocketTransportOptions } from './transports/websocket/websocket.js';
export { StreamableHttpTransport } from './transports/http/streamable-http.js';
export type { StreamableHttpTransportOptions, StreamableHttpTransportEvents, HttpRequestControl } from './transports/http/streamable-http.js';
export type { ReplyStatus } from './transports/http/options.js';
export type { SessionRouter } from './transports/http/session-router.js';
export type { KeptSession } from './transports/http/session-records.js';
export { InMemoryEventStore } from './transports/http/event-store.js';
export type { EventStore, StoredEvent, InMemoryEventStoreOptions } from './transports/http/event-store.js';
export type { ResponseMode } from './transports/http/http-session.js';
export { StdioTransport } from './transports/stdio/stdio.js';
export type { StdioTransportOptions } from './transports/stdio/stdio.js';
export type { ListenOptions, ListeningAddress } from './transports/listen.js';
export type { AllowedOrigins } from './transports/origin.js';

export type { ClientRequestOptions } from './elicitation/kind.js';
export { InputRequired, inputRequired, InputRequiredSignal } from './mrtr/input-required.js';
export type { InputRequest, InputMethod } from './mrtr/input-required.js';
export type { RequestStateOptions } from './mrtr/request-state.js';
export {
  confirm,
  ConfirmationError,
  UserDeclinedError,
  UserCancelledError,
  ElicitationFailedError,
} from './elicitation/confirm.js';
export type { Asker } from './elicitation/confirm.js';

// The errors besides the browser entry's.
export {
  ClientCapabilityError,
  ElicitationNotSupportedError,
  SamplingNotSupportedError,
  RootsNotSupportedError,
  NoBackChannelError,
  UnexpectedElicitActionError,
  UrlElicitationRequiredError,
  LegacyOnlyRequestError,
  HeaderMismatchError,
  InvalidRequestStateError,
} from './protocol/errors.js';
export { LEGACY_PROTOCOL_VERSIONS, LATEST_LEGACY_PROTOCOL_VERSION, MODERN_PROTOCOL_VERSIONS } from './protocol/versions.js';
