import { CreateMessageRequestSchema, ElicitationCompleteNotificationSchema, ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { SEP1034_SCHEMA, SEP1330_SCHEMA } from '../../conformance/fixture-catalog.js';
import { ElicitationNotSupportedError, type ElicitParams, type McpServer, type McpSession } from '../../src/index.js';
import { expectMcpError, thrownBy, toolText as text } from '../helpers/client-requests.js';
import { send } from '../helpers/http-client.js';
import { RecordingEventStore, standaloneOpen, stored, useHttpSessions } from '../helpers/http-streams.js';
import { answerElicitations, elicitingTool, NO_ARGS } from '../helpers/sdk-peer.js';
import { nextEvent, recordEvents } from '../helpers/server-events.js';
import { deferred } from '../helpers/deferred.js';
import { startHttp, type RunningHttp } from '../helpers/servers.js';
import { useCleanups } from '../helpers/cleanups.js';

const cleanups = useCleanups();
const h = useHttpSessions(cleanups);

const CONTACT_SCHEMA = {
  type: 'object',
  properties: {
    name: { type: 'string', title: 'Name', minLength: 1 },
    email: { type: 'string', format: 'email' },
  },
  required: ['name', 'email'],
} as const;
const ASK_CONTACT: ElicitParams = { message: 'Who should we contact?', requestedSchema: structuredClone(CONTACT_SCHEMA) as never };
const CONNECT: ElicitParams = {
  mode: 'url',
  message: 'Connect your Example account',
  url: 'https://auth.example.com/connect?state=abc',
  elicitationId: 'connect-1',
};
const FORM_AND_URL = { capabilities: { elicitation: { form: {}, url: {} } } };

/** Start a server whose transport records events in a RecordingEventStore. */
async function start(setup?: (server: McpServer) => void, retryMs?: number): Promise<RunningHttp & { store: RecordingEventStore }> {
  const store = new RecordingEventStore();
  const running = await startHttp(cleanups, setup, { transport: { eventStore: store, retryMs } });
  return { ...running, store };
}

function elicitRequest(id: number, params: ElicitParams): Record<string, unknown> {
  return { jsonrpc: '2.0', id, method: 'elicitation/create', params };
}

describe('form elicitation', () => {
  it("ctx.elicit reaches the SDK handler on the call's own stream (not the open GET stream) and the tool gets the answer", async () => {
    const running = await start(elicitingTool('ask_contact', ASK_CONTACT));
    const events = recordEvents(running.server, 'responseElicitationCreate');
    const content = { name: 'Ada', email: 'ada@example.com' };
    const { seen, setup } = answerElicitations({ action: 'accept', content });
    const { client, session } = await h.sdk(running, { capabilities: { elicitation: {} } }, setup);
    await standaloneOpen(running, session);
    expect(session.protocolVersion).toBe('2025-11-25');

    const expected = text(`action=accept content=${JSON.stringify(content)}`);
    expect(await client.callTool({ name: 'ask_contact' })).toEqual(expected);
    expect(seen).toEqual([ASK_CONTACT]);
    expect(events).toEqual([[session, elicitRequest(0, ASK_CONTACT), { isError: false, action: 'accept', content }]]);
    // initialize was POST stream 1; the call is stream 2, and it carried the elicitation, then the result.
    expect(running.store.eventsOf(session.id, '2')).toEqual([
      stored('2_1', elicitRequest(0, ASK_CONTACT)),
      stored('2_2', { jsonrpc: '2.0', id: 1, result: expected }),
    ]);
    expect(running.store.eventsOf(session.id, '0')).toEqual([]);
  });

  describe('SEP-1330 enums', () => {
    const ASK_ENUMS: ElicitParams = { mode: 'form', message: 'Choose', requestedSchema: structuredClone(SEP1330_SCHEMA) as never };
    const ENUM_ANSWER = {
      untitledSingle: 'option2',
      titledSingle: 'value3',
      legacyEnum: 'opt1',
      untitledMulti: ['option1', 'option3'],
      titledMulti: ['value2'],
    };

    it('sends all five enum forms unchanged over HTTP and the tool gets the single- and multi-select answer', async () => {
      const running = await start(elicitingTool('choose', ASK_ENUMS));
      const events = recordEvents(running.server, 'responseElicitationCreate');
      const { seen, setup } = answerElicitations({ action: 'accept', content: ENUM_ANSWER });
      const { client, session } = await h.sdk(running, { capabilities: { elicitation: {} } }, setup);

      expect(await client.callTool({ name: 'choose' })).toEqual(text(`action=accept content=${JSON.stringify(ENUM_ANSWER)}`));
      expect(seen).toEqual([{ mode: 'form', message: 'Choose', requestedSchema: SEP1330_SCHEMA }]);
      expect(events).toEqual([[session, elicitRequest(0, ASK_ENUMS), { isError: false, action: 'accept', content: ENUM_ANSWER }]]);
    });

    it('rejects an answer outside an enum with ElicitationValidationError, which the tool reports as isError', async () => {
      const running = await start(elicitingTool('choose', ASK_ENUMS));
      const { setup } = answerElicitations({ action: 'accept', content: { ...ENUM_ANSWER, untitledSingle: 'option9' } });
      const { client } = await h.sdk(running, { capabilities: { elicitation: {} } }, setup);

      expect(await client.callTool({ name: 'choose' })).toEqual(
        text('The elicitation answer does not match requestedSchema: untitledSingle must be equal to one of the allowed values', true),
      );
    });
  });

  describe('SEP-1034 defaults', () => {
    const ASK_DEFAULTS: ElicitParams = { mode: 'form', message: 'Review your profile', requestedSchema: structuredClone(SEP1034_SCHEMA) as never };

    it('with form.applyDefaults the tool gets the content the SDK completed from the schema defaults', async () => {
      const running = await start(elicitingTool('profile', ASK_DEFAULTS));
      const events = recordEvents(running.server, 'responseElicitationCreate');
      const { seen, setup } = answerElicitations({ action: 'accept', content: { name: 'Jane Smith' } });
      const { client, session } = await h.sdk(running, { capabilities: { elicitation: { form: { applyDefaults: true } } } }, setup);

      const filled = { name: 'Jane Smith', age: 30, score: 95.5, status: 'active', verified: true };
      expect(session.clientCapabilities.elicitation).toEqual({ form: { applyDefaults: true } });
      expect(await client.callTool({ name: 'profile' })).toEqual(text(`action=accept content=${JSON.stringify(filled)}`));
      expect(seen).toEqual([{ mode: 'form', message: 'Review your profile', requestedSchema: SEP1034_SCHEMA }]);
      expect(events).toEqual([[session, elicitRequest(0, ASK_DEFAULTS), { isError: false, action: 'accept', content: filled }]]);
    });
  });

  it.each(['decline', 'cancel'] as const)('hands a %s to the tool with no content', async (action) => {
    const running = await start(elicitingTool('ask_contact', ASK_CONTACT));
    const events = recordEvents(running.server, 'responseElicitationCreate');
    const { setup } = answerElicitations({ action });
    const { client, session } = await h.sdk(running, { capabilities: { elicitation: {} } }, setup);

    expect(await client.callTool({ name: 'ask_contact' })).toEqual(text(`action=${action} content=null`));
    expect(events).toEqual([[session, elicitRequest(0, ASK_CONTACT), { isError: false, action }]]);
  });

  it('a client that declares no elicitation: the tool gets ElicitationNotSupportedError as isError, and requestElicitationCreate throws it', async () => {
    const running = await start(elicitingTool('ask_contact', ASK_CONTACT));
    const events = recordEvents(running.server, 'responseElicitationCreate');
    const { client, session } = await h.sdk(running, { capabilities: { sampling: {} } });
    await standaloneOpen(running, session);

    const message = 'The client did not declare form-mode elicitation (capabilities.elicitation.form); ask another way, or use url mode if it declared that';
    expect(await client.callTool({ name: 'ask_contact' })).toEqual(text(message, true));
    expectMcpError(
      thrownBy(() => running.server.requestElicitationCreate(session, ASK_CONTACT)),
      ElicitationNotSupportedError,
      { code: -32021, message, data: { requiredCapabilities: { elicitation: { form: {} } } } },
    );
    await client.ping();
    expect(events).toEqual([]);
    expect(running.store.appended.filter((e) => JSON.parse(e.event.data).method === 'elicitation/create')).toEqual([]);
  });
});

describe('URL elicitation', () => {
  it('the tool gets the accept, and sendElicitationComplete reaches the SDK completion handler on the GET stream', async () => {
    const running = await start(elicitingTool('connect_account', CONNECT));
    const events = recordEvents(running.server, 'responseElicitationCreate');
    const { seen, setup } = answerElicitations({ action: 'accept' });
    const completed = deferred<unknown>();
    const { client, session } = await h.sdk(running, FORM_AND_URL, (c) => {
      setup(c);
      c.setNotificationHandler(ElicitationCompleteNotificationSchema, (n) => completed.resolve(n));
    });
    await standaloneOpen(running, session);

    expect(await client.callTool({ name: 'connect_account' })).toEqual(text('action=accept content=null'));
    expect(seen).toEqual([CONNECT]);
    expect(events).toEqual([[session, elicitRequest(0, CONNECT), { isError: false, action: 'accept' }]]);
    expect(running.store.streamOf((m) => m.method === 'elicitation/create')).toBe('2');

    expect(running.server.sendElicitationComplete(session, 'connect-1')).toBe(true);
    expect(await completed.promise).toEqual({ method: 'notifications/elicitation/complete', params: { elicitationId: 'connect-1' } });
    expect(running.store.eventsOf(session.id, '0')).toEqual([
      stored('0_1', { jsonrpc: '2.0', method: 'notifications/elicitation/complete', params: { elicitationId: 'connect-1' } }),
    ]);
  });
});

describe('a server request unrelated to any call', () => {
  it('server.requestElicitationCreate reaches the SDK handler on its GET stream, and the answer fires responseElicitationCreate', async () => {
    const running = await start();
    const content = { name: 'Grace', email: 'grace@example.com' };
    const { seen, setup } = answerElicitations({ action: 'accept', content });
    const { session } = await h.sdk(running, { capabilities: { elicitation: {} } }, setup);
    await standaloneOpen(running, session);

    const ended = nextEvent<[McpSession, unknown, unknown]>(running.server, 'responseElicitationCreate');
    const id = running.server.requestElicitationCreate(session, ASK_CONTACT);
    expect(id).toBe(0);
    expect(await ended).toEqual([session, elicitRequest(0, ASK_CONTACT), { isError: false, action: 'accept', content }]);
    expect(seen).toEqual([ASK_CONTACT]);
    expect(running.store.eventsOf(session.id, '0')).toEqual([stored('0_1', elicitRequest(0, ASK_CONTACT))]);
    expect(session.pendingRequests).toBe(0);
  });
});

describe('sampling and roots', () => {
  it("ctx.createMessage reaches the SDK sampling handler on the call's stream and the tool gets its result", async () => {
    const ASK_MODEL = {
      messages: [{ role: 'user' as const, content: { type: 'text', text: 'Name a colour' } }],
      maxTokens: 20,
      systemPrompt: 'Answer in one word',
    };
    const running = await start((server) =>
      server.registerTool('colour', { description: 'Asks the model', inputSchema: NO_ARGS }, async (_args, ctx) => {
        const result = await ctx.createMessage(ASK_MODEL);
        return `${result.model}: ${(result.content as { text?: string }).text}`;
      }),
    );
    const events = recordEvents(running.server, 'responseSamplingCreateMessage');
    const seen: unknown[] = [];
    const answer = { role: 'assistant' as const, content: { type: 'text' as const, text: 'Teal' }, model: 'test-model', stopReason: 'endTurn' };
    const { client, session } = await h.sdk(running, { capabilities: { sampling: {} } }, (c) =>
      c.setRequestHandler(CreateMessageRequestSchema, async (request) => {
        seen.push(request.params);
        return answer;
      }),
    );

    expect(await client.callTool({ name: 'colour' })).toEqual(text('test-model: Teal'));
    expect(seen).toEqual([ASK_MODEL]);
    const request = { jsonrpc: '2.0', id: 0, method: 'sampling/createMessage', params: ASK_MODEL };
    expect(events).toEqual([[session, request, { isError: false, ...answer }]]);
    expect(running.store.streamOf((m) => m.method === 'sampling/createMessage')).toBe('2');
  });

  it("ctx.listRoots reaches the SDK roots handler on the call's stream and the tool gets the roots", async () => {
    const ROOTS = [{ uri: 'file:///home/ada/project', name: 'project' }, { uri: 'file:///tmp' }];
    const running = await start((server) =>
      server.registerTool('roots', { description: 'Lists the client roots', inputSchema: NO_ARGS }, async (_args, ctx) =>
        JSON.stringify((await ctx.listRoots()).roots),
      ),
    );
    const events = recordEvents(running.server, 'responseRootsList');
    const { client, session } = await h.sdk(running, { capabilities: { roots: { listChanged: true } } }, (c) =>
      c.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: ROOTS })),
    );

    expect(await client.callTool({ name: 'roots' })).toEqual(text(JSON.stringify(ROOTS)));
    expect(events).toEqual([[session, { jsonrpc: '2.0', id: 0, method: 'roots/list', params: {} }, { isError: false, roots: ROOTS }]]);
    expect(running.store.streamOf((m) => m.method === 'roots/list')).toBe('2');
  });
});

describe('streams and sessions', () => {
  it('after ctx.closeStream() the SDK resumes with GET and Last-Event-ID, answers the elicitation sent meanwhile, and gets the result', async () => {
    const seenClosed: boolean[] = [];
    const running = await start(
      (server) =>
        server.registerTool('poll', { description: 'Closes its stream, then elicits', inputSchema: NO_ARGS }, async (_args, ctx) => {
          seenClosed.push(ctx.closeStream());
          const answer = await ctx.elicit(ASK_CONTACT);
          return `action=${answer.action}`;
        }),
      20,
    );
    const { seen, setup } = answerElicitations({ action: 'decline' });
    const { client, session } = await h.sdk(running, { capabilities: { elicitation: {} } }, setup);

    expect(await client.callTool({ name: 'poll' })).toEqual(text('action=decline'));
    expect(seenClosed).toEqual([true]);
    expect(seen).toEqual([ASK_CONTACT]);
    expect(running.store.replays).toEqual([[session.id, '2', '2_0']]);
    expect(running.store.eventsOf(session.id, '2')).toEqual([
      stored('2_1', elicitRequest(0, ASK_CONTACT)),
      stored('2_2', { jsonrpc: '2.0', id: 1, result: text('action=decline') }),
    ]);
  });

  it("the SDK's terminateSession() sends DELETE, which ends the session: sessionEnd fires and the session id is gone", async () => {
    const running = await start();
    const { transport, session } = await h.sdk(running, { capabilities: { elicitation: {} } });
    await standaloneOpen(running, session);
    const ended = nextEvent<[McpSession, string]>(running.server, 'sessionEnd');

    await transport.terminateSession();
    expect(await ended).toEqual([session, 'deleted by the client']);
    expect(transport.sessionId).toBeUndefined();
    expect(session.state).toBe('closed');
    expect(running.server.sessions.has(session.id)).toBe(false);
    expect(running.store.dropped).toEqual([session.id]);
    const after = await send(running.url, 'GET', { accept: 'text/event-stream', 'mcp-session-id': session.id });
    expect(after.status).toBe(404);
  });
});
