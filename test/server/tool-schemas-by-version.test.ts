/**
 * tools/list by protocol version: `x-mcp-header` (SEP-2243) means something from 2026-07-28 on, so
 * sessions of earlier versions get each inputSchema without it, one that a strict validator (Ajv's
 * `strict`, as Genkit's MCP client runs it) compiles; 2026-07-28 requests get the schema as registered.
 */
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import type { JsonSchemaObject, McpServer } from '../../src/index.js';
import { modernRequest } from '../helpers/modern.js';
import { startWebSocket } from '../helpers/servers.js';
import { useWsSessions } from '../helpers/ws-sessions.js';
import { useCleanups } from '../helpers/cleanups.js';

const cleanups = useCleanups();
const h = useWsSessions(cleanups);

const FORECAST: JsonSchemaObject = {
  type: 'object',
  properties: {
    region: { type: 'string', description: 'Where', 'x-mcp-header': 'Region' },
    days: { type: 'integer', minimum: 1 },
  },
  required: ['region'],
};
/** A mark that names no header is still a 2026-07-28 keyword. */
const UNNAMED_MARK: JsonSchemaObject = { type: 'object', properties: { tag: { type: 'string', 'x-mcp-header': '' } } };
const CONTACT: JsonSchemaObject = { type: 'object', properties: { email: { type: 'string', format: 'email' } }, additionalProperties: false };

const register = (server: McpServer) => {
  server.registerTool('forecast', { description: 'Weather', inputSchema: FORECAST }, () => 'sunny');
  server.registerTool('unnamed_mark', { inputSchema: UNNAMED_MARK }, () => 'ok');
  server.registerTool('contact', { inputSchema: CONTACT }, () => 'ok');
  server.registerTool('no_arguments', {}, () => 'ok');
};

function strictAjv(): Ajv {
  const ajv = new Ajv({ strict: true });
  // ajv-formats is CommonJS: its default import is the plugin itself, as src/schema/compiler.ts uses it.
  (addFormats as unknown as (ajv: Ajv) => Ajv)(ajv);
  return ajv;
}

describe.each(['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'])('tools/list on a %s session', (protocolVersion) => {
  it('leaves x-mcp-header out of every inputSchema, and keeps the rest as registered', async () => {
    const running = await startWebSocket(cleanups, register);
    const { client } = await h.open(running, { protocolVersion });
    const reply = await client.request('tools/list', {}, 'list');
    expect(reply).toEqual({
      jsonrpc: '2.0',
      id: 'list',
      result: {
        tools: [
          {
            name: 'forecast',
            description: 'Weather',
            inputSchema: {
              type: 'object',
              properties: { region: { type: 'string', description: 'Where' }, days: { type: 'integer', minimum: 1 } },
              required: ['region'],
            },
          },
          { name: 'unnamed_mark', inputSchema: { type: 'object', properties: { tag: { type: 'string' } } } },
          { name: 'contact', inputSchema: CONTACT },
          { name: 'no_arguments', inputSchema: { type: 'object', additionalProperties: false } },
        ],
      },
    });
  });

  it('gives inputSchemas that each compile in a strict Ajv', async () => {
    const running = await startWebSocket(cleanups, register);
    const { client } = await h.open(running, { protocolVersion });
    const { result } = await client.request('tools/list');
    const ajv = strictAjv();
    for (const tool of result.tools) expect(() => ajv.compile(tool.inputSchema), tool.name).not.toThrow();
  });
});

describe('tools/list on 2026-07-28', () => {
  it('keeps x-mcp-header, which a strict Ajv refuses as the unknown keyword it is before 2026-07-28', async () => {
    const running = await startWebSocket(cleanups, register);
    const { client } = await h.connect(running);
    const reply = await client.request('tools/list', modernRequest('list', 'tools/list').params, 'list');
    const schemas = Object.fromEntries(reply.result.tools.map((tool: { name: string; inputSchema: object }) => [tool.name, tool.inputSchema]));
    expect(schemas).toEqual({
      forecast: FORECAST,
      unnamed_mark: UNNAMED_MARK,
      contact: CONTACT,
      no_arguments: { type: 'object', additionalProperties: false },
    });
    expect(() => strictAjv().compile(schemas.forecast)).toThrow('strict mode: unknown keyword: "x-mcp-header"');
  });

  it('and a 2025-11-25 session on the same server still gets the schema without it', async () => {
    const running = await startWebSocket(cleanups, register);
    const { client: modern } = await h.connect(running);
    const { client: legacy } = await h.open(running);
    const modernReply = await modern.request('tools/list', modernRequest('m', 'tools/list').params, 'm');
    const legacyReply = await legacy.request('tools/list', {}, 'l');
    expect(modernReply.result.tools[0].inputSchema.properties.region).toEqual({ type: 'string', description: 'Where', 'x-mcp-header': 'Region' });
    expect(legacyReply.result.tools[0].inputSchema.properties.region).toEqual({ type: 'string', description: 'Where' });
  });
});

it('leaves the schema the application registered as it was', async () => {
  await startWebSocket(cleanups, register);
  expect(FORECAST.properties?.region).toEqual({ type: 'string', description: 'Where', 'x-mcp-header': 'Region' });
});
