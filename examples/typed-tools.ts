import { McpClient, McpServer, StreamableHttpTransport, type ToolsOf } from 'switchboard-mcp';
import { z } from 'zod';

const server = new McpServer({ name: 'trips', version: '1.0.0' });

// zod types the handler (nights is a number, its default applied) and gives tools/list its JSON Schema.
const bookTrip = server.registerTool(
  'book_trip',
  {
    description: 'Books a trip',
    inputSchema: z.object({ city: z.string(), nights: z.number().int().min(1).default(1), class: z.enum(['economy', 'business']) }),
    outputSchema: z.object({ summary: z.string() }),
  },
  async ({ city, nights, class: seat }) => ({ structuredContent: { summary: `${nights} nights in ${city}, ${seat}` } }),
);

// A JSON Schema written inline types the handler too: ajv checks it, nothing to install.
const forecast = server.registerTool(
  'forecast',
  { inputSchema: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' } }, required: ['city'] } },
  async ({ city, days }) => `Sunny in ${city} for ${days ?? 1} days.`,
);

// The tools' types, for a client in the same codebase: names, arguments and structuredContent are checked.
export type TripTools = ToolsOf<typeof bookTrip | typeof forecast>;

const { url } = await new StreamableHttpTransport(server).listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 0) });
const client = new McpClient<TripTools>({ name: 'trip-app', version: '1.0.0' });
await client.connect(url);

const booked = await client.callTool('book_trip', { city: 'Lisbon', class: 'economy' });
console.log(booked.structuredContent?.summary); // 1 nights in Lisbon, economy
const weather = await client.callTool('forecast', { city: 'Lisbon', days: 3 });
console.log(weather.content[0]?.type === 'text' ? weather.content[0].text : '');

await client.close();
await server.close();
