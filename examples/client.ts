import { McpClient } from 'switchboard-mcp';

const client = new McpClient({ name: 'trip-app', version: '1.0.0' });

// Answer the server's questions as a person would; the client fills in the form's defaults (SEP-1034)
// and checks the answer against the form before it goes back.
client.onElicitation(async (params) => {
  if (params.mode === 'url') return { action: 'decline' };
  console.log(`the server asks: ${params.message}`);
  return { action: 'accept', content: { city: 'Lisbon' } };
});
client.on('log', ({ level, data }) => console.log(`[${level}] ${JSON.stringify(data)}`));

// http(s) URLs speak Streamable HTTP, ws(s) URLs WebSocket; the era is settled by asking the server.
await client.connect(process.argv[2] ?? 'ws://127.0.0.1:3000/mcp');
console.log(`connected to ${client.serverInfo?.name} over protocol ${client.protocolVersion}`);

const { tools } = await client.listTools();
console.log(`tools: ${tools.map((tool) => tool.name).join(', ')}`);

const result = await client.callTool('plan_trip', {}, { timeoutMs: 30_000 });
for (const block of result.content) if (block.type === 'text') console.log(block.text);

await client.close();
