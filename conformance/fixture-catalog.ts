/**
 * The conformance suite's fixture tools, prompts and resources, built on the public API only.
 * Names and payloads follow the suite's scenarios (server mode).
 */
import type { McpServer } from '../src/index.js';

/** A 1x1 red PNG and a minimal WAV file. */
export const TEST_IMAGE_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
export const TEST_AUDIO_BASE64 = 'UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=';

const NO_ARGS = { type: 'object', properties: {} } as const;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const SEP1034_SCHEMA = {
  type: 'object',
  properties: {
    name: { type: 'string', description: 'User name', default: 'John Doe' },
    age: { type: 'integer', description: 'User age', default: 30 },
    score: { type: 'number', description: 'User score', default: 95.5 },
    status: { type: 'string', description: 'User status', enum: ['active', 'inactive', 'pending'], default: 'active' },
    verified: { type: 'boolean', description: 'Verification status', default: true },
  },
  required: [],
} as const;

export const SEP1330_SCHEMA = {
  type: 'object',
  properties: {
    untitledSingle: { type: 'string', description: 'Select one option', enum: ['option1', 'option2', 'option3'] },
    titledSingle: {
      type: 'string',
      description: 'Select one option with titles',
      oneOf: [
        { const: 'value1', title: 'First Option' },
        { const: 'value2', title: 'Second Option' },
        { const: 'value3', title: 'Third Option' },
      ],
    },
    legacyEnum: {
      type: 'string',
      description: 'Select one option (legacy)',
      enum: ['opt1', 'opt2', 'opt3'],
      enumNames: ['Option One', 'Option Two', 'Option Three'],
    },
    untitledMulti: {
      type: 'array',
      description: 'Select multiple options',
      minItems: 1,
      maxItems: 3,
      items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
    },
    titledMulti: {
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
    },
  },
  required: [],
} as const;

export const JSON_SCHEMA_2020_12_INPUT_SCHEMA = {
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
} as const;

function describeAnswer(prefix: string, answer: { action: string; content?: unknown }): string {
  return `${prefix}: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`;
}

export function registerFixtureCatalog(server: McpServer): void {
  server.registerTool(
    'test_simple_text',
    { description: 'Tests simple text content response', inputSchema: NO_ARGS },
    () => 'This is a simple text response for testing.',
  );

  server.registerTool('test_image_content', { description: 'Tests image content response', inputSchema: NO_ARGS }, () => ({
    content: [{ type: 'image', data: TEST_IMAGE_BASE64, mimeType: 'image/png' }],
  }));

  server.registerTool('test_audio_content', { description: 'Tests audio content response', inputSchema: NO_ARGS }, () => ({
    content: [{ type: 'audio', data: TEST_AUDIO_BASE64, mimeType: 'audio/wav' }],
  }));

  server.registerTool('test_embedded_resource', { description: 'Tests embedded resource content response', inputSchema: NO_ARGS }, () => ({
    content: [{ type: 'resource', resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' } }],
  }));

  server.registerTool(
    'test_multiple_content_types',
    { description: 'Tests response with multiple content types (text, image, resource)', inputSchema: NO_ARGS },
    () => ({
      content: [
        { type: 'text', text: 'Multiple content types test:' },
        { type: 'image', data: TEST_IMAGE_BASE64, mimeType: 'image/png' },
        {
          type: 'resource',
          resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: JSON.stringify({ test: 'data', value: 123 }) },
        },
      ],
    }),
  );

  server.registerTool(
    'test_tool_with_logging',
    { description: 'Tests tool that emits log messages during execution', inputSchema: NO_ARGS },
    async (_args, ctx) => {
      ctx.log('info', 'Tool execution started');
      await sleep(50);
      ctx.log('info', 'Tool processing data');
      await sleep(50);
      ctx.log('info', 'Tool execution completed');
      return 'Tool with logging executed successfully';
    },
  );

  server.registerTool(
    'test_tool_with_progress',
    { description: 'Tests tool that reports progress notifications', inputSchema: NO_ARGS },
    async (_args, ctx) => {
      for (const step of [0, 50, 100]) {
        ctx.progress(step, 100, `Completed step ${step} of 100`);
        if (step < 100) await sleep(50);
      }
      return String(ctx.progressToken ?? 0);
    },
  );

  server.registerTool('test_error_handling', { description: 'Tests error response handling', inputSchema: NO_ARGS }, () => {
    throw new Error('This tool intentionally returns an error for testing');
  });

  server.registerTool(
    'test_reconnection',
    {
      description:
        'Tests SSE stream disconnection and client reconnection (SEP-1699): the server closes the stream mid-call and the result arrives after the client reconnects.',
      inputSchema: NO_ARGS,
    },
    async (_args, ctx) => {
      ctx.closeStream();
      await sleep(100);
      return 'Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure.';
    },
  );

  server.registerTool(
    'test_sampling',
    {
      description: 'Tests server-initiated sampling (LLM completion request)',
      inputSchema: { type: 'object', properties: { prompt: { type: 'string', description: 'The prompt to send to the LLM' } }, required: ['prompt'] },
    },
    async ({ prompt }, ctx) => {
      const result = await ctx.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: String(prompt) } }], maxTokens: 100 });
      const content = Array.isArray(result.content) ? result.content[0] : result.content;
      return `LLM response: ${typeof content?.text === 'string' ? content.text : 'No response'}`;
    },
  );

  server.registerTool(
    'test_elicitation',
    {
      description: 'Tests server-initiated elicitation (user input request)',
      inputSchema: { type: 'object', properties: { message: { type: 'string', description: 'The message to show the user' } }, required: ['message'] },
    },
    async ({ message }, ctx) => {
      const answer = await ctx.elicit({
        message: String(message),
        requestedSchema: {
          type: 'object',
          properties: {
            username: { type: 'string', description: "User's response" },
            email: { type: 'string', description: "User's email address" },
          },
          required: ['username', 'email'],
        },
      });
      return describeAnswer('User response', answer);
    },
  );

  server.registerTool(
    'test_elicitation_sep1034_defaults',
    { description: 'Tests elicitation with default values per SEP-1034', inputSchema: NO_ARGS },
    async (_args, ctx) => {
      const answer = await ctx.elicit({
        mode: 'form',
        message: 'Please review and update the form fields with defaults',
        requestedSchema: structuredClone(SEP1034_SCHEMA) as never,
      });
      return describeAnswer('Elicitation completed', answer);
    },
  );

  server.registerTool(
    'test_elicitation_sep1330_enums',
    { description: 'Tests elicitation with enum schema improvements per SEP-1330', inputSchema: NO_ARGS },
    async (_args, ctx) => {
      const answer = await ctx.elicit({
        mode: 'form',
        message: 'Please select options from the enum fields',
        requestedSchema: structuredClone(SEP1330_SCHEMA) as never,
      });
      return describeAnswer('Elicitation completed', answer);
    },
  );

  server.registerTool(
    'json_schema_2020_12_tool',
    {
      description: 'Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613)',
      inputSchema: structuredClone(JSON_SCHEMA_2020_12_INPUT_SCHEMA) as never,
    },
    (args) => `JSON Schema 2020-12 tool called with: ${JSON.stringify(args)}`,
  );

  server.registerResource(
    'test://static-text',
    { name: 'static-text', title: 'Static Text Resource', description: 'A static text resource for testing', mimeType: 'text/plain' },
    () => 'This is the content of the static text resource.',
  );

  server.registerResource(
    'test://static-binary',
    { name: 'static-binary', title: 'Static Binary Resource', description: 'A static binary resource (image) for testing', mimeType: 'image/png' },
    (uri) => [{ uri, mimeType: 'image/png', blob: TEST_IMAGE_BASE64 }],
  );

  server.registerResource(
    'test://watched-resource',
    { name: 'watched-resource', title: 'Watched Resource', description: 'A resource clients can subscribe to', mimeType: 'text/plain' },
    () => 'Watched resource content',
  );

  server.registerResourceTemplate(
    'test://template/{id}/data',
    { name: 'template', title: 'Resource Template', description: 'A resource template with parameter substitution', mimeType: 'application/json' },
    (_uri, { id }) => JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }),
  );

  server.registerPrompt('test_simple_prompt', { title: 'Simple Test Prompt', description: 'A simple prompt without arguments' }, () => ({
    messages: [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }],
  }));

  server.registerPrompt(
    'test_prompt_with_arguments',
    {
      title: 'Prompt With Arguments',
      description: 'A prompt with required arguments',
      arguments: [
        { name: 'arg1', description: 'First test argument', required: true },
        { name: 'arg2', description: 'Second test argument', required: true },
      ],
    },
    ({ arg1, arg2 }) => ({ messages: [{ role: 'user', content: { type: 'text', text: `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'` } }] }),
  );

  server.registerPrompt(
    'test_prompt_with_embedded_resource',
    {
      title: 'Prompt With Embedded Resource',
      description: 'A prompt that includes an embedded resource',
      arguments: [{ name: 'resourceUri', description: 'URI of the resource to embed', required: true }],
    },
    ({ resourceUri }) => ({
      messages: [
        { role: 'user', content: { type: 'resource', resource: { uri: resourceUri, mimeType: 'text/plain', text: 'Embedded resource content for testing.' } } },
        { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
      ],
    }),
  );

  server.registerPrompt('test_prompt_with_image', { title: 'Prompt With Image', description: 'A prompt that includes image content' }, () => ({
    messages: [
      { role: 'user', content: { type: 'image', data: TEST_IMAGE_BASE64, mimeType: 'image/png' } },
      { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
    ],
  }));
}
