/**
 * The confirmation gate: the `confirm` tool option and the `confirm(ctx, message)` helper.
 *
 * The client is McpClient, answering through onElicitation. The raw WebSocket peer stays for replies
 * McpClient never sends (an accept without content, an unknown action, content that is no object) and
 * for a bare `elicitation: {}` declaration, which McpClient sends as `{form: {}}`.
 */
import { describe, expect, it } from 'vitest';
import {
  type CallToolResult,
  confirm,
  ConfirmationError,
  ElicitationFailedError,
  RequestTimeoutError,
  UserCancelledError,
  UserDeclinedError,
  type McpServer,
  type ToolConfig,
} from '../../src/index.js';
import { CAPS, callTool, responseLog, textResult, succeeded, toolText } from '../helpers/client-requests.js';
import { type Ask, type ElicitationPeerOptions, elicitationPeer, useMcpClients, expectPeerQuietAndAlive } from '../helpers/mcp-clients.js';
import { expectQuietAndAlive, useWsSessions } from '../helpers/ws-sessions.js';
import { useCleanups } from '../helpers/cleanups.js';
import type { Json } from '../helpers/ws-client.js';
import { startWebSocket } from '../helpers/servers.js';

const cleanups = useCleanups();
const h = useWsSessions(cleanups);
const clients = useMcpClients(cleanups);

const YES_NO = { type: 'object', properties: {} };

function confirmation(id: number, message: string) {
  return { jsonrpc: '2.0', id, method: 'elicitation/create', params: { message, requestedSchema: YES_NO } };
}

/** The elicitation/create the server sent, with its request id, as the client received it. */
function asked(ask: Ask): Json {
  return { jsonrpc: '2.0', id: ask.id, method: 'elicitation/create', params: ask.params };
}

function registerDelete(server: McpServer, confirmOption: ToolConfig['confirm'], runs: Record<string, unknown>[]) {
  server.registerTool(
    'delete',
    { inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] }, confirm: confirmOption },
    (args) => {
      runs.push(args);
      return `deleted ${String(args.path)}`;
    },
  );
}

/** A server with a `delete` tool guarded by `confirm`, and an McpClient; `runs` counts handler runs and their arguments. */
async function guarded(
  confirmOption: ToolConfig['confirm'],
  peerOptions: ElicitationPeerOptions = {},
  serverOptions: Parameters<typeof startWebSocket>[2] = {},
) {
  const runs: Record<string, unknown>[] = [];
  const running = await startWebSocket(cleanups, (server: McpServer) => registerDelete(server, confirmOption, runs), serverOptions);
  const log = responseLog(running.server, 'responseElicitationCreate');
  const peer = await elicitationPeer(clients, running, peerOptions);
  return { running, server: running.server, log, peer, session: peer.session, runs };
}

/** `guarded` with the raw WebSocket peer declaring `capabilities`: for replies McpClient never sends. */
async function rawGuarded(confirmOption: ToolConfig['confirm'], capabilities: Json = CAPS.form) {
  const runs: Record<string, unknown>[] = [];
  const running = await startWebSocket(cleanups, (server: McpServer) => registerDelete(server, confirmOption, runs));
  const log = responseLog(running.server, 'responseElicitationCreate');
  const { client, session } = await h.open(running, { capabilities });
  return { running, server: running.server, log, client, session, runs };
}

/** The text of a tools/call result's single content block. */
async function callToolText(call: Promise<CallToolResult>): Promise<string> {
  return ((await call).content[0] as { text: string }).text;
}

describe('the confirm tool option', () => {
  it('asks {message, requestedSchema: {type: "object", properties: {}}} and runs the tool on accept', async () => {
    const { log, client, session, runs } = await rawGuarded('Delete the file?');
    const call = callTool(client, 'delete', { path: '/tmp/a' });
    const sent = await client.nextMessage('elicitation/create');
    expect(sent).toStrictEqual(confirmation(0, 'Delete the file?'));
    expect(runs).toEqual([]);
    client.respond(0, { action: 'accept' });
    expect(await call).toEqual(textResult('call-delete', 'deleted /tmp/a'));
    expect(runs).toEqual([{ path: '/tmp/a' }]);
    expect(log.all).toHaveLength(1);
    expect(log.all[0][0]).toBe(session);
    expect(log.all[0][1]).toEqual(sent);
    expect(log.all[0][2]).toStrictEqual(succeeded('elicitation', { action: 'accept', content: {} }));
    await expectQuietAndAlive(client);
  });

  it('runs the tool on accept with an empty content object', async () => {
    const { peer, runs } = await guarded('Delete the file?');
    const call = peer.client.callTool('delete', { path: '/tmp/b' });
    (await peer.asks.next()).answer({ action: 'accept', content: {} });
    expect(await call).toEqual(toolText('deleted /tmp/b'));
    expect(runs).toHaveLength(1);
  });

  it('answers decline with an isError result saying nothing was done, without running the handler', async () => {
    const { peer, runs } = await guarded('Delete the file?');
    const call = peer.client.callTool('delete', { path: '/tmp/a' });
    (await peer.asks.next()).answer({ action: 'decline' });
    expect(await call).toEqual(toolText('The user declined: "Delete the file?". Nothing was done.', true));
    expect(runs).toEqual([]);
    await expectPeerQuietAndAlive(peer, { asked: [{ message: 'Delete the file?', requestedSchema: YES_NO }] });
  });

  it('answers cancel with the UserCancelledError text, without running the handler', async () => {
    const { peer, runs } = await guarded('Delete the file?');
    const call = peer.client.callTool('delete', { path: '/tmp/a' });
    (await peer.asks.next()).answer({ action: 'cancel' });
    expect(await call).toEqual(toolText(new UserCancelledError('Delete the file?').message, true));
    expect(await callToolText(call)).toBe('The user dismissed the confirmation "Delete the file?" without answering. Nothing was done.');
    expect(runs).toEqual([]);
  });

  it.each([
    ['no elicitation capability', { answer: null }],
    ['only URL-mode elicitation', { capabilities: CAPS.url }],
  ] as [string, ElicitationPeerOptions][])(
    'answers a client with %s with the ElicitationNotSupportedError message and asks nothing',
    async (_name, peerOptions) => {
      const { log, peer, runs } = await guarded('Delete the file?', peerOptions);
      expect(await peer.client.callTool('delete', { path: '/tmp/a' })).toEqual(
        toolText(
          'The client did not declare form-mode elicitation (capabilities.elicitation.form); ask another way, or use url mode if it declared that',
          true,
        ),
      );
      expect(runs).toEqual([]);
      expect(log.all).toHaveLength(0);
      await expectPeerQuietAndAlive(peer);
    },
  );

  it('works for a client that declared elicitation: {}', async () => {
    const { client, runs } = await rawGuarded('Delete the file?', CAPS.legacyElicitation);
    const call = callTool(client, 'delete', { path: '/x' });
    expect(await client.nextMessage('elicitation/create')).toStrictEqual(confirmation(0, 'Delete the file?'));
    client.respond(0, { action: 'accept' });
    expect(await call).toEqual(textResult('call-delete', 'deleted /x'));
    expect(runs).toHaveLength(1);
  });

  it('answers an action outside accept, decline and cancel with the UnexpectedElicitActionError message', async () => {
    const { client, runs, server } = await rawGuarded('Delete the file?');
    const call = callTool(client, 'delete', { path: '/tmp/a' });
    await client.nextMessage('elicitation/create');
    client.respond(0, { action: 'yes' });
    expect(await call).toEqual(textResult('call-delete', 'The client answered elicitation/create with action "yes"; expected accept, decline or cancel', true));
    expect(runs).toEqual([]);
    expect(server.stats.invalidResults).toBe(1);
  });

  it('answers a client error reply with the ElicitationFailedError text', async () => {
    // The client declares form mode but has no elicitation handler: it answers -32601.
    const { peer, runs } = await guarded('Delete the file?', { capabilities: CAPS.form, answer: null });
    const call = peer.client.callTool('delete', { path: '/tmp/a' });
    expect(await call).toEqual(
      toolText('Could not get a confirmation for "Delete the file?": Method not found: this client has no elicitation handler. Nothing was done.', true),
    );
    expect(peer.asks.all.map(asked)).toEqual([confirmation(0, 'Delete the file?')]);
    expect(runs).toEqual([]);
  });

  it('answers a timeout with the ElicitationFailedError text, and cancels the elicitation on the client', async () => {
    const { peer, runs } = await guarded('Delete the file?', {}, { server: { elicitationTimeoutMs: 80 } });
    const call = peer.client.callTool('delete', { path: '/tmp/a' });
    await peer.asks.next();
    expect(await call).toEqual(
      toolText(
        'Could not get a confirmation for "Delete the file?": elicitation/create timed out after 80 ms without a reply; raise timeoutMs if a person has to answer it. Nothing was done.',
        true,
      ),
    );
    expect(await peer.notifications.next()).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 0, reason: 'timed out after 80 ms' },
    });
    expect(runs).toEqual([]);
  });

  it('answers accept with content that is not an object with the ElicitationFailedError text', async () => {
    const { client, runs } = await rawGuarded('Delete the file?');
    const call = callTool(client, 'delete', { path: '/tmp/a' });
    await client.nextMessage('elicitation/create');
    client.respond(0, { action: 'accept', content: 'yes' });
    expect(await call).toEqual(
      textResult(
        'call-delete',
        'Could not get a confirmation for "Delete the file?": The client accepted elicitation/create with content that is not an object. Nothing was done.',
        true,
      ),
    );
    expect(runs).toEqual([]);
  });

  it('builds the message from the arguments when confirm is a function', async () => {
    const seen: Record<string, unknown>[] = [];
    const { peer, runs } = await guarded((args) => {
      seen.push(args);
      return `Delete ${String(args.path)}?`;
    });
    const call = peer.client.callTool('delete', { path: '/etc/hosts' });
    const ask = await peer.asks.next();
    expect(asked(ask)).toStrictEqual(confirmation(0, 'Delete /etc/hosts?'));
    ask.answer({ action: 'decline' });
    expect(await call).toEqual(toolText('The user declined: "Delete /etc/hosts?". Nothing was done.', true));
    expect(seen).toEqual([{ path: '/etc/hosts' }]);
    expect(runs).toEqual([]);
  });

  it('asks again on every call', async () => {
    const { peer, runs } = await guarded((args) => `Delete ${String(args.path)}?`);
    const first = peer.client.callTool('delete', { path: '/a' });
    const ask0 = await peer.asks.next();
    expect(asked(ask0)).toStrictEqual(confirmation(0, 'Delete /a?'));
    ask0.answer({ action: 'accept' });
    expect(await first).toEqual(toolText('deleted /a'));
    const second = peer.client.callTool('delete', { path: '/b' });
    const ask1 = await peer.asks.next();
    expect(asked(ask1)).toStrictEqual(confirmation(1, 'Delete /b?'));
    ask1.answer({ action: 'accept' });
    expect(await second).toEqual(toolText('deleted /b'));
    expect(runs).toEqual([{ path: '/a' }, { path: '/b' }]);
  });

  it('does not ask for a confirmation when the arguments are invalid', async () => {
    const { log, peer, runs } = await guarded('Delete the file?');
    const call = peer.client.callTool('delete', { path: 7 });
    expect((await call).isError).toBe(true);
    expect(await callToolText(call)).toMatch(/^Invalid arguments for tool delete: /);
    expect(runs).toEqual([]);
    expect(log.all).toHaveLength(0);
    await expectPeerQuietAndAlive(peer);
  });

  it('does not put confirm into the tool descriptor', async () => {
    const { peer } = await guarded('Delete the file?');
    const listed = await peer.client.listTools();
    expect(listed.tools).toEqual([{ name: 'delete', inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } }]);
  });

  it('rejects a confirm option that is neither a message nor a function at registration', async () => {
    const running = await startWebSocket(cleanups);
    expect(() => running.server.registerTool('x', { confirm: 5 as unknown as string }, () => 'ok')).toThrow(
      new TypeError("Tool 'x': confirm must be a message or a function of the arguments that returns one"),
    );
  });
});

describe('the confirm(ctx, message) helper', () => {
  /** A tool that calls confirm() itself and reports what happened, and an McpClient. */
  async function helperTool(timeoutMs?: number, peerOptions: ElicitationPeerOptions = {}) {
    const caught: unknown[] = [];
    let proceeded = 0;
    const running = await startWebSocket(cleanups, (server) =>
      server.registerTool('wipe', {}, async (_args, ctx) => {
        try {
          await confirm(ctx, 'Wipe everything?', timeoutMs === undefined ? {} : { timeoutMs });
        } catch (err) {
          caught.push(err);
          throw err;
        }
        proceeded++;
        return 'wiped';
      }),
    );
    const peer = await elicitationPeer(clients, running, peerOptions);
    return { peer, caught, proceeded: () => proceeded };
  }

  it('resolves on accept so the work goes ahead', async () => {
    const t = await helperTool();
    const call = t.peer.client.callTool('wipe');
    const ask = await t.peer.asks.next();
    expect(asked(ask)).toStrictEqual(confirmation(0, 'Wipe everything?'));
    ask.answer({ action: 'accept' });
    expect(await call).toEqual(toolText('wiped'));
    expect(t.proceeded()).toBe(1);
    expect(t.caught).toEqual([]);
  });

  it('throws UserDeclinedError (code USER_DECLINED) on decline', async () => {
    const t = await helperTool();
    const call = t.peer.client.callTool('wipe');
    (await t.peer.asks.next()).answer({ action: 'decline' });
    expect(await call).toEqual(toolText('The user declined: "Wipe everything?". Nothing was done.', true));
    expect(t.caught).toHaveLength(1);
    const error = t.caught[0] as UserDeclinedError;
    expect(error).toBeInstanceOf(UserDeclinedError);
    expect(error).toBeInstanceOf(ConfirmationError);
    expect([error.code, error.question, error.name]).toEqual(['USER_DECLINED', 'Wipe everything?', 'UserDeclinedError']);
    expect(t.proceeded()).toBe(0);
  });

  it('throws UserCancelledError (code USER_CANCELLED) on cancel', async () => {
    const t = await helperTool();
    const call = t.peer.client.callTool('wipe');
    (await t.peer.asks.next()).answer({ action: 'cancel' });
    expect(await callToolText(call)).toBe('The user dismissed the confirmation "Wipe everything?" without answering. Nothing was done.');
    const error = t.caught[0] as UserCancelledError;
    expect(error).toBeInstanceOf(UserCancelledError);
    expect([error.code, error.question, error.name]).toEqual(['USER_CANCELLED', 'Wipe everything?', 'UserCancelledError']);
    expect(t.proceeded()).toBe(0);
  });

  it('throws ElicitationFailedError (code ELICITATION_FAILED) wrapping a RequestTimeoutError as its cause', async () => {
    const t = await helperTool(60);
    const call = t.peer.client.callTool('wipe');
    await t.peer.asks.next();
    expect(await callToolText(call)).toBe(
      'Could not get a confirmation for "Wipe everything?": elicitation/create timed out after 60 ms without a reply; raise timeoutMs if a person has to answer it. Nothing was done.',
    );
    const error = t.caught[0] as ElicitationFailedError;
    expect(error).toBeInstanceOf(ElicitationFailedError);
    expect(error.code).toBe('ELICITATION_FAILED');
    expect(error.cause).toBeInstanceOf(RequestTimeoutError);
    expect(t.proceeded()).toBe(0);
  });

  it('lets a client error reply through as ElicitationFailedError text', async () => {
    // The client's handler fails: the client answers -32603 Internal error, and reports the failure locally.
    const failure = new Error('the confirmation dialog could not be shown');
    const t = await helperTool(undefined, {
      answer: () => {
        throw failure;
      },
    });
    const call = t.peer.client.callTool('wipe');
    expect(await callToolText(call)).toBe('Could not get a confirmation for "Wipe everything?": Internal error. Nothing was done.');
    expect(t.caught[0]).toBeInstanceOf(ElicitationFailedError);
    expect(t.peer.errors).toEqual([failure]);
  });
});
