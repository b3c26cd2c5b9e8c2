/**
 * The client side of `elicitation/create` (client/elicitation.mdx, 2025-11-25), asked as a pushed request
 * in the legacy era or as an input request of an input-required result in the modern era (MRTR). Both eras
 * get the same answer: the core sends it as the JSON-RPC reply, or puts its result in `inputResponses`.
 */
import { ElicitationValidationError, type ElicitationViolation, ErrorCode, type JsonRpcErrorObject, McpError } from '../protocol/errors.js';
import { isSafeElicitationUrl } from '../protocol/elicitation-url.js';
import { isObject } from '../protocol/jsonrpc.js';
import { quote, tryJson } from '../protocol/quote.js';
import type { ElicitParams, ElicitResult, ElicitValue } from '../protocol/types.js';
import { type SchemaViolation, SchemaCompiler, type Validator } from '../schema/compiler.js';
import { describeFields } from './form-fields.js';
import type { Era } from '../protocol/versions.js';

/** What an elicitation handler learns about the request besides its params. */
export interface ElicitationContext {
  /**
   * Aborted when the answer is no longer wanted: the server cancelled the request, or the call it belongs
   * to ended. The handler should close its form; whatever it returns afterwards is not sent.
   */
  signal: AbortSignal;
  /** `legacy`: a pushed `elicitation/create` (2025-11-25 and earlier); `modern`: an input request (2026-07-28). */
  era: Era;
  /** The input request's key in `inputRequests`, under which the answer goes back in `inputResponses` (2026-07-28). */
  inputKey?: string;
  /** The JSON-RPC id of the pushed `elicitation/create` (legacy). */
  requestId?: string | number;
}

/**
 * Asks the user and returns their choice. Params arrive checked: `mode` is absent or `'form'` with a
 * `requestedSchema` object, or `'url'` with an `https:` url (`http:` only on loopback), and always a
 * declared mode. Return `decline` or `cancel` to refuse; a throw answers the server `Internal error` and
 * is reported locally.
 */
export type ElicitationHandler<C extends ElicitationContext = ElicitationContext> = (params: ElicitParams, ctx: C) => ElicitResult | Promise<ElicitResult>;

/** How this client answers elicitations, as configured on `McpClient`. */
export interface ElicitationPolicy<C extends ElicitationContext = ElicitationContext> {
  /** The application's handler; without one every elicitation is answered -32601. */
  handler: ElicitationHandler<C> | undefined;
  /** The modes this client declared in `capabilities.elicitation` (`{}` declares form only). */
  declared: { form: boolean; url: boolean };
  /** Validate an accepted form against `requestedSchema` (after defaults) before it is sent. */
  validate: boolean;
}

/**
 * Either the result to send, or the JSON-RPC error to answer with. `cause` is set when the error is the
 * handler's fault (it threw, returned no valid answer, or accepted content that does not fit the form):
 * the wire says little, so the core reports `cause` on its `error` event.
 */
export type ElicitationAnswer = { ok: true; result: ElicitResult } | { ok: false; error: JsonRpcErrorObject; cause?: Error };

/** Schemas (by JSON) that ajv refused; bounded, since each comes from a server. */
const UNCOMPILABLE_LIMIT = 1000;

/** Answers a server's elicitations for one client; schemas are compiled once per content and kept. */
export class ClientElicitation {
  private readonly uncompilable = new Set<string>();

  /** `compiler` may be shared with a server in the same process: validators are cached by schema JSON. */
  constructor(private readonly compiler: SchemaCompiler = new SchemaCompiler()) {}

  /** Check the server's params, ask the handler, and turn its answer into what the server gets. Never throws. */
  async answer<C extends ElicitationContext>(params: unknown, policy: ElicitationPolicy<C>, ctx: C): Promise<ElicitationAnswer> {
    if (!policy.handler) return refuse(ErrorCode.MethodNotFound, 'Method not found: this client has no elicitation handler');
    const problem = paramsProblem(params, policy.declared);
    if (problem) return refuse(ErrorCode.InvalidParams, problem);
    const request = params as ElicitParams;

    let returned: unknown;
    try {
      returned = await policy.handler(request, ctx);
    } catch (thrown) {
      // An McpError is the handler's chosen answer, as with sampling and roots.
      if (thrown instanceof McpError) return { ok: false, error: thrown.toJSON() };
      // Any other thrown text may hold anything local (paths, other servers' replies): the server learns only that it failed.
      const cause = thrown instanceof Error ? thrown : new Error(`The elicitation handler threw ${quote(thrown)}`, { cause: thrown });
      return { ok: false, error: { code: ErrorCode.InternalError, message: 'Internal error' }, cause };
    }

    const action = isObject(returned) ? returned.action : undefined;
    if (action !== 'accept' && action !== 'decline' && action !== 'cancel') {
      const what = isObject(returned) ? `action ${quote(action)}` : quote(returned);
      return handlerFault(`The elicitation handler returned ${what}; expected {action: "accept" | "decline" | "cancel"}`);
    }
    // Content belongs to a form-mode accept only (client/elicitation.mdx, ElicitResult); elsewhere it is dropped.
    if (action !== 'accept' || request.mode === 'url') return { ok: true, result: { action } };
    const given = (returned as { content?: unknown }).content;
    if (given !== undefined && !isObject(given)) {
      return handlerFault(`The elicitation handler accepted with content ${quote(given)}; content must be an object of the form's fields`);
    }

    const content = applyDefaults(request.requestedSchema, given);
    const validate = policy.validate ? this.validatorFor(request.requestedSchema) : undefined;
    const violations = validate?.(content);
    if (violations) {
      const error = new ElicitationValidationError(violations.map(toElicitationViolation));
      return { ok: false, error: error.toJSON(), cause: error };
    }
    return { ok: true, result: { action, content: content as Record<string, ElicitValue> } };
  }

  /** The validator of a schema, or undefined when it cannot have one: then the content goes unvalidated. */
  private validatorFor(schema: object): Validator | undefined {
    const key = tryJson(schema);
    // A `$id` would register the server's schema by name in a compiler a local server may share, and clash with its own.
    if (key === undefined || key.includes('"$id"') || this.uncompilable.has(key)) return undefined;
    try {
      return this.compiler.compile(schema, key);
    } catch {
      // Not JSON Schema ajv knows: remembered, since every retry would cost a full compile.
      if (this.uncompilable.size >= UNCOMPILABLE_LIMIT) this.uncompilable.clear();
      this.uncompilable.add(key);
      return undefined;
    }
  }
}

function refuse(code: number, message: string): ElicitationAnswer {
  return { ok: false, error: { code, message } };
}

function handlerFault(detail: string): ElicitationAnswer {
  return {
    ok: false,
    error: { code: ErrorCode.InternalError, message: 'Internal error: the elicitation handler returned an invalid answer' },
    cause: new TypeError(detail),
  };
}

/** What is wrong with a server's `elicitation/create` params, or undefined when they can go to the handler. */
function paramsProblem(params: unknown, declared: ElicitationPolicy['declared']): string | undefined {
  if (!isObject(params))
    return `Invalid params: elicitation/create needs an object, {message, requestedSchema} or {mode: "url", message, url}; got ${quote(params)}`;
  // A missing mode means form (client/elicitation.mdx).
  const mode = params.mode ?? 'form';
  if (mode !== 'form' && mode !== 'url') return `Invalid params: elicitation mode must be "form" or "url"; got ${quote(mode)}`;
  // client/elicitation.mdx: servers MUST NOT send a mode the client did not declare.
  if (!declared[mode]) return `Invalid params: this client did not declare ${mode}-mode elicitation (capabilities.elicitation.${mode})`;
  if (typeof params.message !== 'string') return `Invalid params: elicitation/create needs message, the text shown to the user; got ${quote(params.message)}`;
  if (mode === 'form') {
    return isObject(params.requestedSchema)
      ? undefined
      : `Invalid params: form-mode elicitation/create needs requestedSchema, a JSON Schema object; got ${quote(params.requestedSchema)}`;
  }
  if (params.elicitationId !== undefined && typeof params.elicitationId !== 'string') {
    return `Invalid params: elicitationId must be a string; got ${quote(params.elicitationId)}`;
  }
  return urlProblem(params.url);
}

/**
 * `url` MUST be a valid URL (client/elicitation.mdx); a scheme other than http(s) would run or read something
 * where it opens, and plain http to another host is refused as the server refuses to send it.
 */
function urlProblem(url: unknown): string | undefined {
  if (typeof url !== 'string') return `Invalid params: URL-mode elicitation/create needs url, a string; got ${quote(url)}`;
  const parsed = URL.canParse(url) ? new URL(url) : undefined;
  if (parsed?.protocol !== 'https:' && parsed?.protocol !== 'http:') {
    return `Invalid params: URL-mode elicitation/create needs an absolute http: or https: url; got ${quote(url)}`;
  }
  if (isSafeElicitationUrl(parsed)) return undefined;
  return `Invalid params: URL-mode elicitation/create needs an https: url (http: only on loopback: localhost, 127.0.0.1 or [::1]); got ${quote(url)}`;
}

/** The form property a violation's JSON pointer starts with (`/tags/0` is `tags`), unescaped (RFC 6901). */
function toElicitationViolation(v: SchemaViolation): ElicitationViolation {
  const property = v.path.split('/')[1]?.replace(/~1/g, '/').replace(/~0/g, '~') ?? '';
  return { property, rule: v.rule, message: v.message };
}

/**
 * SEP-1034: the content of a form accept with each absent field set to its `default`. The user's input
 * always wins, even `0`, `""` or `false`; a field whose value is undefined counts as absent and is left
 * out. A default is used when `describeFields` keeps it: a value of its property's type (a whole number
 * for `integer`) and one of its options (`enum`, or the `const`s of SEP-1330's `oneOf`/`items.anyOf`); a
 * multi-select default must be an array of them. Bounds, lengths and formats are left to validation.
 * A schema that is no object schema leaves the content as it is. Returns a new object.
 */
export function applyDefaults(schema: unknown, content: Record<string, unknown> | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (content) for (const key of Object.keys(content)) if (content[key] !== undefined) setField(out, key, content[key]);
  for (const field of describeFields(schema)) {
    if (field.default === undefined || Object.hasOwn(out, field.name)) continue;
    setField(out, field.name, Array.isArray(field.default) ? [...field.default] : field.default);
  }
  return out;
}

/** Set a field as an own property: a form field named `__proto__` (JSON may carry one) must not set a prototype. */
function setField(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
