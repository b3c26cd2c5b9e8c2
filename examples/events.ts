import { McpError, McpServer, StdioTransport } from 'switchboard-mcp';

const server = new McpServer({ name: 'events', version: '1.0.0' });

// Answer, from a listener, any tool that has no registered handler.
server.on('requestTool', (session, request) => {
  if (request.params.name === 'whoami') request.respond(`You are ${session.clientInfo?.name}.`);
});

// Adjust the initialize result per client.
server.on('initialize', (_session, params, result) => {
  if (params.clientInfo.name === 'legacy-client') result.instructions = 'Keep answers short.';
});

// Ask the client something from the server side, outside any request.
server.on('initialized', async (session) => {
  try {
    await session.ping({ timeoutMs: 5_000 });
  } catch (err) {
    if (err instanceof McpError) console.error(`ping failed with ${err.code}: ${err.message}`);
  }
});

server.on('error', (err, session) => console.error(session?.id ?? '-', err.message));
new StdioTransport(server).start();
