/**
 * On 2026-07-28 the server sends no requests, but each answer a retry brings to an input request ends on
 * the same response event a pushed request's reply does (responseElicitationCreate, ...): once per
 * answer, with the input request (its key as id, the params requestState kept) and the same fields.
 */
import { describe, expect, it } from 'vitest';
import type { McpServer, McpSession } from '../../src/index.js';
import { useMcpClients } from '../helpers/mcp-clients.js';
import { META_KEYS, MODERN_CAPS, modernCall } from '../helpers/modern.js';
import { useCleanups } from '../helpers/cleanups.js';
import { startHttp, type RunningHttp } from '../helpers/servers.js';

const cleanups = useCleanups();
const clients = useMcpClients(cleanups);

const FORM = {
  message: 'Where to?',
  requestedSchema: { type: 'object' as const, properties: { city: { type: 'string' as const } }, required: ['city'] },
};

type Recorded = [event: string, era: string, request: unknown, response: Record<string, unknown>];

function record(server: McpServer): Recorded[] {
  const seen: Recorded[] = [];
  for (const event of ['responseElicitationCreate', 'responseSamplingCreateMessage', 'responseRootsList'] as const) {
    (server.on as (e: string, fn: (s: McpSession, request: unknown, response: Record<string, unknown>) => void) => unknown)(
      event,
      (session, request, response) => seen.push([event, session.era, request, { ...response }]),
    );
  }
  return seen;
}

async function start(setup: (server: McpServer) => void): Promise<RunningHttp & { seen: Recorded[] }> {
  const running = await startHttp(cleanups, setup);
  return { ...running, seen: record(running.server) };
}

const ok = { isError: false, errorCode: undefined, errorMessage: undefined, errorData: undefined };

describe('response events on 2026-07-28', () => {
  it('fires each response event once per answer, over three rounds, with the input request and the answer', async () => {
    const running = await start((server) =>
      server.registerTool('trip', {}, async (_args, ctx) => {
        const where = await ctx.elicit(FORM);
        const idea = await ctx.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'Plan it' } }], maxTokens: 9 });
        const roots = await ctx.listRoots();
        return `${where.content?.city}: ${(idea.content as { text: string }).text} (${roots.roots.length} root)`;
      }),
    );
    const { client } = await clients.connectUrl(running.url, { era: 'modern' }, (c) => {
      c.onElicitation(() => ({ action: 'accept', content: { city: 'Lisbon' } }));
      c.onSampling(() => ({ role: 'assistant', content: { type: 'text', text: 'walk' }, model: 'm' }));
      c.onRoots(() => ({ roots: [{ uri: 'file:///trips' }] }));
    });
    expect((await client.callTool('trip')).content).toEqual([{ type: 'text', text: 'Lisbon: walk (1 root)' }]);
    expect(running.seen).toEqual([
      [
        'responseElicitationCreate',
        'modern',
        { jsonrpc: '2.0', id: 'elicit-1', method: 'elicitation/create', params: FORM },
        { ...ok, action: 'accept', content: { city: 'Lisbon' } },
      ],
      [
        'responseSamplingCreateMessage',
        'modern',
        { jsonrpc: '2.0', id: 'sample-2', method: 'sampling/createMessage', params: {} },
        { ...ok, role: 'assistant', content: { type: 'text', text: 'walk' }, model: 'm', stopReason: undefined },
      ],
      ['responseRootsList', 'modern', { jsonrpc: '2.0', id: 'roots-3', method: 'roots/list', params: {} }, { ...ok, roots: [{ uri: 'file:///trips' }] }],
    ]);
  });

  it('names a URL-mode question by its message and URL, and reports a decline', async () => {
    const running = await start((server) =>
      server.registerTool('link', {}, async (_args, ctx) => {
        const answer = await ctx.elicit({ mode: 'url', message: 'Sign in', url: 'https://example.com/login', elicitationId: 'e-1' });
        return answer.action;
      }),
    );
    const { client } = await clients.connectUrl(running.url, { era: 'modern', capabilities: { elicitation: { url: {} } } }, (c) =>
      c.onElicitation(() => ({ action: 'decline' })),
    );
    expect((await client.callTool('link')).content).toEqual([{ type: 'text', text: 'decline' }]);
    expect(running.seen).toEqual([
      [
        'responseElicitationCreate',
        'modern',
        { jsonrpc: '2.0', id: 'elicit-1', method: 'elicitation/create', params: { mode: 'url', message: 'Sign in', url: 'https://example.com/login' } },
        { ...ok, action: 'decline', content: undefined },
      ],
    ]);
  });

  it('reports an answer that does not fit as an error outcome, and the question is asked again', async () => {
    const running = await start((server) => server.registerTool('ask', {}, async (_args, ctx) => JSON.stringify(await ctx.elicit(FORM))));
    const first = await modernCall(running.url, 'tools/call', { name: 'ask', arguments: {} }, { meta: { [META_KEYS.clientCapabilities]: MODERN_CAPS.form } });
    const { requestState } = first.result as { requestState: string };
    const retry = await modernCall(
      running.url,
      'tools/call',
      { name: 'ask', arguments: {}, requestState, inputResponses: { 'elicit-1': { action: 'accept', content: { city: 7 } } } },
      { meta: { [META_KEYS.clientCapabilities]: MODERN_CAPS.form }, id: 2 },
    );
    expect(retry.result).toMatchObject({ resultType: 'input_required', inputRequests: { 'elicit-1': { method: 'elicitation/create', params: FORM } } });
    expect(running.seen).toHaveLength(1);
    const [event, era, request, response] = running.seen[0]!;
    expect([event, era, request]).toEqual([
      'responseElicitationCreate',
      'modern',
      { jsonrpc: '2.0', id: 'elicit-1', method: 'elicitation/create', params: FORM },
    ]);
    expect(response).toMatchObject({ isError: true, errorCode: -32602, action: undefined, content: undefined });
    expect(response.errorMessage).toMatch(/city/);
  });
});
