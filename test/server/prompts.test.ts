import { describe, expect, it } from 'vitest';
import { McpServer, type GetPromptResult, type PromptConfig } from '../../src/index.js';
import { useHarness } from '../helpers/session-harness.js';

const h = useHarness();

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
    const { url } = await h.start((server) => {
      server.registerPrompt('translate', TRANSLATE, translate);
      server.registerPrompt('plain', {}, () => ({ messages: [] }));
    });
    const client = await h.ready(url);

    expect(await client.request('prompts/list', {}, 'l')).toEqual({
      jsonrpc: '2.0',
      id: 'l',
      result: {
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
      },
    });
  });

  it('pages prompts with the server pageSize', async () => {
    const { url } = await h.start(
      (server) => {
        for (const name of ['p1', 'p2', 'p3']) server.registerPrompt(name, {}, () => ({ messages: [] }));
      },
      { server: { pageSize: 2 } },
    );
    const client = await h.ready(url);

    const first = await client.request('prompts/list');
    expect(first.result.prompts).toEqual([{ name: 'p1' }, { name: 'p2' }]);
    const second = await client.request('prompts/list', { cursor: first.result.nextCursor });
    expect(second.result).toEqual({ prompts: [{ name: 'p3' }] });
  });
});

describe('prompts/get', () => {
  it('passes the arguments to the handler and answers its result', async () => {
    const seen: unknown[] = [];
    const { url } = await h.start((server) =>
      server.registerPrompt('translate', TRANSLATE, (args, ctx) => {
        seen.push(args, ctx.method);
        return translate(args);
      }),
    );
    const client = await h.ready(url);

    const reply = await client.request('prompts/get', { name: 'translate', arguments: { text: 'hello', language: 'fr', tone: 'formal' } }, 'g');

    expect(reply).toEqual({
      jsonrpc: '2.0',
      id: 'g',
      result: {
        description: 'Translate to fr',
        messages: [{ role: 'user', content: { type: 'text', text: 'Translate "hello" to fr (formal)' } }],
      },
    });
    expect(seen).toEqual([{ text: 'hello', language: 'fr', tone: 'formal' }, 'prompts/get']);
  });

  it('calls a prompt without arguments when none are required', async () => {
    const { url } = await h.start((server) =>
      server.registerPrompt('plain', {}, (args) => ({ messages: [{ role: 'assistant', content: { type: 'text', text: JSON.stringify(args) } }] })),
    );
    const client = await h.ready(url);

    expect((await client.request('prompts/get', { name: 'plain' })).result).toEqual({
      messages: [{ role: 'assistant', content: { type: 'text', text: '{}' } }],
    });
  });

  it('answers -32602 naming every missing required argument', async () => {
    let called = false;
    const { url } = await h.start((server) =>
      server.registerPrompt('translate', TRANSLATE, (args) => {
        called = true;
        return translate(args);
      }),
    );
    const client = await h.ready(url);

    expect(await client.request('prompts/get', { name: 'translate', arguments: { tone: 'casual' } }, 'm2')).toEqual({
      jsonrpc: '2.0',
      id: 'm2',
      error: { code: -32602, message: 'Missing required arguments for prompt translate: text, language' },
    });
    expect(await client.request('prompts/get', { name: 'translate', arguments: { text: 'hi' } }, 'm1')).toEqual({
      jsonrpc: '2.0',
      id: 'm1',
      error: { code: -32602, message: 'Missing required argument for prompt translate: language' },
    });
    expect(await client.request('prompts/get', { name: 'translate' }, 'm0')).toEqual({
      jsonrpc: '2.0',
      id: 'm0',
      error: { code: -32602, message: 'Missing required arguments for prompt translate: text, language' },
    });
    expect(called).toBe(false);
  });

  it('answers -32602 when an argument value is not a string', async () => {
    const { url } = await h.start((server) => server.registerPrompt('translate', TRANSLATE, translate));
    const client = await h.ready(url);

    expect(await client.request('prompts/get', { name: 'translate', arguments: { text: 'hi', language: 3 } }, 'n')).toEqual({
      jsonrpc: '2.0',
      id: 'n',
      error: { code: -32602, message: "Argument 'language' for prompt translate must be a string" },
    });
  });

  it('answers -32602 when arguments is not an object', async () => {
    const { url } = await h.start((server) => server.registerPrompt('translate', TRANSLATE, translate));
    const client = await h.ready(url);

    expect(await client.request('prompts/get', { name: 'translate', arguments: ['hi', 'fr'] }, 'a')).toEqual({
      jsonrpc: '2.0',
      id: 'a',
      error: { code: -32602, message: 'Arguments for prompt translate must be an object of strings' },
    });
  });

  it('answers -32602 for an unknown prompt', async () => {
    const { url } = await h.start((server) => server.registerPrompt('translate', TRANSLATE, translate));
    const client = await h.ready(url);

    expect(await client.request('prompts/get', { name: 'nope' }, 'u')).toEqual({
      jsonrpc: '2.0',
      id: 'u',
      error: { code: -32602, message: 'Unknown prompt: nope' },
    });
  });

  it('answers -32602 when params.name is missing', async () => {
    const { url } = await h.start();
    const client = await h.ready(url);

    expect(await client.request('prompts/get', {}, 'u')).toEqual({
      jsonrpc: '2.0',
      id: 'u',
      error: { code: -32602, message: 'prompts/get needs params.name as a string' },
    });
  });

  it('answers -32603 when the handler returns no messages array', async () => {
    const { url } = await h.start((server) => server.registerPrompt('empty', {}, () => ({ description: 'nothing' }) as unknown as GetPromptResult));
    const client = await h.ready(url);

    expect(await client.request('prompts/get', { name: 'empty' }, 'e')).toEqual({
      jsonrpc: '2.0',
      id: 'e',
      error: { code: -32603, message: 'Prompt empty returned no messages array; return a GetPromptResult' },
    });
  });

  it('answers -32603 "Internal error" to an Error thrown by the handler, without its message', async () => {
    const { url } = await h.start((server) =>
      server.registerPrompt('boom', {}, () => {
        throw new Error('template missing');
      }),
    );
    const client = await h.ready(url);

    expect(await client.request('prompts/get', { name: 'boom' }, 'b')).toEqual({
      jsonrpc: '2.0',
      id: 'b',
      error: { code: -32603, message: 'Internal error' },
    });
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
