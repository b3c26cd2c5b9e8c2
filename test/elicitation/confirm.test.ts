/** The confirmation gate: the `confirm` tool option and the `confirm(ctx, message)` helper. */
import { describe, expect, it } from 'vitest';
import {
  confirm,
  ConfirmationError,
  ElicitationFailedError,
  RequestTimeoutError,
  UserCanceledError,
  UserCancelledError,
  UserDeclinedError,
  type McpServer,
  type ToolConfig,
} from '../../src/index.js';
import { CAPS, callTool, responseLog, textResult, succeeded } from '../helpers/client-requests.js';
import { expectQuietAndAlive, useHarness } from '../helpers/session-harness.js';
import type { Json } from '../helpers/ws-client.js';

const h = useHarness();

const YES_NO = { type: 'object', properties: {} };

function confirmation(id: number, message: string) {
  return { jsonrpc: '2.0', id, method: 'elicitation/create', params: { message, requestedSchema: YES_NO } };
}

/** A server with a `delete` tool guarded by `confirm`; `runs` counts handler runs and their arguments. */
async function guarded(confirmOption: ToolConfig['confirm'], capabilities: Json = CAPS.form, serverOptions: Parameters<typeof h.start>[1] = {}) {
  const runs: Record<string, unknown>[] = [];
  const running = await h.start(
    (server: McpServer) =>
      server.registerTool(
        'delete',
        { inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] }, confirm: confirmOption },
        (args) => {
          runs.push(args);
          return `deleted ${String(args.path)}`;
        },
      ),
    serverOptions,
  );
  const log = responseLog(running.server, 'responseElicitationCreate');
  const { client, session } = await h.open(running, { capabilities });
  return { running, server: running.server, log, client, session, runs };
}

describe('the confirm tool option', () => {
  it('asks {message, requestedSchema: {type: "object", properties: {}}} and runs the tool on accept', async () => {
    const { log, client, session, runs } = await guarded('Delete the file?');
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
    const { client, runs } = await guarded('Delete the file?');
    const call = callTool(client, 'delete', { path: '/tmp/b' });
    await client.nextMessage('elicitation/create');
    client.respond(0, { action: 'accept', content: {} });
    expect(await call).toEqual(textResult('call-delete', 'deleted /tmp/b'));
    expect(runs).toHaveLength(1);
  });

  it('answers decline with an isError result saying nothing was done, without running the handler', async () => {
    const { client, runs } = await guarded('Delete the file?');
    const call = callTool(client, 'delete', { path: '/tmp/a' });
    await client.nextMessage('elicitation/create');
    client.respond(0, { action: 'decline' });
    expect(await call).toEqual(textResult('call-delete', 'The user declined: "Delete the file?". Nothing was done.', true));
    expect(runs).toEqual([]);
    await expectQuietAndAlive(client);
  });

  it('answers cancel with the UserCancelledError text, without running the handler', async () => {
    const { client, runs } = await guarded('Delete the file?');
    const call = callTool(client, 'delete', { path: '/tmp/a' });
    await client.nextMessage('elicitation/create');
    client.respond(0, { action: 'cancel' });
    expect(await call).toEqual(textResult('call-delete', new UserCancelledError('Delete the file?').message, true));
    expect(await callToolText(call)).toBe('The user dismissed the confirmation "Delete the file?" without answering. Nothing was done.');
    expect(runs).toEqual([]);
  });

  it.each([
    ['no elicitation capability', CAPS.none],
    ['only URL-mode elicitation', CAPS.url],
  ])('answers a client with %s with the ElicitationNotSupportedError message and asks nothing', async (_name, capabilities) => {
    const { log, client, runs } = await guarded('Delete the file?', capabilities);
    expect(await callTool(client, 'delete', { path: '/tmp/a' })).toEqual(
      textResult(
        'call-delete',
        'The client did not declare form-mode elicitation (capabilities.elicitation.form); ask another way, or use url mode if it declared that',
        true,
      ),
    );
    expect(runs).toEqual([]);
    expect(log.all).toHaveLength(0);
    await expectQuietAndAlive(client);
  });

  it('works for a client that declared elicitation: {}', async () => {
    const { client, runs } = await guarded('Delete the file?', CAPS.legacyElicitation);
    const call = callTool(client, 'delete', { path: '/x' });
    expect(await client.nextMessage('elicitation/create')).toStrictEqual(confirmation(0, 'Delete the file?'));
    client.respond(0, { action: 'accept' });
    expect(await call).toEqual(textResult('call-delete', 'deleted /x'));
    expect(runs).toHaveLength(1);
  });

  it('answers an action outside accept, decline and cancel with the UnexpectedElicitActionError message', async () => {
    const { client, runs, server } = await guarded('Delete the file?');
    const call = callTool(client, 'delete', { path: '/tmp/a' });
    await client.nextMessage('elicitation/create');
    client.respond(0, { action: 'yes' });
    expect(await call).toEqual(textResult('call-delete', 'The client answered elicitation/create with action "yes"; expected accept, decline or cancel', true));
    expect(runs).toEqual([]);
    expect(server.stats.invalidResults).toBe(1);
  });

  it('answers a client error reply with the ElicitationFailedError text', async () => {
    const { client, runs } = await guarded('Delete the file?');
    const call = callTool(client, 'delete', { path: '/tmp/a' });
    await client.nextMessage('elicitation/create');
    client.respondError(0, -32601, 'Method not found');
    expect(await call).toEqual(textResult('call-delete', 'Could not get a confirmation for "Delete the file?": Method not found. Nothing was done.', true));
    expect(runs).toEqual([]);
  });

  it('answers a timeout with the ElicitationFailedError text, and cancels the elicitation on the client', async () => {
    const { client, runs } = await guarded('Delete the file?', CAPS.form, { server: { elicitationTimeoutMs: 80 } });
    const call = callTool(client, 'delete', { path: '/tmp/a' });
    await client.nextMessage('elicitation/create');
    expect(await call).toEqual(
      textResult(
        'call-delete',
        'Could not get a confirmation for "Delete the file?": elicitation/create timed out after 80 ms without a reply; raise timeoutMs if a person has to answer it. Nothing was done.',
        true,
      ),
    );
    expect(await client.nextMessage('notifications/cancelled')).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 0, reason: 'timed out after 80 ms' },
    });
    expect(runs).toEqual([]);
  });

  it('answers accept with content that is not an object with the ElicitationFailedError text', async () => {
    const { client, runs } = await guarded('Delete the file?');
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
    const { client, runs } = await guarded((args) => {
      seen.push(args);
      return `Delete ${String(args.path)}?`;
    });
    const call = callTool(client, 'delete', { path: '/etc/hosts' });
    expect(await client.nextMessage('elicitation/create')).toStrictEqual(confirmation(0, 'Delete /etc/hosts?'));
    client.respond(0, { action: 'decline' });
    expect(await call).toEqual(textResult('call-delete', 'The user declined: "Delete /etc/hosts?". Nothing was done.', true));
    expect(seen).toEqual([{ path: '/etc/hosts' }]);
    expect(runs).toEqual([]);
  });

  it('asks again on every call', async () => {
    const { client, runs } = await guarded((args) => `Delete ${String(args.path)}?`);
    const first = callTool(client, 'delete', { path: '/a' }, 1);
    expect(await client.nextMessage('elicitation/create')).toStrictEqual(confirmation(0, 'Delete /a?'));
    client.respond(0, { action: 'accept' });
    expect(await first).toEqual(textResult(1, 'deleted /a'));
    const second = callTool(client, 'delete', { path: '/b' }, 2);
    expect(await client.nextMessage('elicitation/create')).toStrictEqual(confirmation(1, 'Delete /b?'));
    client.respond(1, { action: 'accept' });
    expect(await second).toEqual(textResult(2, 'deleted /b'));
    expect(runs).toEqual([{ path: '/a' }, { path: '/b' }]);
  });

  it('does not ask for a confirmation when the arguments are invalid', async () => {
    const { log, client, runs } = await guarded('Delete the file?');
    const reply = await callTool(client, 'delete', { path: 7 });
    expect(reply.result.isError).toBe(true);
    expect(reply.result.content[0].text).toMatch(/^Invalid arguments for tool delete: /);
    expect(runs).toEqual([]);
    expect(log.all).toHaveLength(0);
    await expectQuietAndAlive(client);
  });

  it('does not put confirm into the tool descriptor', async () => {
    const { client } = await guarded('Delete the file?');
    const listed = await client.request('tools/list', {});
    expect(listed.result.tools).toEqual([{ name: 'delete', inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } }]);
  });

  it('rejects a confirm option that is neither a message nor a function at registration', async () => {
    const running = await h.start();
    expect(() => running.server.registerTool('x', { confirm: 5 as unknown as string }, () => 'ok')).toThrow(
      new TypeError("Tool 'x': confirm must be a message or a function of the arguments that returns one"),
    );
  });
});

/** The text of a tools/call reply's single content block. */
async function callToolText(reply: Promise<Json>): Promise<string> {
  return (await reply).result.content[0].text as string;
}

describe('the confirm(ctx, message) helper', () => {
  /** A tool that calls confirm() itself and reports what happened. */
  async function helperTool(capabilities: Json = CAPS.form, timeoutMs?: number) {
    const caught: unknown[] = [];
    let proceeded = 0;
    const running = await h.start((server) =>
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
    const { client } = await h.open(running, { capabilities });
    return { client, caught, proceeded: () => proceeded };
  }

  it('resolves on accept so the work goes ahead', async () => {
    const t = await helperTool();
    const call = callTool(t.client, 'wipe');
    expect(await t.client.nextMessage('elicitation/create')).toStrictEqual(confirmation(0, 'Wipe everything?'));
    t.client.respond(0, { action: 'accept' });
    expect(await call).toEqual(textResult('call-wipe', 'wiped'));
    expect(t.proceeded()).toBe(1);
    expect(t.caught).toEqual([]);
  });

  it('throws UserDeclinedError (code USER_DECLINED) on decline', async () => {
    const t = await helperTool();
    const call = callTool(t.client, 'wipe');
    await t.client.nextMessage('elicitation/create');
    t.client.respond(0, { action: 'decline' });
    expect(await call).toEqual(textResult('call-wipe', 'The user declined: "Wipe everything?". Nothing was done.', true));
    expect(t.caught).toHaveLength(1);
    const error = t.caught[0] as UserDeclinedError;
    expect(error).toBeInstanceOf(UserDeclinedError);
    expect(error).toBeInstanceOf(ConfirmationError);
    expect([error.code, error.question, error.name]).toEqual(['USER_DECLINED', 'Wipe everything?', 'UserDeclinedError']);
    expect(t.proceeded()).toBe(0);
  });

  it('throws UserCancelledError (code USER_CANCELLED) on cancel; the deprecated name UserCanceledError is the same class', async () => {
    const t = await helperTool();
    const call = callTool(t.client, 'wipe');
    await t.client.nextMessage('elicitation/create');
    t.client.respond(0, { action: 'cancel' });
    expect(await callToolText(call)).toBe('The user dismissed the confirmation "Wipe everything?" without answering. Nothing was done.');
    const error = t.caught[0] as UserCancelledError;
    expect(error).toBeInstanceOf(UserCancelledError);
    expect(error).toBeInstanceOf(UserCanceledError);
    expect(UserCanceledError).toBe(UserCancelledError);
    expect([error.code, error.question, error.name]).toEqual(['USER_CANCELLED', 'Wipe everything?', 'UserCancelledError']);
    expect(t.proceeded()).toBe(0);
  });

  it('throws ElicitationFailedError (code ELICITATION_FAILED) wrapping a RequestTimeoutError as its cause', async () => {
    const t = await helperTool(CAPS.form, 60);
    const call = callTool(t.client, 'wipe');
    await t.client.nextMessage('elicitation/create');
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
    const t = await helperTool();
    const call = callTool(t.client, 'wipe');
    await t.client.nextMessage('elicitation/create');
    t.client.respondError(0, -32602, 'Bad schema');
    expect(await callToolText(call)).toBe('Could not get a confirmation for "Wipe everything?": Bad schema. Nothing was done.');
    expect(t.caught[0]).toBeInstanceOf(ElicitationFailedError);
  });
});
