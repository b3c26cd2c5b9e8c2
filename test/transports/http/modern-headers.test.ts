/**
 * SEP-2243 on 2026-07-28 POSTs, over real HTTP: MCP-Protocol-Version, Mcp-Method and Mcp-Name must repeat
 * the body, tool arguments marked `x-mcp-header` are mirrored as Mcp-Param-* headers, and any header that
 * is missing, malformed or different is -32020 with HTTP 400.
 */
import { describe, expect, it } from 'vitest';
import type { McpServer } from '../../../src/index.js';
import type { OpenResponse } from '../../helpers/http-client.js';
import { base64Header, META_KEYS, modernPost } from '../../helpers/modern.js';
import { useCleanups } from '../../helpers/cleanups.js';
import { startHttp } from '../../helpers/servers.js';
import type { Json } from '../../helpers/ws-client.js';

const cleanups = useCleanups();

interface Fixture {
  server: McpServer;
  url: string;
  /** Arguments each `query` call reached the handler with. */
  queries: Json[];
}

/** A server with the tools, prompt and resources the headers name. */
async function start(): Promise<Fixture> {
  const queries: Json[] = [];
  const { server, url } = await startHttp(cleanups, (server) => {
    server.registerTool('echo', { inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }, ({ text }) => String(text));
    server.registerTool(
      'query',
      {
        inputSchema: {
          type: 'object',
          properties: {
            region: { type: 'string', 'x-mcp-header': 'Region' },
            sql: { type: 'string' },
          },
          required: ['sql'],
        },
      },
      (args) => {
        queries.push(args);
        return `ran in ${String(args.region ?? 'default')}`;
      },
    );
    server.registerPrompt('grüße', {}, () => ({ messages: [{ role: 'user', content: { type: 'text', text: 'Hallo' } }] }));
    server.registerResource('test://doc', { name: 'doc' }, () => 'doc text');
    server.registerResource('test://café', { name: 'cafe' }, () => 'coffee');
  });
  return { server, url, queries };
}

/** Status, content type and the whole JSON body. */
async function answer(res: OpenResponse): Promise<{ status: number; contentType: unknown; body: Json }> {
  return { status: res.status, contentType: res.headers['content-type'], body: await res.json() };
}

function mismatch(id: string | number, message: string) {
  return { status: 400, contentType: 'application/json', body: { jsonrpc: '2.0', id, error: { code: -32020, message } } };
}

function ok(id: string | number, result: Json) {
  return { status: 200, contentType: 'application/json', body: { jsonrpc: '2.0', id, result } };
}

const text = (t: string) => ({ resultType: 'complete', content: [{ type: 'text', text: t }] });

// ---------------------------------------------------------------------------------------------------------

describe('MCP-Protocol-Version', () => {
  it('answers a POST without it with -32020 (HTTP 400), keeping the request id', async () => {
    const { url } = await start();
    const res = await modernPost(url, 'tools/list', {}, { id: 'h1', headers: { 'mcp-protocol-version': undefined } });
    expect(await answer(res)).toEqual(mismatch('h1', 'Header mcp-protocol-version is required: it must repeat the _meta protocolVersion ("2026-07-28")'));
  });

  it('answers a header version different from the _meta version with -32020', async () => {
    const { url } = await start();
    const res = await modernPost(url, 'tools/list', {}, { id: 2, headers: { 'mcp-protocol-version': '2025-11-25' } });
    expect(await answer(res)).toEqual(mismatch(2, 'Header mcp-protocol-version is "2025-11-25" but the _meta protocolVersion is "2026-07-28"'));
  });

  it('answers a header mismatch with -32020 even when the _meta version is unsupported (the mismatch wins over -32022)', async () => {
    const { url } = await start();
    const res = await modernPost(
      url,
      'tools/list',
      {},
      { id: 3, meta: { [META_KEYS.protocolVersion]: '2099-01-01' }, headers: { 'mcp-protocol-version': '2026-07-28' } },
    );
    expect(await answer(res)).toEqual(mismatch(3, 'Header mcp-protocol-version is "2026-07-28" but the _meta protocolVersion is "2099-01-01"'));
  });

  it('answers a wrong Mcp-Method with -32020 even when header and _meta agree on an unsupported version', async () => {
    const { url } = await start();
    const res = await modernPost(
      url,
      'tools/list',
      {},
      { id: 4, meta: { [META_KEYS.protocolVersion]: '2099-01-01' }, headers: { 'mcp-method': 'prompts/list' } },
    );
    expect(await answer(res)).toEqual(mismatch(4, 'Header mcp-method is "prompts/list" but the method is "tools/list"'));
  });

  it('answers -32022 when the headers match an unsupported version', async () => {
    const { url } = await start();
    const res = await modernPost(url, 'tools/list', {}, { id: 5, meta: { [META_KEYS.protocolVersion]: '2099-01-01' } });
    expect(await answer(res)).toEqual({
      status: 400,
      contentType: 'application/json',
      body: {
        jsonrpc: '2.0',
        id: 5,
        error: { code: -32022, message: 'Unsupported protocol version', data: { supported: ['2026-07-28'], requested: '2099-01-01' } },
      },
    });
  });
});

describe('Mcp-Method', () => {
  it('answers a POST without it with -32020', async () => {
    const { url } = await start();
    const res = await modernPost(url, 'server/discover', {}, { id: 'm', headers: { 'mcp-method': undefined } });
    expect(await answer(res)).toEqual(mismatch('m', 'Header mcp-method is required: it must repeat the method ("server/discover")'));
  });

  it('answers a method header different from the body with -32020, and runs nothing', async () => {
    const { url, queries } = await start();
    const res = await modernPost(url, 'tools/call', { name: 'query', arguments: { sql: 'select 1' } }, { headers: { 'mcp-method': 'tools/list' } });
    expect(await answer(res)).toEqual(mismatch(1, 'Header mcp-method is "tools/list" but the method is "tools/call"'));
    expect(queries).toEqual([]);
  });
});

describe('Mcp-Name', () => {
  it.each([
    ['tools/call', { name: 'echo', arguments: { text: 'x' } }, 'params.name', 'echo'],
    ['prompts/get', { name: 'grüße' }, 'params.name', 'grüße'],
    ['resources/read', { uri: 'test://doc' }, 'params.uri', 'test://doc'],
    // The Tasks extension (SEP-2663): tasks/get, tasks/update and tasks/cancel name their task.
    ['tasks/get', { taskId: 't-1' }, 'params.taskId', 't-1'],
    ['tasks/cancel', { taskId: 't-2' }, 'params.taskId', 't-2'],
  ])('answers %s without Mcp-Name with -32020', async (method, params, what, value) => {
    const { url } = await start();
    const res = await modernPost(url, method, params, { headers: { 'mcp-name': undefined } });
    expect(await answer(res)).toEqual(mismatch(1, `Header mcp-name is required: it must repeat ${what} (${JSON.stringify(value)})`));
  });

  it.each([
    ['tools/call', { name: 'echo', arguments: { text: 'x' } }, 'params.name', 'echo'],
    ['prompts/get', { name: 'grüße' }, 'params.name', 'grüße'],
    ['resources/read', { uri: 'test://doc' }, 'params.uri', 'test://doc'],
    // The Tasks extension (SEP-2663): tasks/get, tasks/update and tasks/cancel name their task.
    ['tasks/get', { taskId: 't-1' }, 'params.taskId', 't-1'],
    ['tasks/cancel', { taskId: 't-2' }, 'params.taskId', 't-2'],
  ])('answers %s whose Mcp-Name differs from the body with -32020', async (method, params, what, value) => {
    const { url } = await start();
    const res = await modernPost(url, method, params, { headers: { 'mcp-name': 'something-else' } });
    expect(await answer(res)).toEqual(mismatch(1, `Header mcp-name is "something-else" but ${what} is ${JSON.stringify(value)}`));
  });

  it('answers a prompts/get with a non-ASCII name sent as =?base64?...?= with its result', async () => {
    const { url } = await start();
    const res = await modernPost(url, 'prompts/get', { name: 'grüße' }, { headers: { 'mcp-name': base64Header('grüße') } });
    expect(await answer(res)).toEqual(ok(1, { resultType: 'complete', messages: [{ role: 'user', content: { type: 'text', text: 'Hallo' } }] }));
  });

  it('answers a resources/read with a base64-encoded non-ASCII uri with its result', async () => {
    const { url } = await start();
    const res = await modernPost(url, 'resources/read', { uri: 'test://café' }, { headers: { 'mcp-name': base64Header('test://café') } });
    expect(await answer(res)).toEqual(ok(1, { resultType: 'complete', contents: [{ uri: 'test://café', text: 'coffee' }], ttlMs: 0, cacheScope: 'private' }));
  });

  it('answers a base64 value that decodes to something else with -32020', async () => {
    const { url } = await start();
    const res = await modernPost(url, 'resources/read', { uri: 'test://doc' }, { headers: { 'mcp-name': base64Header('test://other') } });
    expect(await answer(res)).toEqual(mismatch(1, 'Header mcp-name is "test://other" but params.uri is "test://doc"'));
  });
});

describe('header syntax', () => {
  it('matches header names case-insensitively', async () => {
    const { url } = await start();
    const res = await modernPost(
      url,
      'tools/call',
      { name: 'echo', arguments: { text: 'case' } },
      {
        headers: {
          'mcp-protocol-version': undefined,
          'mcp-method': undefined,
          'mcp-name': undefined,
          'MCP-PROTOCOL-VERSION': '2026-07-28',
          'mCp-MeThOd': 'tools/call',
          'MCP-Name': 'echo',
        },
      },
    );
    expect(await answer(res)).toEqual(ok(1, text('case')));
  });

  it('trims whitespace around header values', async () => {
    const { url } = await start();
    const res = await modernPost(
      url,
      'tools/call',
      { name: 'echo', arguments: { text: 'trim' } },
      { headers: { 'mcp-protocol-version': '  2026-07-28 ', 'mcp-method': '\ttools/call  ', 'mcp-name': ' echo\t' } },
    );
    expect(await answer(res)).toEqual(ok(1, text('trim')));
  });

  it('decodes =?base64?...?= on every checked header, ASCII values included', async () => {
    const { url } = await start();
    const res = await modernPost(
      url,
      'tools/call',
      { name: 'echo', arguments: { text: 'b64' } },
      { headers: { 'mcp-protocol-version': base64Header('2026-07-28'), 'mcp-method': base64Header('tools/call'), 'mcp-name': base64Header('echo') } },
    );
    expect(await answer(res)).toEqual(ok(1, text('b64')));
  });

  it.each([
    ['a length that is not a multiple of 4', '=?base64?ZWNo?=x'],
    ['a truncated group', '=?base64?ZWN?='],
    ['characters outside the alphabet', '=?base64?ZW*o?='],
    ['no closing ?=', '=?base64?ZWNobw=='],
  ])('answers a malformed base64 value (%s) with -32020', async (_name, value) => {
    const { url } = await start();
    const res = await modernPost(url, 'tools/call', { name: 'echo', arguments: { text: 'x' } }, { id: 'bad', headers: { 'mcp-name': value } });
    const { status, contentType, body } = await answer(res);
    expect({ status, contentType, id: body.id, code: body.error?.code }).toEqual({ status: 400, contentType: 'application/json', id: 'bad', code: -32020 });
  });

  it('names the malformed header in the -32020 message', async () => {
    const { url } = await start();
    const res = await modernPost(url, 'tools/call', { name: 'echo', arguments: { text: 'x' } }, { headers: { 'mcp-name': '=?base64?ZWN?=' } });
    expect(await answer(res)).toEqual(mismatch(1, 'Header mcp-name has a malformed =?base64?...?= value'));
  });
});

describe('Mcp-Param-* (x-mcp-header)', () => {
  it('serves a tools/call whose mirrored argument matches its Mcp-Param header', async () => {
    const { url, queries } = await start();
    const res = await modernPost(
      url,
      'tools/call',
      { name: 'query', arguments: { region: 'us-west1', sql: 'select 1' } },
      { headers: { 'Mcp-Param-Region': 'us-west1' } },
    );
    expect(await answer(res)).toEqual(ok(1, text('ran in us-west1')));
    expect(queries).toEqual([{ region: 'us-west1', sql: 'select 1' }]);
  });

  it('answers a missing Mcp-Param header for a present argument with -32020, and runs nothing', async () => {
    const { url, queries } = await start();
    const res = await modernPost(url, 'tools/call', { name: 'query', arguments: { region: 'us-west1', sql: 'select 1' } });
    expect(await answer(res)).toEqual(mismatch(1, 'Header mcp-param-region is required: it must repeat argument region ("us-west1")'));
    expect(queries).toEqual([]);
  });

  it('answers an Mcp-Param header that differs from the argument with -32020', async () => {
    const { url, queries } = await start();
    const res = await modernPost(
      url,
      'tools/call',
      { name: 'query', arguments: { region: 'us-west1', sql: 'select 1' } },
      { headers: { 'mcp-param-region': 'eu-west1' } },
    );
    expect(await answer(res)).toEqual(mismatch(1, 'Header mcp-param-region is "eu-west1" but argument region is "us-west1"'));
    expect(queries).toEqual([]);
  });

  it('answers an Mcp-Param header sent for an absent argument with -32020', async () => {
    const { url, queries } = await start();
    const res = await modernPost(url, 'tools/call', { name: 'query', arguments: { sql: 'select 1' } }, { headers: { 'mcp-param-region': 'us-west1' } });
    expect(await answer(res)).toEqual(mismatch(1, 'Header Mcp-Param-Region is set but argument region is absent'));
    expect(queries).toEqual([]);
  });

  it('serves a call with the argument absent and no Mcp-Param header', async () => {
    const { url, queries } = await start();
    const res = await modernPost(url, 'tools/call', { name: 'query', arguments: { sql: 'select 1' } });
    expect(await answer(res)).toEqual(ok(1, text('ran in default')));
    expect(queries).toEqual([{ sql: 'select 1' }]);
  });

  it('decodes a base64 Mcp-Param value before comparing', async () => {
    const { url } = await start();
    const res = await modernPost(
      url,
      'tools/call',
      { name: 'query', arguments: { region: 'Zürich', sql: 'select 1' } },
      { headers: { 'mcp-param-region': base64Header('Zürich') } },
    );
    expect(await answer(res)).toEqual(ok(1, text('ran in Zürich')));
  });

  it('answers a malformed base64 Mcp-Param value with -32020', async () => {
    const { url } = await start();
    const res = await modernPost(
      url,
      'tools/call',
      { name: 'query', arguments: { region: 'x', sql: 'select 1' } },
      { headers: { 'mcp-param-region': '=?base64?eA?=' } },
    );
    expect(await answer(res)).toEqual(mismatch(1, 'Header mcp-param-region has a malformed =?base64?...?= value'));
  });

  it('checks Mcp-Param headers only for tools/call of the tool that declares them', async () => {
    const { url } = await start();
    const res = await modernPost(url, 'tools/call', { name: 'echo', arguments: { text: 'no params' } }, { headers: { 'mcp-param-region': 'anything' } });
    expect(await answer(res)).toEqual(ok(1, text('no params')));
  });
});
