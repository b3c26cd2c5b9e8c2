import { McpServer, WebSocketTransport } from 'switchboard-mcp';

const server = new McpServer({ name: 'weather', version: '1.0.0', instructions: 'Ask for the weather by city.' });

server.registerTool(
  'get_weather',
  {
    description: 'Current weather for a city',
    inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
  async ({ city }, ctx) => {
    ctx.log('info', `looking up ${city}`);
    return `It is sunny in ${city}.`;
  },
);

server.on('sessionNew', (session) => console.log('hello', session.clientInfo?.name, session.protocolVersion));
server.on('sessionEnd', (session, reason) => console.log('bye', session.id, reason));

const { url } = await new WebSocketTransport(server).listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 3000) });
console.log(`listening on ${url}`);
