/**
 * Extensions (`capabilities.extensions`): each adds methods and declares itself under its id. The core
 * knows extensions, not what they do: it finds their methods, gates those that need the client to have
 * declared the extension (-32021 naming it), and lets their results carry caching hints.
 */
import { ClientCapabilityError, ErrorCode, McpError } from '../protocol/errors.js';
import { isObject } from '../protocol/is-object.js';
import type { ExtensionMethod, ServerExtension } from './extension-api.js';
import type { MethodHandler } from './pipeline.js';
import type { ExtensionMethods } from './session.js';

const EXTENSION_ID = /^[a-z0-9-]+(\.[a-z0-9-]+)+\/[a-z0-9][a-z0-9-_.]*$/i;

export class Extensions implements ExtensionMethods {
  private readonly byId = new Map<string, ServerExtension>();
  /** Each extension method as the pipeline runs it, made once at `add`. */
  private readonly methods = new Map<string, { id: string; handler: MethodHandler; cacheable: boolean }>();

  constructor(private readonly coreMethods: (method: string) => boolean) {}

  add(extension: ServerExtension): void {
    if (!isObject(extension) || typeof extension.id !== 'string' || !EXTENSION_ID.test(extension.id)) {
      throw new TypeError(`An extension needs an id such as io.modelcontextprotocol/skills; got ${JSON.stringify((extension as { id?: unknown })?.id)}`);
    }
    if (this.byId.has(extension.id)) throw new TypeError(`Extension ${extension.id} is already in use on this server`);
    for (const name of Object.keys(extension.methods)) {
      const taken = this.coreMethods(name) ? 'the core' : this.methods.get(name)?.id;
      if (taken) throw new TypeError(`Extension ${extension.id} cannot serve ${name}: ${taken} serves it already`);
    }
    this.byId.set(extension.id, extension);
    for (const [name, method] of Object.entries(extension.methods)) {
      this.methods.set(name, { id: extension.id, handler: gated(extension.id, name, method), cacheable: method.cacheable === true });
    }
  }

  /** `capabilities.extensions`, or undefined when there are none. */
  declared(): Record<string, Record<string, unknown>> | undefined {
    if (this.byId.size === 0) return undefined;
    const out: Record<string, Record<string, unknown>> = {};
    for (const [id, extension] of this.byId) out[id] = { ...extension.settings };
    return out;
  }

  /** The handler of an extension's method, gated on the client's declaration where the method asks for it. */
  handler(name: string): MethodHandler | undefined {
    return this.methods.get(name)?.handler;
  }

  cacheable(name: string): boolean {
    return this.methods.get(name)?.cacheable === true;
  }
}

/** An extension method as the pipeline runs it: refused (-32021) to a client that did not declare the extension, where it asks for that. */
function gated(id: string, name: string, method: ExtensionMethod): MethodHandler {
  return (session, params, ctx) => {
    const { clientCapabilities } = session;
    if (method.requiresClientExtension && !(isObject(clientCapabilities.extensions) && isObject(clientCapabilities.extensions[id]))) {
      throw new ClientCapabilityError(`${name} needs the client to declare the extension ${id} (capabilities.extensions["${id}"])`, {
        extensions: { [id]: {} },
      });
    }
    return method.handler({ params, clientCapabilities, signal: ctx.signal });
  };
}

/** -32602 for an extension method's params. */
export function invalidExtensionParams(message: string): McpError {
  return new McpError(ErrorCode.InvalidParams, `Invalid params: ${message}`);
}
