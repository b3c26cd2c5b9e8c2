import { describe, expect, it } from 'vitest';
import { McpServer, type GetPromptResult, type PromptConfig } from '../../src/index.js';
import { rpcError, useMcpClients } from '../helpers/mcp-clients.js';
import { useCleanups } from '../helpers/cleanups.js';
import { startWebSocket } from '../helpers/servers.js';
import { useWsSessions } from '../helpers/ws-sessions.js';

const cleanups = useCleanups();
const h = useWsSessions(cleanups);
const clients = useMcpClients(cleanups);

const TRANSLATE: PromptConfig = {
  title: 'Translate',
  description: 'Translates a text',
  icons: [{ src: 'https://example.com/t.svg', mimeType: 'image/svg+xml' }],
  arguments: [
    { name: 'text', title: 'Text', description: 'What to translate', required: true },
    { name: 'language', description: 'Target language', required: true },
    { name: 'tone', required: false },
  ],
  complete: { language: () => ['en', 'fr'] },
  _meta: { 'com.example/category': 'language' },
};

function translate(args: Record<string, string>): GetPromptResult {
  return {
    description: `Translate to ${args.language}`,
    messages: [{ role: 'user', content: { type: 'text', text: `Translate "${args.text}" to ${args.language}${args.tone ? ` (${args.tone})` : ''}` } }],
  };
}

describe('prompts/list', () => {
  it('lists exact descriptors with their arguments and without the completers', async () => {
    const running = await startWebSocket(cleanups, (server) => {
      server.registerPrompt('translate', TRANSLATE, translate);
      server.registerPrompt('plain', {}, () => ({ messages: [] }));
    });
    const { client } = await clients.connect(running);

    expect(await client.listPrompts()).toEqual({
      prompts: [
        {
          name: 'translate',
          title: 'Translate',
          description: 'Translates a text',
          icons: [{ src: 'https://example.com/t.svg', mimeType: 'image/svg+xml' }],
          arguments: [
            { name: 'text', title: 'Text', description: 'What to translate', required: true },
            { name: 'language', description: 'Target language', required: true },
            { name: 'tone', required: false },
          ],
          _meta: { 'com.example/category': 'language' },
        },
        { name: 'plain' },
      ],
    });
  });

  it('pages prompts with the server pageSize', async () => {
    const running = await startWebSocket(
      cleanups,
      (server) => {
        for (const name of ['p1', 'p2', 'p3']) server.registerPrompt(name, {}, () => ({ messages: [] }));
      },
      { server: { pageSize: 2 } },
    );
    const { client } = await clients.connect(running);

    const first = await client.listPrompts();
    expect(first.prompts).toEqual([{ name: 'p1' }, { name: 'p2' }]);
    const second = await client.listPrompts(first.nextCursor);
    expect(second).toEqual({ prompts: [{ name: 'p3' }] });
  });
});

describe('prompts/get', () => {
  it('passes the arguments to the handler and answers its result', async () => {
    const seen: unknown[] = [];
    const running = await startWebSocket(cleanups, (server) =>
      server.registerPrompt('translate', TRANSLATE, (args, ctx) => {
        seen.push(args, ctx.method);
        return translate(args);
      }),
    );
    const { client } = await clients.connect(running);

    expect(await client.getPrompt('translate', { text: 'hello', language: 'fr', tone: 'formal' })).toEqual({
      description: 'Translate to fr',
      messages: [{ role: 'user', content: { type: 'text', text: 'Translate "hello" to fr (formal)' } }],
    });
    expect(seen).toEqual([{ text: 'hello', language: 'fr', tone: 'formal' }, 'prompts/get']);
  });

  it('calls a prompt without arguments when none are required', async () => {
    const running = await startWebSocket(cleanups, (server) =>
      server.registerPrompt('plain', {}, (args) => ({ messages: [{ role: 'assistant', content: { type: 'text', text: JSON.stringify(args) } }] })),
    );
    const { client } = await clients.connect(running);

    // No arguments member at all (getPrompt would send arguments: {}).
    expect(await client.request('prompts/get', { name: 'plain' })).toEqual({
      messages: [{ role: 'assistant', content: { type: 'text', text: '{}' } }],
    });
  });

  it('answers -32602 naming every missing required argument', async () => {
    let called = false;
    const running = await startWebSocket(cleanups, (server) =>
      server.registerPrompt('translate', TRANSLATE, (args) => {
        called = true;
        return translate(args);
      }),
    );
    const { client } = await clients.connect(running);

    expect(await rpcError(client.getPrompt('translate', { tone: 'casual' }))).toEqual({
      code: -32602,
      message: 'Missing required arguments for prompt translate: text, language',
    });
    expect(await rpcError(client.getPrompt('translate', { text: 'hi' }))).toEqual({
      code: -32602,
      message: 'Missing required argument for prompt translate: language',
    });
    // No arguments member at all (getPrompt would send arguments: {}).
    expect(await rpcError(client.request('prompts/get', { name: 'translate' }))).toEqual({
      code: -32602,
      message: 'Missing required arguments for prompt translate: text, language',
    });
    expect(called).toBe(false);
  });

  // Malformed params McpClient never sends: raw peer (this test, the next one, and the missing name).
  it('answers -32602 when an argument value is not a string', async () => {
    const { url } = await startWebSocket(cleanups, (server) => server.registerPrompt('translate', TRANSLATE, translate));
    const client = await h.ready(url);

    expect(await client.request('prompts/get', { name: 'translate', arguments: { text: 'hi', language: 3 } }, 'n')).toEqual({
      jsonrpc: '2.0',
      id: 'n',
      error: { code: -32602, message: "Argument 'language' for prompt translate must be a string" },
    });
  });

  it('answers -32602 when arguments is not an object', async () => {
    const { url } = await startWebSocket(cleanups, (server) => server.registerPrompt('translate', TRANSLATE, translate));
    const client = await h.ready(url);

    expect(await client.request('prompts/get', { name: 'translate', arguments: ['hi', 'fr'] }, 'a')).toEqual({
      jsonrpc: '2.0',
      id: 'a',
      error: { code: -32602, message: 'Arguments for prompt translate must be an object of strings' },
    });
  });

  it('answers -32602 for an unknown prompt', async () => {
    const running = await startWebSocket(cleanups, (server) => server.registerPrompt('translate', TRANSLATE, translate));
    const { client } = await clients.connect(running);

    expect(await rpcError(client.getPrompt('nope'))).toEqual({ code: -32602, message: 'Unknown prompt: nope' });
  });

  // Malformed params McpClient never sends: raw peer.
  it('answers -32602 when params.name is missing', async () => {
    const { url } = await startWebSocket(cleanups);
    const client = await h.ready(url);

    expect(await client.request('prompts/get', {}, 'u')).toEqual({
      jsonrpc: '2.0',
      id: 'u',
      error: { code: -32602, message: 'prompts/get needs params.name as a string' },
    });
  });

  it('answers -32603 when the handler returns no messages array', async () => {
    const running = await startWebSocket(cleanups, (server) =>
      server.registerPrompt('empty', {}, () => ({ description: 'nothing' }) as unknown as GetPromptResult),
    );
    const { client } = await clients.connect(running);

    expect(await rpcError(client.getPrompt('empty'))).toEqual({
      code: -32603,
      message: 'Prompt empty returned no messages array; return a GetPromptResult',
    });
  });

  it('answers -32603 "Internal error" to an Error thrown by the handler, without its message', async () => {
    const running = await startWebSocket(cleanups, (server) =>
      server.registerPrompt('boom', {}, () => {
        throw new Error('template missing');
      }),
    );
    const { client } = await clients.connect(running);

    expect(await rpcError(client.getPrompt('boom'))).toEqual({ code: -32603, message: 'Internal error' });
  });
});

describe('prompt registration', () => {
  const server = () => new McpServer({ name: 'reg', version: '1.0.0' });

  it('throws for an empty name, a missing handler, a nameless argument and a duplicate', () => {
    const s = server();
    expect(() => s.registerPrompt('', {}, () => ({ messages: [] }))).toThrow(new TypeError('A prompt needs a non-empty name'));
    expect(() => s.registerPrompt('p', {}, undefined as never)).toThrow(new TypeError(`Prompt 'p' needs a handler function`));
    expect(() => s.registerPrompt('p', { arguments: [{ name: '' }] }, () => ({ messages: [] }))).toThrow(
      new TypeError(`Prompt 'p': every argument needs a name`),
    );
    s.registerPrompt('p', {}, () => ({ messages: [] }));
    expect(() => s.registerPrompt('p', {}, () => ({ messages: [] }))).toThrow(
      new Error(`Prompt 'p' is already registered; remove it before registering it again`),
    );
  });
});
