/** What soak/server.mjs serves, as its clients must see it. */

const object = (properties: Record<string, unknown>, required = Object.keys(properties)) => ({ type: 'object', properties, required });

export const ELICITATION = {
  message: 'Who are you?',
  requestedSchema: object(
    { name: { type: 'string', minLength: 1 }, age: { type: 'integer', minimum: 0 }, plan: { type: 'string', enum: ['free', 'pro'], default: 'free' } },
    ['name'],
  ),
};

export const TOOLS = [
  { name: 'echo', inputSchema: object({ text: { type: 'string' } }) },
  { name: 'ask', inputSchema: object({}) },
  { name: 'progress', inputSchema: object({ steps: { type: 'integer', minimum: 1, maximum: 20 }, delayMs: { type: 'integer', minimum: 0, maximum: 1000 } }) },
  { name: 'fail', inputSchema: object({ code: { type: 'integer' } }) },
];

/** server/discover (2026-07-28), caching hints left out. */
export const DISCOVERY = {
  supportedVersions: ['2026-07-28'],
  capabilities: {
    logging: {},
    completions: {},
    prompts: { listChanged: true },
    resources: { subscribe: true, listChanged: true },
    tools: { listChanged: true },
  },
  _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'soak', version: '1.0.0' } },
};

/** The caching hints 2026-07-28 list and discover results carry (the server's defaults). */
export const CACHE_HINTS = { ttlMs: 0, cacheScope: 'private' };
