/**
 * fast-check arbitraries for MCP traffic of both eras: valid requests, notifications and replies, their
 * mutations (wrong jsonrpc, odd ids, params of every type, keys dropped or added), batches, huge and deep
 * values, arbitrary text and bytes; the catalog of tools, prompts and resources they name; and the
 * serialiser that turns a generated frame into the text that goes on the wire.
 */
import fc from 'fast-check';
import { LEGACY_PROTOCOL_VERSIONS, McpServer, MODERN_PROTOCOL_VERSIONS } from '../../src/index.js';
import { META } from '../../src/protocol/meta.js';

/**
 * JSON text spliced into a frame as is: a value nested too deep for JSON.stringify, or one too big to
 * print in a failure report (the report shows `label`).
 */
export class RawJson {
  constructor(
    readonly label: string,
    readonly text: string,
  ) {}

  [fc.toStringMethod](): string {
    return this.label;
  }
}

const PLACEHOLDER = '\u0000fuzz-raw-9c41:';

/** The JSON text of a generated value, with every RawJson spliced in. */
export function toJsonText(value: unknown): string {
  const raws: RawJson[] = [];
  const text = JSON.stringify(value, (_key, v: unknown) => (v instanceof RawJson ? `${PLACEHOLDER}${raws.push(v) - 1}` : v));
  if (raws.length === 0) return text;
  return text.replace(/"\\u0000fuzz-raw-9c41:(\d+)"/g, (_match, index: string) => raws[Number(index)].text);
}

/** A generated value as the server decodes it: what JSON.parse makes of its text. */
export function asDecoded(value: unknown): unknown {
  return JSON.parse(toJsonText(value));
}

/** Ids that the tests use themselves (barriers, cancellation targets) start with this; generated ids never do. */
export const RESERVED_ID_PREFIX = '\u0000fuzz:';

/** The largest huge value, in characters of JSON: a few fit in a frame of 1 MiB. */
const HUGE_MAX = 120_000;

/**
 * Objects and arrays nested `minDepth` to 30 000 deep (`shape` as given, or any): JSON.parse takes them,
 * JSON.stringify and String overflow the stack on them from some thousands deep.
 */
export function deepArb(minDepth = 2, shapes: ('object' | 'array' | 'mixed')[] = ['object', 'array', 'mixed']): fc.Arbitrary<RawJson> {
  return fc.record({ depth: fc.integer({ min: minDepth, max: 30_000 }), shape: fc.constantFrom(...shapes) }).map(({ depth, shape }) => {
    let open = '';
    let close = '';
    for (let i = 0; i < depth; i++) {
      const array = shape === 'array' || (shape === 'mixed' && i % 2 === 1);
      open += array ? '[' : '{"d":';
      close = (array ? ']' : '}') + close;
    }
    return new RawJson(`deep ${shape} (depth ${depth})`, `${open}"leaf"${close}`);
  });
}

const deepValue = deepArb();

/** Long strings, wide objects and long arrays, up to HUGE_MAX characters of JSON. */
export const hugeValue: fc.Arbitrary<RawJson> = fc
  .record({ size: fc.integer({ min: 1_000, max: HUGE_MAX }), shape: fc.constantFrom('ascii', 'unicode', 'object', 'array') })
  .map(({ size, shape }) => {
    switch (shape) {
      case 'ascii':
        return new RawJson(`string of ${size} characters`, JSON.stringify('x'.repeat(size - 2)));
      case 'unicode':
        return new RawJson(`string of ${size >> 2} snowmen`, JSON.stringify('\u2603'.repeat(size >> 2)));
      case 'object': {
        const keys = Math.floor(size / 12);
        return new RawJson(`object of ${keys} keys`, `{${Array.from({ length: keys }, (_, i) => `"k${i}":${i}`).join(',')}}`);
      }
      default:
        return new RawJson(`array of ${size >> 1} zeros`, `[${new Array(size >> 1).fill('0').join(',')}]`);
    }
  });

/** Any JSON value: mostly small, now and then huge or deep. */
export const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 30, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 10, arbitrary: fc.constantFrom(null, true, false, 0, -1, 1.5, 1e300, '', 'x', [], {}, [null], { '': null }) },
  { weight: 1, arbitrary: deepValue },
  { weight: 1, arbitrary: hugeValue },
);

/** Ids a request may carry: strings and integers, plain and odd (huge integers, empty, long, prototype names). */
export const validId: fc.Arbitrary<string | number> = fc.oneof(
  fc.integer(),
  fc.constantFrom(0, -1, 1, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER, 2 ** 53, 1e21, -1e21, 1e300),
  fc.string({ unit: 'binary', maxLength: 24 }).filter((s) => !s.startsWith(RESERVED_ID_PREFIX)),
  fc.constantFrom('', ' ', '0', '1', 'null', '__proto__', 'constructor', 'toString'),
  fc.integer({ min: 1_000, max: 20_000 }).map((n) => `id-${'x'.repeat(n)}`),
);

/** Values that are no id at all: null, fractions, booleans, objects, arrays. */
export const notAnId: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(null, 1.5, -0.25, true, false, [], {}, [1], { id: 1 }),
  fc.double({ noInteger: true }),
  fc.jsonValue({ maxDepth: 2 }).filter((v) => typeof v === 'object'),
);

const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const;

/** What the generated traffic names: a tool with a string argument, a tool with an argument mirrored in a header, a prompt, resources. */
export const CATALOG = {
  tools: ['note', 'regional'],
  prompt: 'greet',
  resource: 'fuzz://static',
  template: 'fuzz://items/{id}',
} as const;

/** An McpServer with what CATALOG names, and every error it reports on `error`, in order. */
export function catalogServer(): { server: McpServer; errors: Error[] } {
  const server = new McpServer({ name: 'fuzz', version: '1.0.0' });
  const errors: Error[] = [];
  server.on('error', (error) => void errors.push(error));
  registerCatalog(server);
  return { server, errors };
}

/** Register what CATALOG names on `server`: handlers that answer at once and never ask the client anything. */
function registerCatalog(server: McpServer): void {
  server.registerTool('note', { inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } }, () => 'noted');
  server.registerTool(
    'regional',
    { inputSchema: { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' }, count: { type: 'integer' } } } },
    () => 'ok',
  );
  server.registerPrompt('greet', { arguments: [{ name: 'name', required: true }], complete: { name: (value) => [`${value}a`, `${value}b`] } }, (args) => ({
    messages: [{ role: 'user', content: { type: 'text', text: `Hello ${String(args.name)}` } }],
  }));
  server.registerResource(CATALOG.resource, { name: 'static', mimeType: 'text/plain' }, () => 'static text');
  server.registerResourceTemplate(CATALOG.template, { name: 'items', complete: { id: (value) => [value, `${value}1`] } }, (_uri, variables) =>
    variables.id === 'missing' ? undefined : `item ${String(variables.id)}`,
  );
}

/** Either a plausible value or anything at all. */
function plausible(...values: fc.Arbitrary<unknown>[]): fc.Arbitrary<unknown> {
  return fc.oneof({ weight: 3, arbitrary: fc.oneof(...values) }, { weight: 1, arbitrary: anyValue });
}

/** Any JSON value but a deep one. */
const shallowValue: fc.Arbitrary<unknown> = fc.oneof({ weight: 30, arbitrary: fc.jsonValue({ maxDepth: 3 }) }, { weight: 1, arbitrary: hugeValue });

/** Whether String() takes the value the server decodes from `value` (not an object whose toString is no function, like {"toString":0}). */
function printable(value: unknown): boolean {
  try {
    String(asDecoded(value));
    return true;
  } catch {
    return false;
  }
}

/** An object String() cannot take: its toString (and maybe valueOf) a JSON value, not a function. */
export const unprintableObject: fc.Arbitrary<Record<string, unknown>> = fc.record(
  { toString: fc.jsonValue({ maxDepth: 1 }), valueOf: fc.jsonValue({ maxDepth: 1 }) },
  { requiredKeys: ['toString'] },
);

/** Any JSON value; nested deep only where `traffic` asks for it. */
function oddValue(traffic: Traffic): fc.Arbitrary<unknown> {
  return traffic.deepValues ? anyValue : shallowValue;
}

/** A 2026-07-28 `_meta` envelope, whole or broken. */
function modernMeta(traffic: Traffic): fc.Arbitrary<Record<string, unknown>> {
  const odd = oddValue(traffic);
  return fc.record(
    {
      [META.protocolVersion]: fc.oneof(
        { weight: 6, arbitrary: fc.constantFrom<string>(...MODERN_PROTOCOL_VERSIONS) },
        { weight: 1, arbitrary: fc.constantFrom<string>(...LEGACY_PROTOCOL_VERSIONS) },
        { weight: 1, arbitrary: odd },
      ),
      [META.clientCapabilities]: plausible(fc.constantFrom({}, { elicitation: {} }, { sampling: {}, roots: {} })),
      [META.clientInfo]: plausible(fc.constant({ name: 'fuzz', version: '1.0.0' })),
      [META.logLevel]: fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...LOG_LEVELS) }, { weight: 1, arbitrary: odd }),
    },
    { requiredKeys: [META.protocolVersion] },
  );
}

/** A `_meta`: none, a progress token, a 2026-07-28 envelope (whole or broken), or anything. */
function metaArb(traffic: Traffic): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 6, arbitrary: fc.constant(undefined) },
    { weight: 2, arbitrary: fc.record({ progressToken: plausible(fc.string(), fc.integer()) }) },
    { weight: 4, arbitrary: modernMeta(traffic) },
    { weight: 1, arbitrary: anyValue },
  );
}

const uriArb = plausible(fc.constantFrom(CATALOG.resource, 'fuzz://items/1', 'fuzz://items/missing', 'fuzz://nowhere', ''), fc.webUrl());

/** Params a request of `method` might carry, plausible or not. */
function plausibleParams(method: string, traffic: Traffic): fc.Arbitrary<Record<string, unknown>> {
  switch (method) {
    case 'initialize':
      return fc.record(
        {
          protocolVersion: plausible(fc.constantFrom<string>(...LEGACY_PROTOCOL_VERSIONS, ...MODERN_PROTOCOL_VERSIONS, '1999-01-01')),
          capabilities: plausible(fc.constant({})),
          clientInfo: plausible(fc.constant({ name: 'fuzz', version: '1.0.0' })),
        },
        { requiredKeys: [] },
      );
    case 'tools/call':
      return fc.record(
        {
          name: plausible(fc.constantFrom(...CATALOG.tools, 'missing')),
          arguments: plausible(
            fc.record(
              {
                text: plausible(fc.string()),
                region: fc.oneof({ weight: 3, arbitrary: fc.string() }, { weight: 1, arbitrary: oddValue(traffic) }),
                count: plausible(fc.integer()),
              },
              { requiredKeys: [] },
            ),
          ),
        },
        { requiredKeys: [] },
      );
    case 'prompts/get':
      return fc.record(
        { name: plausible(fc.constantFrom(CATALOG.prompt, 'missing')), arguments: plausible(fc.record({ name: plausible(fc.string()) })) },
        { requiredKeys: [] },
      );
    case 'resources/read':
    case 'resources/subscribe':
    case 'resources/unsubscribe':
      return fc.record({ uri: uriArb }, { requiredKeys: [] });
    case 'completion/complete':
      return fc.record(
        {
          ref: plausible(fc.constantFrom({ type: 'ref/prompt', name: CATALOG.prompt }, { type: 'ref/resource', uri: CATALOG.template }, { type: 'ref/other' })),
          argument: plausible(fc.record({ name: fc.constantFrom('name', 'id', 'other'), value: fc.string() })),
        },
        { requiredKeys: [] },
      );
    case 'logging/setLevel':
      return fc.record({ level: plausible(fc.constantFrom(...LOG_LEVELS)) }, { requiredKeys: [] });
    case 'subscriptions/listen':
      return fc.record({ notifications: plausible(fc.constant({ toolsListChanged: true })) }, { requiredKeys: [] });
    default:
      return fc.record({ cursor: plausible(fc.string()) }, { requiredKeys: [] });
  }
}

/** Params of every type: absent, plausible for the method (with a `_meta` or not), any object, or not an object at all. */
function paramsArb(method: string, traffic: Traffic): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 2, arbitrary: fc.constant(undefined) },
    {
      weight: 8,
      arbitrary: fc
        .tuple(plausibleParams(method, traffic), metaArb(traffic))
        .map(([params, meta]) => (meta === undefined ? params : { ...params, _meta: meta })),
    },
    { weight: 1, arbitrary: fc.dictionary(fc.string({ maxLength: 12 }), anyValue, { maxKeys: 5 }) },
    { weight: 1, arbitrary: anyValue },
  );
}

/** Methods a client can send as requests, by era; the modern era adds server/discover and subscriptions/listen. */
export const LEGACY_METHODS = [
  'initialize',
  'ping',
  'tools/list',
  'tools/call',
  'prompts/list',
  'prompts/get',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'resources/subscribe',
  'resources/unsubscribe',
  'completion/complete',
  'logging/setLevel',
] as const;

/** Method names no server serves, or that only look like ones it does. */
const oddMethod: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: 'binary', minLength: 1, maxLength: 30 }),
  fc.constantFrom(
    '__proto__',
    'constructor',
    'toString',
    'hasOwnProperty',
    'rpc.discover',
    'TOOLS/LIST',
    'tools/list ',
    'tools/call/',
    'elicitation/create',
    'roots/list',
  ),
);

/** What a generator makes. */
export interface Traffic {
  /** `initialize` requests: not where a session must not be started by one. */
  initialize: boolean;
  /** 2026-07-28 `subscriptions/listen` requests: only where an answer that comes when the listen ends is read. */
  listen: boolean;
  /**
   * Values the server must quote without turning them into text whole: nested some thousands deep (a
   * 2026-07-28 `_meta` version or log level, an argument mirrored in a header, a cancellation's reason),
   * or an object whose toString is no function. Off where memory is measured: they are large.
   */
  deepValues: boolean;
}

function messageWith(fields: Record<string, unknown>): Record<string, unknown> {
  const message: Record<string, unknown> = { jsonrpc: '2.0' };
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) message[key] = value;
  return message;
}

/** A request: a known or odd method, a valid id, params of every type. */
export function requestArb(traffic: Traffic): fc.Arbitrary<Record<string, unknown>> {
  const methods: string[] = [...LEGACY_METHODS, 'server/discover'].filter((m) => traffic.initialize || m !== 'initialize');
  if (traffic.listen) methods.push('subscriptions/listen');
  const named = methods.map((method) =>
    fc.record({ id: validId, params: paramsArb(method, traffic) }).map(({ id, params }) => messageWith({ id, method, params })),
  );
  return fc.oneof(
    { weight: 6, arbitrary: fc.oneof(...named) },
    { weight: 1, arbitrary: fc.record({ id: validId, method: oddMethod, params: paramsArb('', traffic) }).map((fields) => messageWith(fields)) },
  );
}

/**
 * A notification. `notifications/cancelled` names only ids no request carries (reserved or no id at
 * all), so a generated cancellation never takes the answer from a generated request.
 */
export function notificationArb(traffic: Traffic): fc.Arbitrary<Record<string, unknown>> {
  return fc.oneof(
    fc.constant(messageWith({ method: 'notifications/initialized' })),
    fc.constant(messageWith({ method: 'notifications/roots/list_changed' })),
    fc
      .record({ progressToken: plausible(fc.string(), fc.integer()), progress: plausible(fc.integer()), total: plausible(fc.integer()) }, { requiredKeys: [] })
      .map((params) => messageWith({ method: 'notifications/progress', params })),
    fc
      .record(
        {
          requestId: fc.oneof(
            fc.nat().map((n) => `${RESERVED_ID_PREFIX}cancel-${n}`),
            notAnId,
          ),
          reason: fc.oneof(
            { weight: 3, arbitrary: fc.string() },
            { weight: 1, arbitrary: traffic.deepValues ? fc.oneof(anyValue, unprintableObject) : shallowValue.filter(printable) },
          ),
        },
        { requiredKeys: [] },
      )
      .map((params) => messageWith({ method: 'notifications/cancelled', params })),
    fc.record({ method: oddMethod, params: paramsArb('', traffic) }).map((fields) => messageWith(fields)),
  );
}

/** A reply to a request the server never sent: a result, or an error with any id, null or none. */
export const responseArb: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  fc.record({ id: validId, result: plausible(fc.constant({})) }).map((fields) => messageWith(fields)),
  fc
    .record({
      id: fc.oneof(validId, fc.constant(null), fc.constant(undefined)),
      error: plausible(fc.record({ code: plausible(fc.integer()), message: plausible(fc.string()), data: anyValue }, { requiredKeys: ['code', 'message'] })),
    })
    .map((fields) => messageWith(fields)),
);

const MESSAGE_KEYS = ['jsonrpc', 'id', 'method', 'params', 'result', 'error'] as const;

type Mutation = { op: 'delete'; key: string } | { op: 'set'; key: string; value: unknown };

const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ op: fc.constant('delete' as const), key: fc.constantFrom<string>(...MESSAGE_KEYS) }),
  fc.record({
    op: fc.constant('set' as const),
    key: fc.oneof({ weight: 6, arbitrary: fc.constantFrom<string>(...MESSAGE_KEYS) }, { weight: 1, arbitrary: fc.constantFrom('__proto__', 'extra', '') }),
    value: fc.oneof(anyValue, notAnId, validId, oddMethod, fc.constantFrom('1.0', '2', 2, '2.0 ', 'jsonrpc')),
  }),
);

/** `message` with each mutation applied: keys dropped, set to other values or added (`__proto__` as a plain key). */
function mutate(message: Record<string, unknown>, mutations: Mutation[]): Record<string, unknown> {
  const out: Record<string, unknown> = { ...message };
  for (const mutation of mutations) {
    if (mutation.op === 'delete') delete out[mutation.key];
    else Object.defineProperty(out, mutation.key, { value: mutation.value, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** One message: valid, mutated, or any JSON value. */
export function messageArb(traffic: Traffic): fc.Arbitrary<unknown> {
  const valid = fc.oneof(
    { weight: 5, arbitrary: requestArb(traffic) },
    { weight: 2, arbitrary: notificationArb(traffic) },
    { weight: 2, arbitrary: responseArb },
  );
  return fc.oneof(
    { weight: 10, arbitrary: valid },
    { weight: 8, arbitrary: fc.tuple(valid, fc.array(mutationArb, { minLength: 1, maxLength: 3 })).map(([message, mutations]) => mutate(message, mutations)) },
    { weight: 1, arbitrary: anyValue },
  );
}

/** A batch: any number of messages, arrays among them now and then. */
export function batchArb(traffic: Traffic): fc.Arbitrary<unknown[]> {
  return fc.array(
    fc.oneof({ weight: 8, arbitrary: messageArb(traffic) }, { weight: 1, arbitrary: fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 2 }) }),
    {
      maxLength: 8,
    },
  );
}

/** Text that is not JSON, or only nearly: any characters, a message cut short or with one character changed, padding. */
export function textArb(traffic: Traffic): fc.Arbitrary<string> {
  const valid = requestArb(traffic).map(toJsonText);
  return fc.oneof(
    fc.string({ unit: 'binary', maxLength: 200 }),
    fc.string({ maxLength: 50 }),
    fc.tuple(valid, fc.nat()).map(([text, cut]) => text.slice(0, cut % Math.max(text.length, 1))),
    fc.tuple(valid, fc.nat(), fc.string({ unit: 'binary', minLength: 1, maxLength: 2 })).map(([text, at, s]) => {
      const i = at % Math.max(text.length, 1);
      return text.slice(0, i) + s + text.slice(i + 1);
    }),
    fc.tuple(valid, fc.constantFrom(' ', '\n', '\t', '\r\n', '\uFEFF', '\u00a0', '\u0000')).map(([text, pad]) => pad + text + pad),
    fc.constantFrom('', 'null', '[]', '[[]]', '{}', '"', '{"jsonrpc":"2.0"', '\u0000'),
  );
}

/** A WebSocket frame or an HTTP body, before it is put on the wire. */
export type Frame = { kind: 'json'; value: unknown } | { kind: 'text'; text: string } | { kind: 'bytes'; bytes: Uint8Array };

/** Frames of every kind: single messages, batches, any JSON, nearly-JSON text and (where `bytes`) raw bytes. */
export function frameArb(traffic: Traffic, bytes: boolean): fc.Arbitrary<Frame> {
  const frames: fc.WeightedArbitrary<Frame>[] = [
    { weight: 30, arbitrary: messageArb(traffic).map((value) => ({ kind: 'json', value })) },
    { weight: 6, arbitrary: batchArb(traffic).map((value) => ({ kind: 'json', value })) },
    { weight: 2, arbitrary: fc.jsonValue().map((value) => ({ kind: 'json', value })) },
    { weight: 6, arbitrary: textArb(traffic).map((text) => ({ kind: 'text', text })) },
  ];
  if (bytes) frames.push({ weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }).map((b) => ({ kind: 'bytes', bytes: b })) });
  return fc.oneof(...frames);
}

/** The text of a JSON or text frame (bytes frames have none). */
export function frameText(frame: Frame): string | undefined {
  if (frame.kind === 'json') return toJsonText(frame.value);
  return frame.kind === 'text' ? frame.text : undefined;
}
