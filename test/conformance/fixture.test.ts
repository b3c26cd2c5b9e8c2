/**
 * The conformance fixture catalog served over WebSocket, driven by the official SDK v1 client the way
 * the conformance suite drives a server (capabilities {sampling: {}, elicitation: {}}): every tool,
 * prompt and resource of test-peers.md §3.1 with its exact payload. Plus the fixture server process.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { WebSocketClientTransport } from '@modelcontextprotocol/sdk/client/websocket.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
  type ElicitRequest,
  type ElicitResult,
} from '@modelcontextprotocol/sdk/types.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { registerFixtureCatalog, TEST_AUDIO_BASE64, TEST_IMAGE_BASE64 } from '../../conformance/fixture-catalog.js';
import type { McpServer, McpSession } from '../../src/index.js';
import { toolText as text } from '../helpers/client-requests.js';
import { recordEvents } from '../helpers/server-events.js';
import { recordMessages } from '../helpers/ws-sessions.js';
import { WsTestClient } from '../helpers/ws-client.js';
import { startWebSocket } from '../helpers/servers.js';
import { useSdkPeers } from '../helpers/sdk-peer.js';
import { useCleanups } from '../helpers/cleanups.js';

const cleanups = useCleanups();
const h = useSdkPeers(cleanups);
const root = fileURLToPath(new URL('../..', import.meta.url));
const tsx = fileURLToPath(new URL('../../node_modules/.bin/tsx', import.meta.url));

const FIXTURE_INFO = { name: 'switchboard-conformance-fixture', version: '1.0.0' };
const SAMPLING_ANSWER = {
  role: 'assistant' as const,
  content: { type: 'text' as const, text: 'This is a test response from the client' },
  model: 'test-model',
  stopReason: 'endTurn',
};

interface Fixture {
  client: Client;
  session: McpSession;
  url: string;
  server: McpServer;
  elicitations: ElicitRequest['params'][];
  samplings: unknown[];
}

/** The fixture catalog on a fresh server, and an SDK client set up like the conformance runner. */
async function openFixture(elicitAnswer: ElicitResult = { action: 'decline' }): Promise<Fixture> {
  const running = await startWebSocket(cleanups, registerFixtureCatalog, { info: FIXTURE_INFO });
  const elicitations: ElicitRequest['params'][] = [];
  const samplings: unknown[] = [];
  const { client, session } = await h.connect(running, { capabilities: { sampling: {}, elicitation: {} } }, (c) => {
    c.setRequestHandler(ElicitRequestSchema, async (request) => {
      elicitations.push(request.params);
      return elicitAnswer;
    });
    c.setRequestHandler(CreateMessageRequestSchema, async (request) => {
      samplings.push(request.params);
      return SAMPLING_ANSWER;
    });
  });
  return { client, session, url: running.url, server: running.server, elicitations, samplings };
}

const TOOL_NAMES = [
  'test_simple_text',
  'test_image_content',
  'test_audio_content',
  'test_embedded_resource',
  'test_multiple_content_types',
  'test_tool_with_logging',
  'test_tool_with_progress',
  'test_error_handling',
  'test_reconnection',
  'test_sampling',
  'test_elicitation',
  'test_elicitation_sep1034_defaults',
  'test_elicitation_sep1330_enums',
  'json_schema_2020_12_tool',
];

/** The spawned fixture server also serves the 2026-07-28 fixtures. */
const MODERN_TOOL_NAMES = [
  'test_input_required_result_elicitation',
  'test_input_required_result_sampling',
  'test_input_required_result_list_roots',
  'test_input_required_result_request_state',
  'test_input_required_result_tampered_state',
  'test_input_required_result_multiple_inputs',
  'test_input_required_result_multi_round',
  'test_input_required_result_capabilities',
  'test_missing_capability',
  'test_streaming_elicitation',
  'test_logging_tool',
  'test_headers',
  'test_trigger_tool_change',
  'test_trigger_prompt_change',
  'greet',
  'slow_compute',
  'failing_job',
  'protocol_error_job',
  'confirm_delete',
  'multi_input',
  'test_tool_with_task',
];

describe('lifecycle and utilities', () => {
  it('initializes at 2025-11-25 with the fixture server info and the capabilities the scenarios need', async () => {
    const { client } = await openFixture();
    expect(client.getServerVersion()).toEqual(FIXTURE_INFO);
    expect(client.getServerCapabilities()).toEqual({
      logging: {},
      completions: {},
      prompts: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      tools: { listChanged: true },
    });
  });

  it('answers ping with {}', async () => {
    const { client } = await openFixture();
    expect(await client.ping()).toEqual({});
  });

  it('answers logging/setLevel with {} and records the level on the session', async () => {
    const { client, session, server } = await openFixture();
    const levels = recordEvents(server, 'loggingSetLevel');
    expect(await client.setLoggingLevel('debug')).toEqual({});
    expect(levels).toEqual([[session, 'debug']]);
    expect(session.logLevel).toBe('debug');
  });

  it('answers completion/complete for ref/prompt test_prompt_with_arguments arg1 with an empty completion', async () => {
    const { client } = await openFixture();
    expect(await client.complete({ ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' }, argument: { name: 'arg1', value: 'he' } })).toEqual({
      completion: { values: [], hasMore: false },
    });
  });
});

describe('tools', () => {
  it('lists every fixture tool with a valid name, a description and an object inputSchema', async () => {
    const { client } = await openFixture();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(TOOL_NAMES);
    for (const tool of tools) {
      expect(tool.name).toMatch(/^[A-Za-z0-9_./-]{1,64}$/);
      expect(typeof tool.description).toBe('string');
      expect(tool.description!.length).toBeGreaterThan(0);
      expect(tool.inputSchema.type).toBe('object');
    }
  });

  it('test_simple_text returns the simple text', async () => {
    const { client } = await openFixture();
    expect(await client.callTool({ name: 'test_simple_text' })).toEqual(text('This is a simple text response for testing.'));
  });

  it('test_image_content returns one base64 PNG image', async () => {
    const { client } = await openFixture();
    expect(await client.callTool({ name: 'test_image_content' })).toEqual({ content: [{ type: 'image', data: TEST_IMAGE_BASE64, mimeType: 'image/png' }] });
    expect([...Buffer.from(TEST_IMAGE_BASE64, 'base64').subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  });

  it('test_audio_content returns one base64 WAV audio block', async () => {
    const { client } = await openFixture();
    expect(await client.callTool({ name: 'test_audio_content' })).toEqual({ content: [{ type: 'audio', data: TEST_AUDIO_BASE64, mimeType: 'audio/wav' }] });
    const wav = Buffer.from(TEST_AUDIO_BASE64, 'base64');
    expect([wav.subarray(0, 4).toString('latin1'), wav.subarray(8, 12).toString('latin1')]).toEqual(['RIFF', 'WAVE']);
  });

  it('test_embedded_resource returns the text/plain resource test://embedded-resource', async () => {
    const { client } = await openFixture();
    expect(await client.callTool({ name: 'test_embedded_resource' })).toEqual({
      content: [{ type: 'resource', resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' } }],
    });
  });

  it('test_multiple_content_types returns text, image and an application/json resource in that order', async () => {
    const { client } = await openFixture();
    expect(await client.callTool({ name: 'test_multiple_content_types' })).toEqual({
      content: [
        { type: 'text', text: 'Multiple content types test:' },
        { type: 'image', data: TEST_IMAGE_BASE64, mimeType: 'image/png' },
        { type: 'resource', resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: '{"test":"data","value":123}' } },
      ],
    });
  });

  it('test_tool_with_logging sends three info notifications/message during the call after logging/setLevel debug', async () => {
    const { client } = await openFixture();
    const logs: unknown[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params));
    await client.setLoggingLevel('debug');
    expect(await client.callTool({ name: 'test_tool_with_logging' })).toEqual(text('Tool with logging executed successfully'));
    await client.ping();
    expect(logs).toEqual([
      { level: 'info', data: 'Tool execution started' },
      { level: 'info', data: 'Tool processing data' },
      { level: 'info', data: 'Tool execution completed' },
    ]);
  });

  it('test_tool_with_progress sends progress 0, 50, 100 of 100 echoing the token, all before the result', async () => {
    const running = await startWebSocket(cleanups, registerFixtureCatalog, { info: FIXTURE_INFO });
    const { client } = await WsTestClient.initialized(running.url);
    cleanups.push(() => client.close());
    const log = recordMessages(client);

    const reply = await client.request('tools/call', { name: 'test_tool_with_progress', arguments: {}, _meta: { progressToken: 'progress-test-1' } }, 'call-1');
    expect(reply).toEqual({ jsonrpc: '2.0', id: 'call-1', result: { content: [{ type: 'text', text: 'progress-test-1' }] } });
    expect(log).toEqual([
      {
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: 'progress-test-1', progress: 0, total: 100, message: 'Completed step 0 of 100' },
      },
      {
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: 'progress-test-1', progress: 50, total: 100, message: 'Completed step 50 of 100' },
      },
      {
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: 'progress-test-1', progress: 100, total: 100, message: 'Completed step 100 of 100' },
      },
      reply,
    ]);
  });

  it('test_tool_with_progress reports progress to the SDK onprogress callback', async () => {
    const { client } = await openFixture();
    const progress: unknown[] = [];
    const result = await client.callTool({ name: 'test_tool_with_progress' }, undefined, { onprogress: (p) => void progress.push(p) });
    // The SDK chooses the token (its request id) and the tool echoes it back.
    expect(result).toEqual(text(expect.stringMatching(/^\d+$/) as unknown as string));
    // The SDK drops a request's progress handler when the response arrives, so it may lose the last one.
    expect(progress.slice(0, 2)).toEqual([
      { progress: 0, total: 100, message: 'Completed step 0 of 100' },
      { progress: 50, total: 100, message: 'Completed step 50 of 100' },
    ]);
  });

  it('test_error_handling returns an isError result with the error message', async () => {
    const { client } = await openFixture();
    expect(await client.callTool({ name: 'test_error_handling' })).toEqual(text('This tool intentionally returns an error for testing', true));
  });

  it('test_reconnection completes with its text over WebSocket, where there is no SSE stream to close', async () => {
    const { client } = await openFixture();
    expect(await client.callTool({ name: 'test_reconnection' })).toEqual(
      text('Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure.'),
    );
  });

  it('test_sampling sends sampling/createMessage with maxTokens 100 and returns the client text', async () => {
    const { client, samplings, server, session } = await openFixture();
    const events = recordEvents(server, 'responseSamplingCreateMessage');
    expect(await client.callTool({ name: 'test_sampling', arguments: { prompt: 'What is the capital of France?' } })).toEqual(
      text('LLM response: This is a test response from the client'),
    );
    const params = { messages: [{ role: 'user', content: { type: 'text', text: 'What is the capital of France?' } }], maxTokens: 100 };
    expect(samplings).toEqual([params]);
    expect(events).toEqual([[session, { jsonrpc: '2.0', id: 0, method: 'sampling/createMessage', params }, { isError: false, ...SAMPLING_ANSWER }]]);
  });

  it('test_elicitation asks for username and email and reports the accepted answer', async () => {
    const { client, elicitations } = await openFixture({ action: 'accept', content: { username: 'testuser', email: 'test@example.com' } });
    expect(await client.callTool({ name: 'test_elicitation', arguments: { message: 'Please provide your information' } })).toEqual(
      text('User response: action=accept, content={"username":"testuser","email":"test@example.com"}'),
    );
    expect(elicitations).toEqual([
      {
        message: 'Please provide your information',
        requestedSchema: {
          type: 'object',
          properties: {
            username: { type: 'string', description: "User's response" },
            email: { type: 'string', description: "User's email address" },
          },
          required: ['username', 'email'],
        },
      },
    ]);
  });

  it('test_elicitation_sep1034_defaults sends the exact SEP-1034 defaults and reports the answer', async () => {
    const answer = { name: 'Jane Smith', age: 25, score: 88.0, status: 'inactive', verified: false };
    const { client, elicitations } = await openFixture({ action: 'accept', content: answer });
    expect(await client.callTool({ name: 'test_elicitation_sep1034_defaults' })).toEqual(
      text('Elicitation completed: action=accept, content={"name":"Jane Smith","age":25,"score":88,"status":"inactive","verified":false}'),
    );
    expect(elicitations).toEqual([
      {
        mode: 'form',
        message: 'Please review and update the form fields with defaults',
        requestedSchema: {
          type: 'object',
          properties: {
            name: { type: 'string', description: 'User name', default: 'John Doe' },
            age: { type: 'integer', description: 'User age', default: 30 },
            score: { type: 'number', description: 'User score', default: 95.5 },
            status: { type: 'string', description: 'User status', enum: ['active', 'inactive', 'pending'], default: 'active' },
            verified: { type: 'boolean', description: 'Verification status', default: true },
          },
          required: [],
        },
      },
    ]);
  });

  it('test_elicitation_sep1330_enums sends the five SEP-1330 enum forms in one request and reports the answer', async () => {
    const answer = {
      untitledSingle: 'option1',
      titledSingle: 'value2',
      legacyEnum: 'opt3',
      untitledMulti: ['option1', 'option2'],
      titledMulti: ['value1', 'value3'],
    };
    const { client, elicitations } = await openFixture({ action: 'accept', content: answer });
    expect(await client.callTool({ name: 'test_elicitation_sep1330_enums' })).toEqual(
      text(`Elicitation completed: action=accept, content=${JSON.stringify(answer)}`),
    );
    expect(elicitations).toHaveLength(1);
    const request = elicitations[0];
    expect(request).toMatchObject({ mode: 'form', message: 'Please select options from the enum fields' });
    const properties = request.mode === 'form' ? request.requestedSchema.properties : {};
    expect(Object.keys(properties)).toEqual(['untitledSingle', 'titledSingle', 'legacyEnum', 'untitledMulti', 'titledMulti']);
    expect(properties.untitledSingle).toEqual({ type: 'string', description: 'Select one option', enum: ['option1', 'option2', 'option3'] });
    expect(properties.titledSingle).toEqual({
      type: 'string',
      description: 'Select one option with titles',
      oneOf: [
        { const: 'value1', title: 'First Option' },
        { const: 'value2', title: 'Second Option' },
        { const: 'value3', title: 'Third Option' },
      ],
    });
    expect(properties.legacyEnum).toEqual({
      type: 'string',
      description: 'Select one option (legacy)',
      enum: ['opt1', 'opt2', 'opt3'],
      enumNames: ['Option One', 'Option Two', 'Option Three'],
    });
    expect(properties.untitledMulti).toEqual({
      type: 'array',
      description: 'Select multiple options',
      minItems: 1,
      maxItems: 3,
      items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
    });
    expect(properties.titledMulti).toEqual({
      type: 'array',
      description: 'Select multiple options with titles',
      minItems: 1,
      maxItems: 3,
      items: {
        anyOf: [
          { const: 'value1', title: 'First Choice' },
          { const: 'value2', title: 'Second Choice' },
          { const: 'value3', title: 'Third Choice' },
        ],
      },
    });
  });

  // The suite's SEP-1613 / SEP-2106 schema: $anchor, composition and conditionals must survive listing.
  const JSON_SCHEMA_2020_12 = {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    $defs: { address: { $anchor: 'addressDef', type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } } },
    properties: {
      name: { type: 'string' },
      address: { $ref: '#/$defs/address' },
      contactMethod: { type: 'string', enum: ['phone', 'email'] },
      phone: { type: 'string' },
      email: { type: 'string' },
    },
    allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
    if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
    // biome-ignore lint/suspicious/noThenProperty: the JSON Schema if/then/else keyword
    then: { required: ['phone'] },
    else: { required: ['email'] },
    additionalProperties: false,
  };

  it('json_schema_2020_12_tool is listed with $schema, $defs and additionalProperties verbatim, on the wire and through the SDK', async () => {
    const { client, url } = await openFixture();
    const listed = (await client.listTools()).tools.find((t) => t.name === 'json_schema_2020_12_tool');
    expect(listed?.inputSchema).toEqual(JSON_SCHEMA_2020_12);

    const { client: raw } = await WsTestClient.initialized(url);
    cleanups.push(() => raw.close());
    const reply = await raw.request('tools/list');
    const wire = (reply.result.tools as { name: string; inputSchema: unknown }[]).find((t) => t.name === 'json_schema_2020_12_tool');
    expect(wire?.inputSchema).toEqual(JSON_SCHEMA_2020_12);
    expect(Object.keys(wire?.inputSchema as object)).toEqual(['$schema', 'type', '$defs', 'properties', 'allOf', 'if', 'then', 'else', 'additionalProperties']);
  });

  it('json_schema_2020_12_tool validates arguments through $defs and additionalProperties', async () => {
    const { client } = await openFixture();
    expect(
      await client.callTool({
        name: 'json_schema_2020_12_tool',
        arguments: { name: 'Ada', address: { street: '1 Main St', city: 'Springfield' }, email: 'ada@example.com' },
      }),
    ).toEqual(text('JSON Schema 2020-12 tool called with: {"name":"Ada","address":{"street":"1 Main St","city":"Springfield"},"email":"ada@example.com"}'));
    expect(await client.callTool({ name: 'json_schema_2020_12_tool', arguments: { name: 'Ada', address: { city: 7 }, email: 'ada@example.com' } })).toEqual(
      text('Invalid arguments for tool json_schema_2020_12_tool: /address/city: must be string', true),
    );
    expect(await client.callTool({ name: 'json_schema_2020_12_tool', arguments: { name: 'Ada', nickname: 'A', email: 'ada@example.com' } })).toEqual(
      text('Invalid arguments for tool json_schema_2020_12_tool: (root): must NOT have additional properties', true),
    );
    // if/then: choosing the phone needs a phone number.
    expect(await client.callTool({ name: 'json_schema_2020_12_tool', arguments: { contactMethod: 'phone', email: 'ada@example.com' } })).toEqual(
      text(`Invalid arguments for tool json_schema_2020_12_tool: /phone: must have required property 'phone'; (root): must match "then" schema`, true),
    );
  });
});

describe('resources', () => {
  it('lists the three direct resources with uri, name and description', async () => {
    const { client } = await openFixture();
    expect(await client.listResources()).toEqual({
      resources: [
        {
          uri: 'test://static-text',
          name: 'static-text',
          title: 'Static Text Resource',
          description: 'A static text resource for testing',
          mimeType: 'text/plain',
        },
        {
          uri: 'test://static-binary',
          name: 'static-binary',
          title: 'Static Binary Resource',
          description: 'A static binary resource (image) for testing',
          mimeType: 'image/png',
        },
        {
          uri: 'test://watched-resource',
          name: 'watched-resource',
          title: 'Watched Resource',
          description: 'A resource clients can subscribe to',
          mimeType: 'text/plain',
        },
      ],
    });
  });

  it('lists the template test://template/{id}/data', async () => {
    const { client } = await openFixture();
    expect(await client.listResourceTemplates()).toEqual({
      resourceTemplates: [
        {
          uriTemplate: 'test://template/{id}/data',
          name: 'template',
          title: 'Resource Template',
          description: 'A resource template with parameter substitution',
          mimeType: 'application/json',
        },
      ],
    });
  });

  it('reads test://static-text as text/plain', async () => {
    const { client } = await openFixture();
    expect(await client.readResource({ uri: 'test://static-text' })).toEqual({
      contents: [{ uri: 'test://static-text', mimeType: 'text/plain', text: 'This is the content of the static text resource.' }],
    });
  });

  it('reads test://static-binary as an image/png blob', async () => {
    const { client } = await openFixture();
    expect(await client.readResource({ uri: 'test://static-binary' })).toEqual({
      contents: [{ uri: 'test://static-binary', mimeType: 'image/png', blob: TEST_IMAGE_BASE64 }],
    });
  });

  it('reads test://watched-resource as text/plain', async () => {
    const { client } = await openFixture();
    expect(await client.readResource({ uri: 'test://watched-resource' })).toEqual({
      contents: [{ uri: 'test://watched-resource', mimeType: 'text/plain', text: 'Watched resource content' }],
    });
  });

  it('reads test://template/123/data as the application/json template document', async () => {
    const { client } = await openFixture();
    const result = await client.readResource({ uri: 'test://template/123/data' });
    expect(result).toEqual({
      contents: [{ uri: 'test://template/123/data', mimeType: 'application/json', text: '{"id":"123","templateTest":true,"data":"Data for ID: 123"}' }],
    });
    expect(JSON.parse((result.contents[0] as { text: string }).text)).toEqual({ id: '123', templateTest: true, data: 'Data for ID: 123' });
  });

  it('answers resources/subscribe and resources/unsubscribe for test://watched-resource with {}, and updates reach only a subscriber', async () => {
    const { client, session, server } = await openFixture();
    const updates: unknown[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updates.push(n.params));
    const subscribed = recordEvents(server, 'resourceSubscribe');
    const unsubscribed = recordEvents(server, 'resourceUnsubscribe');

    expect(await client.subscribeResource({ uri: 'test://watched-resource' })).toEqual({});
    expect(subscribed).toEqual([[session, 'test://watched-resource']]);
    expect(server.sendResourceUpdated('test://watched-resource')).toBe(1);
    await client.ping();
    expect(updates).toEqual([{ uri: 'test://watched-resource' }]);

    expect(await client.unsubscribeResource({ uri: 'test://watched-resource' })).toEqual({});
    expect(unsubscribed).toEqual([[session, 'test://watched-resource']]);
    expect(server.sendResourceUpdated('test://watched-resource')).toBe(0);
    await client.ping();
    expect(updates).toHaveLength(1);
  });
});

describe('prompts', () => {
  it('lists the four prompts with name, description and arguments', async () => {
    const { client } = await openFixture();
    expect(await client.listPrompts()).toEqual({
      prompts: [
        { name: 'test_simple_prompt', title: 'Simple Test Prompt', description: 'A simple prompt without arguments' },
        {
          name: 'test_prompt_with_arguments',
          title: 'Prompt With Arguments',
          description: 'A prompt with required arguments',
          arguments: [
            { name: 'arg1', description: 'First test argument', required: true },
            { name: 'arg2', description: 'Second test argument', required: true },
          ],
        },
        {
          name: 'test_prompt_with_embedded_resource',
          title: 'Prompt With Embedded Resource',
          description: 'A prompt that includes an embedded resource',
          arguments: [{ name: 'resourceUri', description: 'URI of the resource to embed', required: true }],
        },
        { name: 'test_prompt_with_image', title: 'Prompt With Image', description: 'A prompt that includes image content' },
      ],
    });
  });

  it('test_simple_prompt returns one user text message', async () => {
    const { client } = await openFixture();
    expect(await client.getPrompt({ name: 'test_simple_prompt' })).toEqual({
      messages: [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }],
    });
  });

  it('test_prompt_with_arguments substitutes arg1 and arg2', async () => {
    const { client } = await openFixture();
    expect(await client.getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: 'hello', arg2: 'world' } })).toEqual({
      messages: [{ role: 'user', content: { type: 'text', text: "Prompt with arguments: arg1='hello', arg2='world'" } }],
    });
  });

  it('test_prompt_with_arguments without arg2 is rejected with -32602', async () => {
    const { client } = await openFixture();
    await expect(client.getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: 'hello' } })).rejects.toMatchObject({
      code: -32602,
      message: 'MCP error -32602: Missing required argument for prompt test_prompt_with_arguments: arg2',
    });
  });

  it('test_prompt_with_embedded_resource embeds the given resourceUri, then asks to process it', async () => {
    const { client } = await openFixture();
    expect(await client.getPrompt({ name: 'test_prompt_with_embedded_resource', arguments: { resourceUri: 'test://example-resource' } })).toEqual({
      messages: [
        {
          role: 'user',
          content: { type: 'resource', resource: { uri: 'test://example-resource', mimeType: 'text/plain', text: 'Embedded resource content for testing.' } },
        },
        { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
      ],
    });
  });

  it('test_prompt_with_image returns an image message, then asks to analyze it', async () => {
    const { client } = await openFixture();
    expect(await client.getPrompt({ name: 'test_prompt_with_image' })).toEqual({
      messages: [
        { role: 'user', content: { type: 'image', data: TEST_IMAGE_BASE64, mimeType: 'image/png' } },
        { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
      ],
    });
  });
});

describe('the fixture server process', () => {
  /** Spawn `tsx conformance/fixture-server.ts` with `args`; it is stopped after the test. */
  function spawnFixture(args: string[]): {
    child: ChildProcess;
    stdout: () => string;
    stderr: () => string;
    exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  } {
    const child = spawn(tsx, ['conformance/fixture-server.ts', ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal })),
    );
    cleanups.push(async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(timer);
      }
    });
    return { child, stdout: () => out, stderr: () => err, exited };
  }

  /** Resolve with the first stdout match of `pattern`, or reject if the process exits first. */
  function waitForOutput(spawned: ReturnType<typeof spawnFixture>, pattern: RegExp): Promise<RegExpMatchArray> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const match = spawned.stdout().match(pattern);
        if (match) {
          spawned.child.stdout!.off('data', check);
          resolve(match);
        }
      };
      spawned.child.stdout!.on('data', check);
      void spawned.exited.then(({ code }) => reject(new Error(`fixture server exited with ${code} before printing ${pattern}; stderr: ${spawned.stderr()}`)));
      check();
    });
  }

  it('listens on the port it prints for --port 0 and serves initialize and tools/list over WebSocket', async () => {
    const spawned = spawnFixture(['--port', '0']);
    const [line, port] = await waitForOutput(
      spawned,
      /Switchboard conformance fixture on http:\/\/127\.0\.0\.1:(\d+)\/mcp \(WebSocket at ws:\/\/127\.0\.0\.1:\1\/mcp\)\n/,
    );
    expect(Number(port)).toBeGreaterThan(0);
    expect(line).toBe(`Switchboard conformance fixture on http://127.0.0.1:${port}/mcp (WebSocket at ws://127.0.0.1:${port}/mcp)\n`);

    const client = new Client({ name: 'conformance-runner', version: '1.0.0' }, { capabilities: { sampling: {}, elicitation: {} } });
    cleanups.push(() => client.close());
    await client.connect(new WebSocketClientTransport(new URL(`ws://127.0.0.1:${port}/mcp`)));
    expect(client.getServerVersion()).toEqual(FIXTURE_INFO);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual([...TOOL_NAMES, ...MODERN_TOOL_NAMES]);
    expect(await client.callTool({ name: 'test_simple_text' })).toEqual(text('This is a simple text response for testing.'));
    await client.close();

    spawned.child.kill('SIGTERM');
    expect(await spawned.exited).toEqual({ code: 0, signal: null });
  });

  it.each([['abc'], ['65536'], ['1.5']])('exits with code 2 and says why for --port %s', async (port) => {
    const spawned = spawnFixture(['--port', port]);
    expect(await spawned.exited).toEqual({ code: 2, signal: null });
    expect(spawned.stderr()).toContain(`--port must be a port number; got ${port}`);
    expect(spawned.stdout()).toBe('');
  });
});
