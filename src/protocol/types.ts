/** MCP wire types (2025-11-25 shapes; older revisions are subsets). */

export type RequestId = string | number;
export type ProgressToken = string | number;
export type Meta = Record<string, unknown>;

export interface Icon {
  src: string;
  mimeType?: string;
  sizes?: string[];
  theme?: 'light' | 'dark';
}

export interface Implementation {
  name: string;
  version: string;
  title?: string;
  description?: string;
  websiteUrl?: string;
  icons?: Icon[];
}

export interface ClientCapabilities {
  experimental?: Record<string, object>;
  roots?: { listChanged?: boolean };
  sampling?: { context?: object; tools?: object };
  elicitation?: { form?: object; url?: object };
  tasks?: Record<string, unknown>;
  /** The extensions the client supports, by id, with their settings. */
  extensions?: Record<string, Record<string, unknown>>;
  [key: string]: unknown;
}

export interface ServerCapabilities {
  experimental?: Record<string, object>;
  logging?: object;
  completions?: object;
  prompts?: { listChanged?: boolean };
  resources?: { subscribe?: boolean; listChanged?: boolean };
  tools?: { listChanged?: boolean };
  /** The extensions the server serves, by id, with their settings. */
  extensions?: Record<string, Record<string, unknown>>;
  [key: string]: unknown;
}

export interface InitializeParams {
  protocolVersion: string;
  capabilities: ClientCapabilities;
  clientInfo: Implementation;
  _meta?: Meta;
}

export interface InitializeResult {
  protocolVersion: string;
  capabilities: ServerCapabilities;
  serverInfo: Implementation;
  instructions?: string;
  _meta?: Meta;
  [key: string]: unknown;
}

export type Role = 'user' | 'assistant';

export interface Annotations {
  audience?: Role[];
  priority?: number;
  lastModified?: string;
}

export interface TextResourceContents {
  uri: string;
  mimeType?: string;
  text: string;
  _meta?: Meta;
}
export interface BlobResourceContents {
  uri: string;
  mimeType?: string;
  blob: string;
  _meta?: Meta;
}
export type ResourceContents = TextResourceContents | BlobResourceContents;

export type ContentBlock =
  | { type: 'text'; text: string; annotations?: Annotations; _meta?: Meta }
  | { type: 'image'; data: string; mimeType: string; annotations?: Annotations; _meta?: Meta }
  | { type: 'audio'; data: string; mimeType: string; annotations?: Annotations; _meta?: Meta }
  | ({ type: 'resource_link' } & Resource)
  | { type: 'resource'; resource: ResourceContents; annotations?: Annotations; _meta?: Meta };

export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export type JsonSchemaObject = { type: 'object'; properties?: Readonly<Record<string, object>>; required?: readonly string[]; [key: string]: unknown };

export interface Tool {
  name: string;
  title?: string;
  description?: string;
  icons?: Icon[];
  inputSchema: JsonSchemaObject;
  outputSchema?: JsonSchemaObject;
  annotations?: ToolAnnotations;
  /** How the tool runs: `taskSupport` says whether a call may (`optional`) or must (`required`) become a task. */
  execution?: ToolExecution;
  _meta?: Meta;
}

export interface ToolExecution {
  /** Default `forbidden`: the tool never runs as a task. */
  taskSupport?: 'forbidden' | 'optional' | 'required';
}

export interface CallToolResult {
  content: ContentBlock[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta?: Meta;
  [key: string]: unknown;
}

export interface PromptArgument {
  name: string;
  title?: string;
  description?: string;
  required?: boolean;
}

export interface Prompt {
  name: string;
  title?: string;
  description?: string;
  arguments?: PromptArgument[];
  icons?: Icon[];
  _meta?: Meta;
}

export interface PromptMessage {
  role: Role;
  content: ContentBlock;
}

export interface GetPromptResult {
  description?: string;
  messages: PromptMessage[];
  _meta?: Meta;
  [key: string]: unknown;
}

export interface Resource {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  annotations?: Annotations;
  icons?: Icon[];
  _meta?: Meta;
}

export interface ResourceTemplate {
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  annotations?: Annotations;
  icons?: Icon[];
  _meta?: Meta;
}

export interface ReadResourceResult {
  contents: ResourceContents[];
  _meta?: Meta;
  [key: string]: unknown;
}

export type CompletionReference = { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string };

export interface CompleteParams {
  ref: CompletionReference;
  argument: { name: string; value: string };
  context?: { arguments?: Record<string, string> };
}

export interface CompleteResult {
  completion: { values: string[]; total?: number; hasMore?: boolean };
  [key: string]: unknown;
}

export const LOGGING_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const;
export type LoggingLevel = (typeof LOGGING_LEVELS)[number];

export interface ProgressParams {
  progressToken: ProgressToken;
  progress: number;
  total?: number;
  message?: string;
}

export interface CancelledParams {
  requestId?: RequestId;
  reason?: string;
}

export type ElicitAction = 'accept' | 'decline' | 'cancel';
export type ElicitValue = string | number | boolean | string[];

/** A form-mode property: the restricted JSON Schema subset of client/elicitation.mdx. */
export type PrimitiveSchemaDefinition = Record<string, unknown> & { type: 'string' | 'number' | 'integer' | 'boolean' | 'array' };

export interface ElicitRequestedSchema {
  $schema?: string;
  type: 'object';
  properties: Readonly<Record<string, PrimitiveSchemaDefinition>>;
  required?: readonly string[];
}

/** A form-mode elicitation. On the wire `requestedSchema` is JSON Schema; a server's `elicit` also takes a Standard Schema there. */
export interface ElicitFormParams<Schema extends object = ElicitRequestedSchema> {
  mode?: 'form';
  message: string;
  requestedSchema: Schema;
  _meta?: Meta;
}

export interface ElicitUrlParams {
  mode: 'url';
  message: string;
  url: string;
  /** Generated when omitted. */
  elicitationId?: string;
  _meta?: Meta;
}

export type ElicitParams<Schema extends object = ElicitRequestedSchema> = ElicitFormParams<Schema> | ElicitUrlParams;

/** A client's answer to `elicitation/create`, as the wire carries it. */
export interface ElicitResult {
  action: ElicitAction;
  /** Present on accept in form mode, validated against requestedSchema. */
  content?: Record<string, ElicitValue>;
}

export interface SamplingMessage {
  role: Role;
  content: Record<string, unknown> | Record<string, unknown>[];
}

export interface CreateMessageParams {
  messages: SamplingMessage[];
  maxTokens: number;
  modelPreferences?: Record<string, unknown>;
  systemPrompt?: string;
  includeContext?: 'none' | 'thisServer' | 'allServers';
  temperature?: number;
  stopSequences?: string[];
  metadata?: Record<string, unknown>;
  tools?: Record<string, unknown>[];
  toolChoice?: { mode?: 'auto' | 'required' | 'none' };
  _meta?: Meta;
}

export interface CreateMessageResult {
  role: Role;
  content: Record<string, unknown> | Record<string, unknown>[];
  model: string;
  stopReason?: string;
  [key: string]: unknown;
}

export interface Root {
  uri: string;
  name?: string;
  _meta?: Meta;
}

export interface ListRootsResult {
  roots: Root[];
  [key: string]: unknown;
}
