/**
 * `npm run -s conformance:client -- <url>`: the client the conformance suite spawns in client mode. The
 * suite starts a mock server, appends its URL as the last argument and names the scenario in
 * MCP_CONFORMANCE_SCENARIO (test-peers.md §1.2); this does what that scenario asks, through McpClient
 * only. Exit 0 when done; 1 with the reason on stderr when a call fails or an answer is not the expected one.
 */
import { type CallToolResult, McpClient, type McpClientOptions, type Tool } from '../src/index.js';

type Scenario = (url: string) => Promise<void>;

const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
/** The spec version the mock speaks (alpha sets it per scenario; 0.1.16 sets none and speaks 2025-11-25). */
const specVersion = process.env.MCP_CONFORMANCE_PROTOCOL_VERSION ?? '2025-11-25';
const era: McpClientOptions = specVersion === '2026-07-28' ? { era: 'modern' } : { era: 'legacy', protocolVersion: specVersion };

/** A client for this scenario's era; what no call reports (a refused GET stream, a bad event) goes to stderr. */
function newClient(): McpClient {
  const client = new McpClient({ name: 'switchboard-conformance-client', version: '1.0.0' }, { ...era, requestTimeoutMs: 10_000 });
  client.on('error', (err) => console.error(`[${scenario}] client error event: ${err.message}`));
  return client;
}

/** Connect, run `body`, and close whatever happened. */
async function session(url: string, body: (client: McpClient) => Promise<void>, setup?: (client: McpClient) => void): Promise<void> {
  const client = newClient();
  setup?.(client);
  try {
    await client.connect(url);
    await body(client);
  } finally {
    await client.close();
  }
}

function textOf(result: CallToolResult): string {
  return result.content.map((block) => (block.type === 'text' ? block.text : `[${block.type}]`)).join('');
}

function expectText(name: string, result: CallToolResult, expected: string): void {
  const text = textOf(result);
  if (result.isError || text !== expected) throw new Error(`${name} answered ${JSON.stringify(result)}; expected the text ${JSON.stringify(expected)}`);
}

/** Arguments a tool's schema accepts: each required property gets a plain value of its type. */
function sampleArguments(tool: Tool): Record<string, unknown> {
  const schema = tool.inputSchema as { properties?: Record<string, { type?: string }>; required?: string[] };
  const samples: Record<string, unknown> = { string: 'x', integer: 1, number: 1.5, boolean: true, object: {}, array: [], null: null };
  const args: Record<string, unknown> = {};
  for (const name of schema.required ?? []) args[name] = samples[schema.properties?.[name]?.type ?? 'string'];
  return args;
}

const SCENARIOS: Record<string, Scenario> = {
  initialize: (url) =>
    session(url, async (client) => {
      await client.listTools();
    }),

  tools_call: (url) =>
    session(url, async (client) => {
      await client.listTools();
      expectText('add_numbers', await client.callTool('add_numbers', { a: 5, b: 3 }), 'The sum of 5 and 3 is 8');
    }),

  // SEP-1034: the user accepts the form as shown, changing nothing; McpClient fills in the defaults.
  'elicitation-sep1034-client-defaults': (url) =>
    session(
      url,
      async (client) => {
        const result = await client.callTool('test_client_elicitation_defaults');
        if (result.isError) throw new Error(`test_client_elicitation_defaults answered ${JSON.stringify(result)}`);
      },
      (client) => client.onElicitation(() => ({ action: 'accept', content: {} })),
    ),

  // The tool's POST stream closes after a priming event with `retry: 500`; the answer comes on the resumed GET.
  'sse-retry': (url) =>
    session(url, async (client) => {
      await client.listTools();
      expectText('test_reconnection', await client.callTool('test_reconnection'), 'Reconnection test completed successfully');
    }),

  // Every request is checked for its _meta and MCP-Protocol-Version; the first is refused with -32022.
  'request-metadata': (url) =>
    session(
      url,
      async (client) => {
        await client.listTools();
      },
      (client) =>
        client
          .onElicitation(() => ({ action: 'decline' }))
          .onSampling(() => ({ role: 'assistant', content: { type: 'text', text: 'no' }, model: 'none' }))
          .onRoots(() => ({ roots: [] })),
    ),

  // MRTR: requestState echoed byte for byte (or left out), a new id per retry; the unrelated tool is
  // called while the echo_state call waits for its input, and must carry nothing of that call.
  'sep-2322-client-request-state': async (url) => {
    let unrelated: Promise<CallToolResult> | undefined;
    await session(
      url,
      async (client) => {
        expectText('test_mrtr_echo_state', await client.callTool('test_mrtr_echo_state'), 'echo-state-ok');
        if (!unrelated) throw new Error('test_mrtr_echo_state completed without asking for input');
        expectText('test_mrtr_unrelated', await unrelated, 'unrelated-ok');
        expectText('test_mrtr_no_state', await client.callTool('test_mrtr_no_state'), 'no-state-ok');
        expectText('test_mrtr_no_result_type', await client.callTool('test_mrtr_no_result_type'), 'no-result-type-test-ok');
      },
      (client) =>
        client.onElicitation(async () => {
          if (!unrelated) {
            unrelated = client.callTool('test_mrtr_unrelated');
            await unrelated;
          }
          return { action: 'accept', content: { confirmed: true } };
        }),
    );
  },

  // Mcp-Method on every POST, Mcp-Name on tools/call, resources/read and prompts/get.
  'http-standard-headers': (url) =>
    session(url, async (client) => {
      for (const tool of await client.listAllTools()) await client.callTool(tool.name, sampleArguments(tool));
      for (const resource of (await client.listResources()).resources) await client.readResource(resource.uri);
      for (const prompt of (await client.listPrompts()).prompts) await client.getPrompt(prompt.name);
    }),

  // The calls to make come in MCP_CONFORMANCE_CONTEXT; McpClient mirrors the x-mcp-header arguments.
  'http-custom-headers': (url) =>
    session(url, async (client) => {
      const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}') as { toolCalls?: { name: string; arguments: Record<string, unknown> }[] };
      if (!context.toolCalls?.length) throw new Error('MCP_CONFORMANCE_CONTEXT names no toolCalls');
      for (const call of context.toolCalls) await client.callTool(call.name, call.arguments);
    }),

  // An application calling every tool it is offered: a tool with an invalid x-mcp-header must be left
  // out of the list or refused, and the valid one still called. A refusal is logged, not a failure.
  'http-invalid-tool-headers': (url) =>
    session(url, async (client) => {
      for (const tool of await client.listAllTools()) {
        await client.callTool(tool.name, sampleArguments(tool)).then(
          () => console.error(`[${scenario}] called ${tool.name}`),
          (err: Error) => console.error(`[${scenario}] ${tool.name} refused: ${err.message}`),
        );
      }
    }),

  // Listing must not fetch the network $ref in lookup_user's inputSchema; it must come back as sent.
  'json-schema-ref-no-deref': (url) =>
    session(url, async (client) => {
      const tool = (await client.listAllTools()).find((t) => t.name === 'lookup_user');
      const ref = (tool?.inputSchema as { properties?: { profile?: { $ref?: unknown } } } | undefined)?.properties?.profile?.$ref;
      if (typeof ref !== 'string' || !ref.startsWith('http'))
        throw new Error(`lookup_user's profile $ref is not the network URI sent: ${JSON.stringify(tool)}`);
    }),

  // The focal tool's inputSchema goes back verbatim, for the suite to see what the client kept.
  'json-schema-2020-12-preservation': (url) =>
    session(url, async (client) => {
      const tool = (await client.listAllTools()).find((t) => t.name === 'json_schema_2020_12_tool');
      if (!tool) throw new Error('tools/list did not offer json_schema_2020_12_tool');
      expectText('json_schema_echo', await client.callTool('json_schema_echo', { schema: tool.inputSchema }), 'echoed');
    }),
};

const url = process.argv.at(-1);
const run = SCENARIOS[scenario];
if (!run || !url || !/^https?:\/\//.test(url)) {
  console.error(
    `usage: MCP_CONFORMANCE_SCENARIO=<scenario> npm run -s conformance:client -- <url>; scenarios: ${Object.keys(SCENARIOS).join(', ')}; got scenario ${JSON.stringify(scenario)} and url ${JSON.stringify(url)}`,
  );
  process.exit(2);
}
try {
  await run(url);
  process.exit(0);
} catch (err) {
  console.error(`conformance client, scenario ${scenario} (${specVersion}): ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
}
