import { describe, expect, it } from 'vitest';
import type { CompleteParams, McpServer } from '../../src/index.js';
import { rpcError, useMcpClients } from '../helpers/mcp-clients.js';
import { useCleanups } from '../helpers/cleanups.js';
import { startWebSocket } from '../helpers/servers.js';
import { useWsSessions } from '../helpers/ws-sessions.js';

const cleanups = useCleanups();
const h = useWsSessions(cleanups);
const clients = useMcpClients(cleanups);

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
    const { client } = await clients.connect(await startWebSocket(cleanups, (server) => setup(server, seen)));

    const result = await client.complete({ ref: { type: 'ref/prompt', name: 'code_review' }, argument: { name: 'language', value: 'p' } });

    expect(result).toEqual({ completion: { values: ['python', 'perl', 'php'], total: 3, hasMore: false } });
    expect(seen).toEqual([{ value: 'p', arguments: {}, method: 'completion/complete' }]);
  });

  it('passes context.arguments to a prompt argument completer', async () => {
    const seen: Seen[] = [];
    const { client } = await clients.connect(await startWebSocket(cleanups, (server) => setup(server, seen)));

    const result = await client.complete({
      ref: { type: 'ref/prompt', name: 'code_review' },
      argument: { name: 'language', value: 'ru' },
      context: { arguments: { style: 'strict' } },
    });

    expect(result).toEqual({ completion: { values: ['rust', 'ruby'], total: 2, hasMore: false } });
    expect(seen).toEqual([{ value: 'ru', arguments: { style: 'strict' }, method: 'completion/complete' }]);
  });

  it('completes a resource template variable, passing context.arguments through', async () => {
    const seen: Seen[] = [];
    const { client } = await clients.connect(await startWebSocket(cleanups, (server) => setup(server, seen)));

    const result = await client.complete({
      ref: { type: 'ref/resource', uri: 'test://repos/{owner}/{repo}' },
      argument: { name: 'repo', value: 'r' },
      context: { arguments: { owner: 'acme' } },
    });

    expect(result).toEqual({ completion: { values: ['rocket', 'roadrunner'], total: 2, hasMore: false } });
    expect(seen).toEqual([{ value: 'r', arguments: { owner: 'acme' }, method: 'completion/complete' }]);
  });

  it('truncates more than 100 values to the first 100, with the total and hasMore: true', async () => {
    const { client } = await clients.connect(await startWebSocket(cleanups, (server) => setup(server)));

    const result = await client.complete({ ref: { type: 'ref/prompt', name: 'code_review' }, argument: { name: 'many', value: '' } });

    expect(result).toEqual({
      completion: { values: Array.from({ length: 100 }, (_, i) => `v${i}`), total: 150, hasMore: true },
    });
  });

  it('answers exactly 100 values whole, with hasMore: false', async () => {
    const { client } = await clients.connect(await startWebSocket(cleanups, (server) => setup(server)));

    const result = await client.complete({
      ref: { type: 'ref/prompt', name: 'code_review' },
      argument: { name: 'exactly100', value: '' },
    });

    expect(result).toEqual({
      completion: { values: Array.from({ length: 100 }, (_, i) => `w${i}`), total: 100, hasMore: false },
    });
  });

  it.each<[string, CompleteParams['ref'], string]>([
    ['a prompt argument without a completer', { type: 'ref/prompt', name: 'code_review' }, 'style'],
    ['a template variable without a completer', { type: 'ref/resource', uri: 'test://repos/{owner}/{repo}' }, 'owner'],
    ['a static resource', { type: 'ref/resource', uri: 'test://static' }, 'anything'],
  ])('answers an empty completion for %s', async (_what, ref, name) => {
    const { client } = await clients.connect(await startWebSocket(cleanups, (server) => setup(server)));

    expect(await client.complete({ ref, argument: { name, value: 'a' } })).toEqual({ completion: { values: [], hasMore: false } });
  });

  it('answers -32602 for an unknown prompt ref', async () => {
    const { client } = await clients.connect(await startWebSocket(cleanups, (server) => setup(server)));

    expect(await rpcError(client.complete({ ref: { type: 'ref/prompt', name: 'nope' }, argument: { name: 'a', value: '' } }))).toEqual({
      code: -32602,
      message: 'Unknown prompt: nope',
    });
  });

  it('answers -32602 for an unknown resource ref', async () => {
    const { client } = await clients.connect(await startWebSocket(cleanups, (server) => setup(server)));

    expect(await rpcError(client.complete({ ref: { type: 'ref/resource', uri: 'test://nope/{x}' }, argument: { name: 'x', value: '' } }))).toEqual({
      code: -32602,
      message: 'Unknown resource or resource template: test://nope/{x}',
    });
  });

  // Malformed params McpClient never sends (complete() takes a CompleteParams): raw peer.
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
    const { url } = await startWebSocket(cleanups, (server) => setup(server));
    const client = await h.ready(url);

    expect(await client.request('completion/complete', params, 'bad')).toEqual({
      jsonrpc: '2.0',
      id: 'bad',
      error: { code: -32602, message },
    });
  });
});
