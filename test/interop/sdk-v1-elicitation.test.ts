/**
 * Elicitation, sampling and roots against the official SDK v1 client over WebSocket: what the SDK's
 * handlers see, what the tools get back, and the one response event the server emits per request.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  CreateMessageRequestSchema,
  ElicitationCompleteNotificationSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  McpError as SdkMcpError,
  UrlElicitationRequiredError as SdkUrlElicitationRequiredError,
  type ElicitResult as SdkElicitResult,
} from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { SEP1034_SCHEMA, SEP1330_SCHEMA } from '../../conformance/fixture-catalog.js';
import {
  ElicitationNotSupportedError,
  McpError,
  SamplingNotSupportedError,
  UrlElicitationRequiredError,
  type ElicitParams,
  type McpServer,
  type McpSession,
  type RequestContext,
} from '../../src/index.js';
import { toolText as text } from '../helpers/client-requests.js';
import { answerElicitations, elicitingTool, NO_ARGS, useSdkPeers } from '../helpers/sdk-peer.js';
import { nextEvent, recordEvents, recordOutgoing } from '../helpers/server-events.js';
import { deferred } from '../helpers/deferred.js';
import { WsTestClient } from '../helpers/ws-client.js';
import { startWebSocket } from '../helpers/servers.js';
import { useCleanups } from '../helpers/cleanups.js';

const cleanups = useCleanups();
const h = useSdkPeers(cleanups);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const FORM_AND_URL = { capabilities: { elicitation: { form: {}, url: {} } } };

const CONTACT_SCHEMA = {
  type: 'object',
  properties: {
    name: { type: 'string', title: 'Name', minLength: 1 },
    email: { type: 'string', format: 'email' },
    age: { type: 'integer', minimum: 18 },
  },
  required: ['name', 'email'],
} as const;
const ASK_CONTACT: ElicitParams = { message: 'Who should we contact?', requestedSchema: structuredClone(CONTACT_SCHEMA) as never };

describe('form mode', () => {
  it('delivers exactly the params the server sent to the SDK handler and returns the validated answer to the tool', async () => {
    const running = await startWebSocket(cleanups, elicitingTool('ask_contact', ASK_CONTACT));
    const events = recordEvents(running.server, 'responseElicitationCreate');
    const { seen, setup } = answerElicitations({ action: 'accept', content: { name: 'Ada', email: 'ada@example.com', age: 36 } });
    const { client, session } = await h.connect(running, { capabilities: { elicitation: {} } }, setup);

    expect(await client.callTool({ name: 'ask_contact' })).toEqual(text('action=accept content={"name":"Ada","email":"ada@example.com","age":36}'));
    expect(seen).toEqual([{ message: 'Who should we contact?', requestedSchema: CONTACT_SCHEMA }]);
    expect(events).toEqual([
      [
        session,
        { jsonrpc: '2.0', id: 0, method: 'elicitation/create', params: { message: 'Who should we contact?', requestedSchema: CONTACT_SCHEMA } },
        { isError: false, action: 'accept', content: { name: 'Ada', email: 'ada@example.com', age: 36 } },
      ],
    ]);
    expect(events[0][0]).toBe(session);
    expect(seen[0]).toEqual(events[0][1].params);
    expect(running.server.stats.invalidResults).toBe(0);
  });

  it('rejects accepted content that breaks requestedSchema with ElicitationValidationError (-32602) naming each property', async () => {
    const running = await startWebSocket(cleanups, elicitingTool('ask_contact', ASK_CONTACT));
    const events = recordEvents(running.server, 'responseElicitationCreate');
    const { setup } = answerElicitations({ action: 'accept', content: { name: '', email: 'not-an-email', age: 12 } });
    const { client, session } = await h.connect(running, { capabilities: { elicitation: {} } }, setup);

    const message =
      'The elicitation answer does not match requestedSchema: name must NOT have fewer than 1 characters; email must match format "email"; age must be >= 18';
    expect(await client.callTool({ name: 'ask_contact' })).toEqual(text(message, true));
    expect(events).toEqual([
      [
        session,
        { jsonrpc: '2.0', id: 0, method: 'elicitation/create', params: ASK_CONTACT },
        {
          isError: true,
          errorCode: -32602,
          errorMessage: message,
          errorData: {
            violations: [
              { property: 'name', rule: 'minLength', message: 'must NOT have fewer than 1 characters' },
              { property: 'email', rule: 'format', message: 'must match format "email"' },
              { property: 'age', rule: 'minimum', message: 'must be >= 18' },
            ],
          },
        },
      ],
    ]);
    expect(running.server.stats.invalidResults).toBe(1);
  });

  it('rejects an accept that leaves out a required property', async () => {
    const running = await startWebSocket(cleanups, elicitingTool('ask_contact', ASK_CONTACT));
    const events = recordEvents(running.server, 'responseElicitationCreate');
    const { setup } = answerElicitations({ action: 'accept', content: { name: 'Ada' } });
    const { client } = await h.connect(running, { capabilities: { elicitation: {} } }, setup);

    const message = "The elicitation answer does not match requestedSchema: email must have required property 'email'";
    expect(await client.callTool({ name: 'ask_contact' })).toEqual(text(message, true));
    expect(events.map(([, , response]) => response)).toEqual([
      {
        isError: true,
        errorCode: -32602,
        errorMessage: message,
        errorData: { violations: [{ property: 'email', rule: 'required', message: "must have required property 'email'" }] },
      },
    ]);
  });

  it('server.requestElicitationCreate returns the id it sent and reports the answer in one responseElicitationCreate event', async () => {
    const running = await startWebSocket(cleanups);
    const { seen, setup } = answerElicitations({ action: 'accept', content: { colour: 'green' } });
    const { session } = await h.connect(running, { capabilities: { elicitation: {} } }, setup);
    const params: ElicitParams = {
      message: 'Pick a colour',
      requestedSchema: { type: 'object', properties: { colour: { type: 'string', enum: ['red', 'green'] } }, required: ['colour'] },
    };

    const ended = nextEvent<[McpSession, unknown, unknown]>(running.server, 'responseElicitationCreate');
    const id = running.server.requestElicitationCreate(session, params);
    expect(id).toBe(0);
    expect(await ended).toEqual([
      session,
      { jsonrpc: '2.0', id: 0, method: 'elicitation/create', params },
      { isError: false, action: 'accept', content: { colour: 'green' } },
    ]);
    expect(seen).toEqual([params]);
  });
});

describe('SEP-1330 enums', () => {
  const ENUM_ANSWER = { untitledSingle: 'option2', titledSingle: 'value3', legacyEnum: 'opt1', untitledMulti: ['option1', 'option3'], titledMulti: ['value2'] };
  const ASK_ENUMS: ElicitParams = { mode: 'form', message: 'Choose', requestedSchema: structuredClone(SEP1330_SCHEMA) as never };

  it('sends all five enum forms unchanged and accepts single- and multi-select answers', async () => {
    const running = await startWebSocket(cleanups, elicitingTool('choose', ASK_ENUMS));
    const events = recordEvents(running.server, 'responseElicitationCreate');
    const { seen, setup } = answerElicitations({ action: 'accept', content: ENUM_ANSWER });
    const { client, session } = await h.connect(running, { capabilities: { elicitation: {} } }, setup);

    expect(await client.callTool({ name: 'choose' })).toEqual(text(`action=accept content=${JSON.stringify(ENUM_ANSWER)}`));
    expect(seen).toEqual([{ mode: 'form', message: 'Choose', requestedSchema: SEP1330_SCHEMA }]);
    const properties = seen[0].mode === 'form' ? seen[0].requestedSchema.properties : {};
    expect(properties.untitledSingle).toEqual({ type: 'string', description: 'Select one option', enum: ['option1', 'option2', 'option3'] });
    expect(properties.titledSingle).toMatchObject({
      type: 'string',
      oneOf: [
        { const: 'value1', title: 'First Option' },
        { const: 'value2', title: 'Second Option' },
        { const: 'value3', title: 'Third Option' },
      ],
    });
    expect(properties.legacyEnum).toMatchObject({ type: 'string', enum: ['opt1', 'opt2', 'opt3'], enumNames: ['Option One', 'Option Two', 'Option Three'] });
    expect(properties.untitledMulti).toMatchObject({ type: 'array', items: { type: 'string', enum: ['option1', 'option2', 'option3'] } });
    expect(properties.titledMulti).toMatchObject({
      type: 'array',
      items: {
        anyOf: [
          { const: 'value1', title: 'First Choice' },
          { const: 'value2', title: 'Second Choice' },
          { const: 'value3', title: 'Third Choice' },
        ],
      },
    });
    expect(events).toEqual([
      [session, { jsonrpc: '2.0', id: 0, method: 'elicitation/create', params: ASK_ENUMS }, { isError: false, action: 'accept', content: ENUM_ANSWER }],
    ]);
  });

  it('rejects a value outside an enum and a multi-select with fewer items than minItems', async () => {
    const running = await startWebSocket(cleanups, elicitingTool('choose', ASK_ENUMS));
    const events = recordEvents(running.server, 'responseElicitationCreate');
    const { setup } = answerElicitations({ action: 'accept', content: { ...ENUM_ANSWER, untitledSingle: 'option9', untitledMulti: [] } });
    const { client } = await h.connect(running, { capabilities: { elicitation: {} } }, setup);

    const message =
      'The elicitation answer does not match requestedSchema: untitledSingle must be equal to one of the allowed values; untitledMulti must NOT have fewer than 1 items';
    expect(await client.callTool({ name: 'choose' })).toEqual(text(message, true));
    expect(events.map(([, , response]) => response)).toEqual([
      {
        isError: true,
        errorCode: -32602,
        errorMessage: message,
        errorData: {
          violations: [
            { property: 'untitledSingle', rule: 'enum', message: 'must be equal to one of the allowed values' },
            { property: 'untitledMulti', rule: 'minItems', message: 'must NOT have fewer than 1 items' },
          ],
        },
      },
    ]);
  });
});

describe('SEP-1034 defaults', () => {
  const ASK_DEFAULTS: ElicitParams = { mode: 'form', message: 'Review your profile', requestedSchema: structuredClone(SEP1034_SCHEMA) as never };

  it('sends every default, and with form.applyDefaults receives the content the SDK filled in', async () => {
    const running = await startWebSocket(cleanups, elicitingTool('profile', ASK_DEFAULTS));
    const events = recordEvents(running.server, 'responseElicitationCreate');
    const { seen, setup } = answerElicitations({ action: 'accept', content: { name: 'Jane Smith' } });
    const { client, session } = await h.connect(running, { capabilities: { elicitation: { form: { applyDefaults: true } } } }, setup);

    const filled = { name: 'Jane Smith', age: 30, score: 95.5, status: 'active', verified: true };
    expect(await client.callTool({ name: 'profile' })).toEqual(text(`action=accept content=${JSON.stringify(filled)}`));
    expect(seen).toEqual([{ mode: 'form', message: 'Review your profile', requestedSchema: SEP1034_SCHEMA }]);
    const properties = seen[0].mode === 'form' ? seen[0].requestedSchema.properties : {};
    expect(Object.fromEntries(Object.entries(properties).map(([key, p]) => [key, (p as { default?: unknown }).default]))).toEqual({
      name: 'John Doe',
      age: 30,
      score: 95.5,
      status: 'active',
      verified: true,
    });
    expect(events).toEqual([
      [session, { jsonrpc: '2.0', id: 0, method: 'elicitation/create', params: ASK_DEFAULTS }, { isError: false, action: 'accept', content: filled }],
    ]);
  });

  it('without applyDefaults receives the partial content exactly as the handler returned it', async () => {
    const running = await startWebSocket(cleanups, elicitingTool('profile', ASK_DEFAULTS));
    const events = recordEvents(running.server, 'responseElicitationCreate');
    const { setup } = answerElicitations({ action: 'accept', content: { name: 'Jane Smith' } });
    const { client } = await h.connect(running, { capabilities: { elicitation: { form: {} } } }, setup);

    expect(await client.callTool({ name: 'profile' })).toEqual(text('action=accept content={"name":"Jane Smith"}'));
    expect(events.map(([, , response]) => response)).toEqual([{ isError: false, action: 'accept', content: { name: 'Jane Smith' } }]);
  });
});

describe('URL mode', () => {
  const CONNECT: ElicitParams = {
    mode: 'url',
    message: 'Connect your Example account',
    url: 'https://auth.example.com/connect?state=abc',
    elicitationId: 'connect-1',
  };

  it('sends mode url with url and elicitationId, and sendElicitationComplete reaches the SDK completion handler with that id', async () => {
    const running = await startWebSocket(cleanups, elicitingTool('connect_account', CONNECT));
    const events = recordEvents(running.server, 'responseElicitationCreate');
    const { seen, setup } = answerElicitations({ action: 'accept' });
    const completions: unknown[] = [];
    const { client, session } = await h.connect(running, FORM_AND_URL, (c) => {
      setup(c);
      c.setNotificationHandler(ElicitationCompleteNotificationSchema, (n) => void completions.push(n));
    });

    expect(await client.callTool({ name: 'connect_account' })).toEqual(text('action=accept content=null'));
    expect(seen).toEqual([CONNECT]);
    expect(events).toEqual([[session, { jsonrpc: '2.0', id: 0, method: 'elicitation/create', params: CONNECT }, { isError: false, action: 'accept' }]]);

    expect(completions).toEqual([]);
    expect(running.server.sendElicitationComplete(session, 'connect-1')).toBe(true);
    // Messages on one socket arrive in order: once the ping is answered, the notification was handled.
    await client.ping();
    expect(completions).toEqual([{ method: 'notifications/elicitation/complete', params: { elicitationId: 'connect-1' } }]);
  });

  it('generates a UUID elicitationId when the server leaves it out, and the SDK handler gets that id', async () => {
    const running = await startWebSocket(cleanups);
    const { seen, setup } = answerElicitations({ action: 'decline' });
    const { session } = await h.connect(running, FORM_AND_URL, setup);

    const ended = nextEvent<[McpSession, { params: Record<string, unknown> }, unknown]>(running.server, 'responseElicitationCreate');
    running.server.requestElicitationCreate(session, { mode: 'url', message: 'Pay the invoice', url: 'https://pay.example.com/invoice/7' });
    const [, request, response] = await ended;
    expect(request.params).toEqual({
      mode: 'url',
      message: 'Pay the invoice',
      url: 'https://pay.example.com/invoice/7',
      elicitationId: expect.stringMatching(UUID),
    });
    expect(seen).toEqual([request.params]);
    expect(response).toEqual({ isError: false, action: 'decline' });
  });

  it('drops content the client sends with a URL-mode accept', async () => {
    const running = await startWebSocket(cleanups, elicitingTool('connect_account', CONNECT));
    const events = recordEvents(running.server, 'responseElicitationCreate');
    const { setup } = answerElicitations({ action: 'accept', content: { token: 'should-not-be-here' } });
    const { client } = await h.connect(running, FORM_AND_URL, setup);

    expect(await client.callTool({ name: 'connect_account' })).toEqual(text('action=accept content=null'));
    expect(events.map(([, , response]) => response)).toEqual([{ isError: false, action: 'accept' }]);
  });

  it('a client that declared only url mode gets URL elicitations but never a form', async () => {
    const running = await startWebSocket(cleanups, (server) => {
      elicitingTool('connect_account', CONNECT)(server);
      elicitingTool('ask_contact', ASK_CONTACT)(server);
    });
    const events = recordEvents(running.server, 'responseElicitationCreate');
    const { seen, setup } = answerElicitations({ action: 'accept' });
    const { client, session } = await h.connect(running, { capabilities: { elicitation: { url: {} } } }, setup);

    expect(session.clientCapabilities.elicitation).toEqual({ url: {} });
    expect(await client.callTool({ name: 'ask_contact' })).toEqual(
      text('The client did not declare form-mode elicitation (capabilities.elicitation.form); ask another way, or use url mode if it declared that', true),
    );
    expect(await client.callTool({ name: 'connect_account' })).toEqual(text('action=accept content=null'));
    expect(seen).toEqual([CONNECT]);
    expect(events).toEqual([[session, { jsonrpc: '2.0', id: 0, method: 'elicitation/create', params: CONNECT }, { isError: false, action: 'accept' }]]);
  });

  it('never sends a URL elicitation to a client that declared only form mode', async () => {
    const running = await startWebSocket(cleanups, elicitingTool('connect_account', CONNECT));
    const events = recordEvents(running.server, 'responseElicitationCreate');
    const { seen, setup } = answerElicitations({ action: 'accept' });
    const { client, session } = await h.connect(running, { capabilities: { elicitation: {} } }, setup);
    const outgoing = recordOutgoing(running.server, session);

    const message = 'The client did not declare url-mode elicitation (capabilities.elicitation.url); ask another way, or use form mode if it declared that';
    expect(await client.callTool({ name: 'connect_account' })).toEqual(text(message, true));
    let thrown: unknown;
    try {
      running.server.requestElicitationCreate(session, CONNECT);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(ElicitationNotSupportedError);
    expect(thrown).toMatchObject({ code: -32021, message, data: { requiredCapabilities: { elicitation: { url: {} } } }, mode: 'url' });
    await client.ping();
    expect(outgoing.filter((m) => m.method === 'elicitation/create')).toEqual([]);
    expect(seen).toEqual([]);
    expect(events).toEqual([]);
  });
});

describe('decline and cancel', () => {
  it.each(['decline', 'cancel'] as const)('hands a %s to the tool with no content', async (action) => {
    const running = await startWebSocket(cleanups, elicitingTool('ask_contact', ASK_CONTACT));
    const events = recordEvents(running.server, 'responseElicitationCreate');
    const { setup } = answerElicitations({ action });
    const { client, session } = await h.connect(running, { capabilities: { elicitation: {} } }, setup);

    expect(await client.callTool({ name: 'ask_contact' })).toEqual(text(`action=${action} content=null`));
    expect(events).toEqual([[session, { jsonrpc: '2.0', id: 0, method: 'elicitation/create', params: ASK_CONTACT }, { isError: false, action }]]);
  });

  it('ignores content sent with a decline', async () => {
    const running = await startWebSocket(cleanups, elicitingTool('ask_contact', ASK_CONTACT));
    const events = recordEvents(running.server, 'responseElicitationCreate');
    const { setup } = answerElicitations({ action: 'decline', content: { name: 'Ada', email: 'ada@example.com' } });
    const { client } = await h.connect(running, { capabilities: { elicitation: {} } }, setup);

    expect(await client.callTool({ name: 'ask_contact' })).toEqual(text('action=decline content=null'));
    expect(events.map(([, , response]) => response)).toEqual([{ isError: false, action: 'decline' }]);
  });

  function confirmedTool(ran: string[]) {
    return (server: McpServer) =>
      server.registerTool(
        'delete_notes',
        {
          description: 'Deletes every note',
          inputSchema: { type: 'object', properties: { folder: { type: 'string' } }, required: ['folder'] },
          confirm: (args) => `Delete all notes in ${String(args.folder)}?`,
        },
        (args) => {
          ran.push(String(args.folder));
          return `deleted ${String(args.folder)}`;
        },
      );
  }

  it('the confirm option asks a yes/no form and runs the tool on accept', async () => {
    const ran: string[] = [];
    const running = await startWebSocket(cleanups, confirmedTool(ran));
    const events = recordEvents(running.server, 'responseElicitationCreate');
    const { seen, setup } = answerElicitations({ action: 'accept', content: {} });
    const { client, session } = await h.connect(running, { capabilities: { elicitation: {} } }, setup);

    expect(await client.callTool({ name: 'delete_notes', arguments: { folder: 'work' } })).toEqual(text('deleted work'));
    const question = { message: 'Delete all notes in work?', requestedSchema: { type: 'object', properties: {} } };
    expect(seen).toEqual([question]);
    expect(ran).toEqual(['work']);
    expect(events).toEqual([
      [session, { jsonrpc: '2.0', id: 0, method: 'elicitation/create', params: question }, { isError: false, action: 'accept', content: {} }],
    ]);
  });

  it.each([
    ['decline', 'The user declined: "Delete all notes in work?". Nothing was done.'],
    ['cancel', 'The user dismissed the confirmation "Delete all notes in work?" without answering. Nothing was done.'],
  ] as const)('the confirm option answers a %s with an isError result and does not run the tool', async (action, message) => {
    const ran: string[] = [];
    const running = await startWebSocket(cleanups, confirmedTool(ran));
    const events = recordEvents(running.server, 'responseElicitationCreate');
    const { setup } = answerElicitations({ action });
    const { client } = await h.connect(running, { capabilities: { elicitation: {} } }, setup);

    expect(await client.callTool({ name: 'delete_notes', arguments: { folder: 'work' } })).toEqual(text(message, true));
    expect(ran).toEqual([]);
    expect(events.map(([, , response]) => response)).toEqual([{ isError: false, action }]);
  });
});

describe('a client that declares no elicitation', () => {
  const NOT_SUPPORTED =
    'The client did not declare form-mode elicitation (capabilities.elicitation.form); ask another way, or use url mode if it declared that';

  it('ctx.elicit rejects with ElicitationNotSupportedError before anything is sent, and the tool answers isError with its message', async () => {
    const caught: unknown[] = [];
    const running = await startWebSocket(cleanups, (server) =>
      server.registerTool('ask_contact', { description: 'Asks for contact details', inputSchema: NO_ARGS }, async (_args, ctx: RequestContext) => {
        try {
          await ctx.elicit(ASK_CONTACT);
        } catch (err) {
          caught.push(err);
          throw err;
        }
        return 'unreachable';
      }),
    );
    const events = recordEvents(running.server, 'responseElicitationCreate');
    const { client, session } = await h.connect(running, { capabilities: {} });
    const outgoing = recordOutgoing(running.server, session);

    expect(await client.callTool({ name: 'ask_contact' })).toEqual(text(NOT_SUPPORTED, true));
    expect(caught).toHaveLength(1);
    expect(caught[0]).toBeInstanceOf(ElicitationNotSupportedError);
    expect(caught[0]).toMatchObject({ code: -32021, message: NOT_SUPPORTED, data: { requiredCapabilities: { elicitation: { form: {} } } }, mode: 'form' });
    expect(outgoing.map((m) => m.method ?? 'response')).toEqual(['response']);
    expect(events).toEqual([]);
    expect(session.pendingRequests).toBe(0);
  });

  it('server.requestElicitationCreate throws ElicitationNotSupportedError synchronously and emits nothing', async () => {
    const running = await startWebSocket(cleanups);
    const events = recordEvents(running.server, 'responseElicitationCreate');
    const { client, session } = await h.connect(running, { capabilities: { sampling: {} } });
    const outgoing = recordOutgoing(running.server, session);

    expect(() => running.server.requestElicitationCreate(session, ASK_CONTACT)).toThrow(ElicitationNotSupportedError);
    expect(() => running.server.requestElicitationCreate(session.id, ASK_CONTACT)).toThrow(NOT_SUPPORTED);
    await client.ping();
    expect(outgoing.filter((m) => m.method !== undefined)).toEqual([]);
    expect(events).toEqual([]);
  });

  it('the confirm option answers isError with the ElicitationNotSupportedError message and does not run the tool', async () => {
    const ran: string[] = [];
    const running = await startWebSocket(cleanups, (server) =>
      server.registerTool('wipe', { description: 'Wipes', inputSchema: NO_ARGS, confirm: 'Wipe everything?' }, () => {
        ran.push('wipe');
        return 'wiped';
      }),
    );
    const { client } = await h.connect(running, { capabilities: {} });
    expect(await client.callTool({ name: 'wipe' })).toEqual(text(NOT_SUPPORTED, true));
    expect(ran).toEqual([]);
  });
});

describe('a client that declares elicitation but cannot answer it', () => {
  it('a raw client answering -32601 ends the request in an isError event with its code and message', async () => {
    const running = await startWebSocket(cleanups);
    const started = nextEvent<[McpSession]>(running.server, 'sessionNew');
    const { client } = await WsTestClient.initialized(running.url, { capabilities: { elicitation: {} } });
    cleanups.push(() => client.close());
    const [session] = await started;

    const ended = nextEvent<[McpSession, unknown, unknown]>(running.server, 'responseElicitationCreate');
    const id = running.server.requestElicitationCreate(session, ASK_CONTACT);
    const request = await client.nextMessage('elicitation/create');
    expect(request).toEqual({ jsonrpc: '2.0', id, method: 'elicitation/create', params: ASK_CONTACT });
    client.respondError(request.id, -32601, 'Method not found: elicitation/create');
    const event = await ended;
    expect(event).toEqual([
      session,
      { jsonrpc: '2.0', id, method: 'elicitation/create', params: ASK_CONTACT },
      { isError: true, errorCode: -32601, errorMessage: 'Method not found: elicitation/create', errorData: undefined },
    ]);
    // Every field is there on failure too, so sgc-style code reads them without `in` checks.
    expect(Object.keys(event[2] as object).sort()).toEqual(['action', 'content', 'errorCode', 'errorData', 'errorMessage', 'isError']);
    expect(event[2]).toMatchObject({ action: undefined, content: undefined });
  });

  it('the SDK client without an elicitation handler answers -32601, which ctx.elicit rejects with', async () => {
    const running = await startWebSocket(cleanups, elicitingTool('ask_contact', ASK_CONTACT));
    const events = recordEvents(running.server, 'responseElicitationCreate');
    const { client, session } = await h.connect(running, { capabilities: { elicitation: {} } });

    expect(await client.callTool({ name: 'ask_contact' })).toEqual(text('Method not found', true));
    expect(events).toEqual([
      [
        session,
        { jsonrpc: '2.0', id: 0, method: 'elicitation/create', params: ASK_CONTACT },
        { isError: true, errorCode: -32601, errorMessage: 'Method not found', errorData: undefined },
      ],
    ]);
  });
});

describe('UrlElicitationRequiredError', () => {
  it('reaches the SDK client as an McpError with code -32042 and data.elicitations, ids generated where missing', async () => {
    const running = await startWebSocket(cleanups, (server) =>
      server.registerTool('list_files', { description: 'Lists Example Co files', inputSchema: NO_ARGS }, () => {
        throw new UrlElicitationRequiredError([
          { message: 'Authorize access to your Example Co files.', url: 'https://auth.example.com/authorize?elicitationId=auth-1', elicitationId: 'auth-1' },
          { mode: 'url', message: 'Accept the terms.', url: 'https://example.com/terms' },
        ]);
      }),
    );
    const { client } = await h.connect(running, FORM_AND_URL);

    let thrown: unknown;
    try {
      await client.callTool({ name: 'list_files' });
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(SdkUrlElicitationRequiredError);
    expect(thrown).toBeInstanceOf(SdkMcpError);
    const error = thrown as SdkUrlElicitationRequiredError;
    expect(error.code).toBe(-32042);
    expect(error.message).toBe('MCP error -32042: This request requires more information: complete the linked page(s), then retry.');
    expect(error.data).toEqual({
      elicitations: [
        {
          mode: 'url',
          message: 'Authorize access to your Example Co files.',
          url: 'https://auth.example.com/authorize?elicitationId=auth-1',
          elicitationId: 'auth-1',
        },
        { mode: 'url', message: 'Accept the terms.', url: 'https://example.com/terms', elicitationId: expect.stringMatching(UUID) },
      ],
    });
    expect(error.elicitations).toEqual((error.data as { elicitations: unknown[] }).elicitations);
    // The session survives: the error was one JSON-RPC error reply.
    expect(await client.ping()).toEqual({});
  });

  it('is not swallowed into an isError result when thrown after an elicitation', async () => {
    const running = await startWebSocket(cleanups, (server) =>
      server.registerTool('connect_then_fail', { description: 'Asks, then needs a URL elicitation', inputSchema: NO_ARGS }, async (_args, ctx) => {
        await ctx.elicit(ASK_CONTACT);
        throw new UrlElicitationRequiredError([{ message: 'Sign in', url: 'https://example.com/sign-in', elicitationId: 'sign-in-1' }], 'Sign in first.');
      }),
    );
    const { setup } = answerElicitations({ action: 'accept', content: { name: 'Ada', email: 'ada@example.com' } });
    const { client } = await h.connect(running, FORM_AND_URL, setup);

    await expect(client.callTool({ name: 'connect_then_fail' })).rejects.toMatchObject({
      code: -32042,
      message: 'MCP error -32042: Sign in first.',
      data: { elicitations: [{ mode: 'url', message: 'Sign in', url: 'https://example.com/sign-in', elicitationId: 'sign-in-1' }] },
    });
  });
});

describe('cancellation, timeout and disconnect', () => {
  /** An SDK elicitation handler that never answers by itself: it resolves `cancel` once its request is aborted. */
  /**
   * SDK v1 ignores `notifications/cancelled` for request id 0 (`if (!params.requestId) return`), and the
   * session numbers its requests from 0: spend id 0 on a ping so the elicitation's cancellation is honoured.
   */
  async function skipRequestIdZero(session: McpSession): Promise<void> {
    await session.ping();
  }

  function waitingHandler() {
    const started = deferred();
    const aborted = deferred<unknown>();
    return {
      started: started.promise,
      aborted: aborted.promise,
      setup: (client: Client) =>
        client.setRequestHandler(ElicitRequestSchema, (_request, extra) => {
          started.resolve();
          return new Promise<SdkElicitResult>((resolve) =>
            extra.signal.addEventListener('abort', () => {
              aborted.resolve(extra.signal.reason);
              resolve({ action: 'cancel' });
            }),
          );
        }),
    };
  }

  it('cancelling the SDK tools/call cancels its pending elicitation: the SDK handler is aborted and the event reports -32800', async () => {
    const running = await startWebSocket(cleanups, elicitingTool('ask_contact', ASK_CONTACT));
    const events = recordEvents(running.server, 'responseElicitationCreate');
    const waiting = waitingHandler();
    const { client, session } = await h.connect(running, { capabilities: { elicitation: {} } }, waiting.setup);
    await skipRequestIdZero(session);

    const controller = new AbortController();
    const call = client.callTool({ name: 'ask_contact' }, undefined, { signal: controller.signal });
    await waiting.started;
    controller.abort('user pressed stop');
    // The SDK rejects an aborted request with its own -32001 McpError carrying the reason.
    await expect(call).rejects.toMatchObject({ code: -32001, message: 'MCP error -32001: user pressed stop' });
    expect(await waiting.aborted).toBe('cancelled by the client: user pressed stop');
    await client.ping();
    expect(events).toEqual([
      [
        session,
        { jsonrpc: '2.0', id: 1, method: 'elicitation/create', params: ASK_CONTACT },
        {
          isError: true,
          errorCode: -32800,
          errorMessage: 'elicitation/create was cancelled: cancelled by the client: user pressed stop',
          errorData: { reason: 'cancelled by the client: user pressed stop' },
        },
      ],
    ]);
    expect(session.pendingRequests).toBe(0);
    expect(running.server.stats).toMatchObject({ lateResponses: 0, unknownResponses: 0 });
  });

  it('an elicitation the user never answers times out with RequestTimeoutError, and the SDK handler is told to stop', async () => {
    const running = await startWebSocket(cleanups, (server) =>
      server.registerTool('ask_briefly', { description: 'Asks with a short timeout', inputSchema: NO_ARGS }, async (_args, ctx) => {
        await ctx.elicit(ASK_CONTACT, { timeoutMs: 100 });
        return 'answered';
      }),
    );
    const events = recordEvents(running.server, 'responseElicitationCreate');
    const waiting = waitingHandler();
    const { client, session } = await h.connect(running, { capabilities: { elicitation: {} } }, waiting.setup);
    await skipRequestIdZero(session);

    const message = 'elicitation/create timed out after 100 ms without a reply; raise timeoutMs if a person has to answer it';
    expect(await client.callTool({ name: 'ask_briefly' })).toEqual(text(message, true));
    expect(await waiting.aborted).toBe('timed out after 100 ms');
    await client.ping();
    expect(events).toEqual([
      [
        session,
        { jsonrpc: '2.0', id: 1, method: 'elicitation/create', params: ASK_CONTACT },
        { isError: true, errorCode: -32001, errorMessage: message, errorData: { timeoutMs: 100 } },
      ],
    ]);
    expect(running.server.stats).toMatchObject({ lateResponses: 0, unknownResponses: 0 });
  });

  it('closing the SDK client ends a pending elicitation with ConnectionClosedError (-32000) in the event', async () => {
    const running = await startWebSocket(cleanups, elicitingTool('ask_contact', ASK_CONTACT));
    const waiting = waitingHandler();
    const { client, session } = await h.connect(running, { capabilities: { elicitation: {} } }, waiting.setup);

    const ended = nextEvent<[McpSession, unknown, unknown]>(running.server, 'responseElicitationCreate');
    const call = client.callTool({ name: 'ask_contact' });
    await waiting.started;
    await client.close();
    await expect(call).rejects.toMatchObject({ code: -32000, message: 'MCP error -32000: Connection closed' });
    const [endedSession, request, response] = await ended;
    expect(endedSession).toBe(session);
    expect(request).toEqual({ jsonrpc: '2.0', id: 0, method: 'elicitation/create', params: ASK_CONTACT });
    expect(response).toEqual({
      isError: true,
      errorCode: -32000,
      errorMessage: `elicitation/create could not complete: ${session.closeReason}`,
      errorData: { reason: session.closeReason },
    });
    expect(session.state).toBe('closed');
  });
});

describe('sampling', () => {
  const ASK_MODEL = {
    messages: [{ role: 'user' as const, content: { type: 'text', text: 'Name a colour' } }],
    maxTokens: 20,
    systemPrompt: 'Answer in one word',
  };

  it('ctx.createMessage sends the exact params to the SDK handler and resolves with its result', async () => {
    const running = await startWebSocket(cleanups, (server) =>
      server.registerTool('colour', { description: 'Asks the model for a colour', inputSchema: NO_ARGS }, async (_args, ctx) => {
        const result = await ctx.createMessage(ASK_MODEL);
        const content = result.content as { text?: string };
        return `${result.model}: ${content.text}`;
      }),
    );
    const events = recordEvents(running.server, 'responseSamplingCreateMessage');
    const seen: unknown[] = [];
    const answer = { role: 'assistant' as const, content: { type: 'text' as const, text: 'Teal' }, model: 'test-model', stopReason: 'endTurn' };
    const { client, session } = await h.connect(running, { capabilities: { sampling: {} } }, (c) =>
      c.setRequestHandler(CreateMessageRequestSchema, async (request) => {
        seen.push(request.params);
        return answer;
      }),
    );

    expect(await client.callTool({ name: 'colour' })).toEqual(text('test-model: Teal'));
    expect(seen).toEqual([ASK_MODEL]);
    expect(events).toEqual([[session, { jsonrpc: '2.0', id: 0, method: 'sampling/createMessage', params: ASK_MODEL }, { isError: false, ...answer }]]);
  });

  it('a client without sampling: ctx.createMessage rejects with SamplingNotSupportedError and nothing is sent', async () => {
    const caught: unknown[] = [];
    const running = await startWebSocket(cleanups, (server) =>
      server.registerTool('colour', { description: 'Asks the model for a colour', inputSchema: NO_ARGS }, async (_args, ctx) => {
        await ctx.createMessage(ASK_MODEL).catch((err: unknown) => caught.push(err));
        return 'done';
      }),
    );
    const events = recordEvents(running.server, 'responseSamplingCreateMessage');
    const { client } = await h.connect(running, { capabilities: { elicitation: {} } });
    expect(await client.callTool({ name: 'colour' })).toEqual(text('done'));
    expect(caught).toHaveLength(1);
    expect(caught[0]).toBeInstanceOf(SamplingNotSupportedError);
    expect(caught[0]).toBeInstanceOf(McpError);
    expect(caught[0]).toMatchObject({
      code: -32021,
      message: 'The client did not declare the sampling capability; it cannot be asked for sampling/createMessage',
      data: { requiredCapabilities: { sampling: {} } },
    });
    expect(events).toEqual([]);
  });
});

describe('roots', () => {
  const ROOTS = [{ uri: 'file:///home/ada/project', name: 'project' }, { uri: 'file:///tmp' }];

  it('ctx.listRoots resolves with the roots the SDK client answers', async () => {
    const running = await startWebSocket(cleanups, (server) =>
      server.registerTool('roots', { description: 'Lists the client roots', inputSchema: NO_ARGS }, async (_args, ctx) =>
        JSON.stringify((await ctx.listRoots()).roots),
      ),
    );
    const events = recordEvents(running.server, 'responseRootsList');
    const { client, session } = await h.connect(running, { capabilities: { roots: { listChanged: true } } }, (c) =>
      c.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: ROOTS })),
    );

    expect(await client.callTool({ name: 'roots' })).toEqual(text(JSON.stringify(ROOTS)));
    expect(events).toEqual([[session, { jsonrpc: '2.0', id: 0, method: 'roots/list', params: {} }, { isError: false, roots: ROOTS }]]);
  });

  it('client.sendRootsListChanged() fires the rootsListChanged event with the session', async () => {
    const running = await startWebSocket(cleanups);
    const changes = recordEvents(running.server, 'rootsListChanged');
    const { client, session } = await h.connect(running, { capabilities: { roots: { listChanged: true } } }, (c) =>
      c.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: ROOTS })),
    );

    const fired = nextEvent<[McpSession]>(running.server, 'rootsListChanged');
    await client.sendRootsListChanged();
    expect(await fired).toEqual([session]);
    await client.ping();
    expect(changes).toHaveLength(1);
    expect(changes[0][0]).toBe(session);
  });
});
