/** Earlier names, kept as deprecated aliases of the current ones. */
import { describe, expect, it } from 'vitest';
import { UserCanceledError, UserCancelledError, type CompletionRequestEvent } from '../../src/index.js';
import { CAPS } from '../helpers/client-requests.js';
import { useHarness } from '../helpers/session-harness.js';

const h = useHarness();
const COMPLETE = { ref: { type: 'ref/prompt', name: 'p' }, argument: { name: 'a', value: 'c' } };

describe('deprecated names', () => {
  it('completionComplete listeners are requestCompletion listeners: both see the request, off removes them', async () => {
    const seen: string[] = [];
    const running = await h.start((server) => server.registerPrompt('p', { arguments: [{ name: 'a' }] }, () => ({ messages: [] })));
    const old = (_session: unknown, request: CompletionRequestEvent) => {
      seen.push(`old ${request.params.argument.value}`);
      request.respond(['cats']);
    };
    running.server.on('completionComplete', old);
    running.server.on('requestCompletion', (_session, request) => void seen.push(`new ${request.params.argument.value}`));
    expect(running.server.listenerCount('completionComplete')).toBe(2);
    expect(running.server.listenerCount('requestCompletion')).toBe(2);
    const { client } = await h.open(running);
    expect((await client.request('completion/complete', COMPLETE, 1)).result).toEqual({ completion: { values: ['cats'], total: 1, hasMore: false } });
    expect(seen).toEqual(['old c', 'new c']);

    running.server.off('completionComplete', old);
    expect(running.server.listenerCount('requestCompletion')).toBe(1);
    expect((await client.request('completion/complete', COMPLETE, 2)).result).toEqual({ completion: { values: [], hasMore: false } });
  });

  it('notifyElicitationComplete is sendElicitationComplete', async () => {
    const running = await h.start();
    const { client, session } = await h.open(running, { capabilities: CAPS.url });
    expect(running.server.notifyElicitationComplete(session, 'flow-1')).toBe(true);
    expect(running.server.sendElicitationComplete(session, 'flow-2')).toBe(true);
    expect(await client.nextMessage('notifications/elicitation/complete')).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/elicitation/complete',
      params: { elicitationId: 'flow-1' },
    });
    expect(await client.nextMessage('notifications/elicitation/complete')).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/elicitation/complete',
      params: { elicitationId: 'flow-2' },
    });
  });

  it('UserCanceledError is UserCancelledError', () => {
    const error = new UserCanceledError('Go?');
    expect(UserCanceledError).toBe(UserCancelledError);
    expect([error.name, error.code]).toEqual(['UserCancelledError', 'USER_CANCELLED']);
  });
});
