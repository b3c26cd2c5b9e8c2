/** SEP-2243: only a value wrapped in both =?base64? and ?= is Base64; anything else is compared as written. */
import { afterEach, describe, expect, it } from 'vitest';
import { McpServer, StreamableHttpTransport } from '../../../src/index.js';
import { modernPost } from '../../helpers/modern.js';

let server: McpServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function regionServer(): Promise<string> {
  server = new McpServer({ name: 'regions', version: '1.0.0' });
  server.registerTool(
    'where',
    { inputSchema: { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } }, required: ['region'] } },
    ({ region }) => `region=${region}`,
  );
  return (await new StreamableHttpTransport(server).listen({ host: '127.0.0.1', port: 0 })).url;
}

describe('Mcp-Param values that only look like Base64', () => {
  const hello = Buffer.from('Hello').toString('base64');

  it.each([
    ['without the ?= suffix', `=?base64?${hello}`],
    ['without the =?base64? prefix', hello],
  ])('treats a value %s as a literal that must equal the argument', async (_what, literal) => {
    const url = await regionServer();
    const res = await modernPost(url, 'tools/call', { name: 'where', arguments: { region: literal } }, { headers: { 'mcp-param-region': literal } });
    expect({ status: res.status, body: await res.json() }).toEqual({
      status: 200,
      body: { jsonrpc: '2.0', id: 1, result: { resultType: 'complete', content: [{ type: 'text', text: `region=${literal}` }] } },
    });
  });

  it('decodes a wrapped value and compares the decoded text', async () => {
    const url = await regionServer();
    const res = await modernPost(
      url,
      'tools/call',
      { name: 'where', arguments: { region: 'Hello' } },
      { headers: { 'mcp-param-region': `=?base64?${hello}?=` } },
    );
    expect(res.status).toBe(200);
    expect((await res.json()).result.content).toEqual([{ type: 'text', text: 'region=Hello' }]);
  });
});
