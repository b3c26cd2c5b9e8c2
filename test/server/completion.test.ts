import { describe, expect, it } from 'vitest';
import type { McpServer } from '../../src/index.js';
import { useHarness } from '../helpers/session-harness.js';

const h = useHarness();

const LANGUAGES = ['python', 'perl', 'php', 'rust', 'ruby'];
const REPOS: Record<string, string[]> = { acme: ['anvil', 'rocket', 'roadrunner'], other: ['x'] };

interface Seen {
  value: string;
  arguments: Record<string, string>;
  method: string;
}

function setup(server: McpServer, seen: Seen[] = []): void {
  server.registerPrompt(
    'code_review',
    {
      arguments: [{ name: 'language', required: true }, { name: 'style' }],
      complete: {
        language: (value, { arguments: args, ctx }) => {
          seen.push({ value, arguments: args, method: ctx.method });
          return LANGUAGES.filter((l) => l.startsWith(value));
        },
        many: () => Array.from({ length: 150 }, (_, i) => `v${i}`),
        exactly100: async () => Array.from({ length: 100 }, (_, i) => `w${i}`),
      },
    },
    () => ({ messages: [] }),
  );
  server.registerResourceTemplate(
    'test://repos/{owner}/{repo}',
    {
      name: 'repo',
      complete: {
        repo: async (value, { arguments: args, ctx }) => {
          seen.push({ value, arguments: args, method: ctx.method });
          return (REPOS[args.owner] ?? []).filter((r) => r.startsWith(value));
        },
      },
    },
    () => 'x',
  );
  server.registerResource('test://static', { name: 'static' }, () => 'x');
}

describe('completion/complete', () => {
  it('completes a prompt argument with its completer', async () => {
    const seen: Seen[] = [];
    const { url } = await h.start((server) => setup(server, seen));
    const client = await h.ready(url);

    const reply = await client.request(
      'completion/complete',
      { ref: { type: 'ref/prompt', name: 'code_review' }, argument: { name: 'language', value: 'p' } },
      'c',
    );

    expect(reply).toEqual({ jsonrpc: '2.0', id: 'c', result: { completion: { values: ['python', 'perl', 'php'], total: 3, hasMore: false } } });
    expect(seen).toEqual([{ value: 'p', arguments: {}, method: 'completion/complete' }]);
  });

  it('passes context.arguments to a prompt argument completer', async () => {
    const seen: Seen[] = [];
    const { url } = await h.start((server) => setup(server, seen));
    const client = await h.ready(url);

    const reply = await client.request('completion/complete', {
      ref: { type: 'ref/prompt', name: 'code_review' },
      argument: { name: 'language', value: 'ru' },
      context: { arguments: { style: 'strict' } },
    });

    expect(reply.result).toEqual({ completion: { values: ['rust', 'ruby'], total: 2, hasMore: false } });
    expect(seen).toEqual([{ value: 'ru', arguments: { style: 'strict' }, method: 'completion/complete' }]);
  });

  it('completes a resource template variable, passing context.arguments through', async () => {
    const seen: Seen[] = [];
    const { url } = await h.start((server) => setup(server, seen));
    const client = await h.ready(url);

    const reply = await client.request(
      'completion/complete',
      {
        ref: { type: 'ref/resource', uri: 'test://repos/{owner}/{repo}' },
        argument: { name: 'repo', value: 'r' },
        context: { arguments: { owner: 'acme' } },
      },
      'rt',
    );

    expect(reply).toEqual({ jsonrpc: '2.0', id: 'rt', result: { completion: { values: ['rocket', 'roadrunner'], total: 2, hasMore: false } } });
    expect(seen).toEqual([{ value: 'r', arguments: { owner: 'acme' }, method: 'completion/complete' }]);
  });

  it('truncates more than 100 values to the first 100, with the total and hasMore: true', async () => {
    const { url } = await h.start((server) => setup(server));
    const client = await h.ready(url);

    const reply = await client.request('completion/complete', { ref: { type: 'ref/prompt', name: 'code_review' }, argument: { name: 'many', value: '' } });

    expect(reply.result).toEqual({
      completion: { values: Array.from({ length: 100 }, (_, i) => `v${i}`), total: 150, hasMore: true },
    });
  });

  it('answers exactly 100 values whole, with hasMore: false', async () => {
    const { url } = await h.start((server) => setup(server));
    const client = await h.ready(url);

    const reply = await client.request('completion/complete', {
      ref: { type: 'ref/prompt', name: 'code_review' },
      argument: { name: 'exactly100', value: '' },
    });

    expect(reply.result).toEqual({
      completion: { values: Array.from({ length: 100 }, (_, i) => `w${i}`), total: 100, hasMore: false },
    });
  });

  it.each([
    ['a prompt argument without a completer', { type: 'ref/prompt', name: 'code_review' }, 'style'],
    ['a template variable without a completer', { type: 'ref/resource', uri: 'test://repos/{owner}/{repo}' }, 'owner'],
    ['a static resource', { type: 'ref/resource', uri: 'test://static' }, 'anything'],
  ])('answers an empty completion for %s', async (_what, ref, name) => {
    const { url } = await h.start((server) => setup(server));
    const client = await h.ready(url);

    expect(await client.request('completion/complete', { ref, argument: { name, value: 'a' } }, 'e')).toEqual({
      jsonrpc: '2.0',
      id: 'e',
      result: { completion: { values: [], hasMore: false } },
    });
  });

  it('answers -32602 for an unknown prompt ref', async () => {
    const { url } = await h.start((server) => setup(server));
    const client = await h.ready(url);

    expect(await client.request('completion/complete', { ref: { type: 'ref/prompt', name: 'nope' }, argument: { name: 'a', value: '' } }, 'u')).toEqual({
      jsonrpc: '2.0',
      id: 'u',
      error: { code: -32602, message: 'Unknown prompt: nope' },
    });
  });

  it('answers -32602 for an unknown resource ref', async () => {
    const { url } = await h.start((server) => setup(server));
    const client = await h.ready(url);

    expect(
      await client.request('completion/complete', { ref: { type: 'ref/resource', uri: 'test://nope/{x}' }, argument: { name: 'x', value: '' } }, 'u'),
    ).toEqual({
      jsonrpc: '2.0',
      id: 'u',
      error: { code: -32602, message: 'Unknown resource or resource template: test://nope/{x}' },
    });
  });

  it.each([
    ['no ref', { argument: { name: 'language', value: 'p' } }, 'completion/complete needs params.ref'],
    ['a ref that is not an object', { ref: 'ref/prompt', argument: { name: 'language', value: 'p' } }, 'completion/complete needs params.ref'],
    ['no argument', { ref: { type: 'ref/prompt', name: 'code_review' } }, 'completion/complete needs params.argument with a name and a value'],
    [
      'an argument without a value',
      { ref: { type: 'ref/prompt', name: 'code_review' }, argument: { name: 'language' } },
      'completion/complete needs params.argument with a name and a value',
    ],
    [
      'an argument value that is not a string',
      { ref: { type: 'ref/prompt', name: 'code_review' }, argument: { name: 'language', value: 1 } },
      'completion/complete needs params.argument with a name and a value',
    ],
    ['an unknown ref type', { ref: { type: 'ref/tool', name: 'x' }, argument: { name: 'a', value: '' } }, 'Unknown completion reference type: "ref/tool"'],
  ])('answers -32602 for params with %s', async (_what, params, message) => {
    const { url } = await h.start((server) => setup(server));
    const client = await h.ready(url);

    expect(await client.request('completion/complete', params, 'bad')).toEqual({
      jsonrpc: '2.0',
      id: 'bad',
      error: { code: -32602, message },
    });
  });
});
