import { ElicitationNotSupportedError, McpServer, WebSocketTransport } from 'switchboard-mcp';

const server = new McpServer({ name: 'travel', version: '1.0.0' });

// Await the answer inside a handler: accept, decline or cancel, or a typed error. The form types the
// answer: once accepted, content is { city: string; nights: number; cabin?: 'economy' | 'business' }.
server.registerTool('plan_trip', { description: 'Plans a trip' }, async (_args, ctx) => {
  const answer = await ctx.elicit(
    {
      message: 'Where to?',
      requestedSchema: {
        type: 'object',
        properties: {
          city: { type: 'string', title: 'City' },
          nights: { type: 'integer', title: 'Nights', minimum: 1, maximum: 30, default: 3 },
          cabin: {
            type: 'string',
            oneOf: [
              { const: 'economy', title: 'Economy' },
              { const: 'business', title: 'Business' },
            ],
            default: 'economy',
          },
        },
        required: ['city', 'nights'],
      },
    },
    { timeoutMs: 5 * 60_000 },
  );
  if (answer.action !== 'accept') return `No trip planned (${answer.action}).`;
  return `Planned ${answer.content.nights} nights in ${answer.content.city}.`;
});

// A tool that writes asks first; anything but accept stops it with an isError result.
server.registerTool(
  'cancel_booking',
  {
    inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
    confirm: ({ id }) => `Cancel booking ${id}?`,
  },
  ({ id }) => `Booking ${id} cancelled.`,
);

// Or send, and observe: every request ends in exactly one response event.
server.on('responseElicitationCreate', (_session, request, response) => {
  if (response.isError) console.log(`elicitation ${request.id} failed: ${response.errorCode} ${response.errorMessage}`);
  else console.log(`elicitation ${request.id}: ${response.action} ${JSON.stringify(response.content ?? {})}`);
});
server.on('initialized', (session) => {
  try {
    const id = server.requestElicitationCreate(session, {
      message: 'What should I call you?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    });
    console.log(`sent elicitation ${id}`);
  } catch (err) {
    if (!(err instanceof ElicitationNotSupportedError)) throw err;
    console.log('this client cannot show forms');
  }
});

const { url } = await new WebSocketTransport(server).listen({ port: Number(process.env.PORT ?? 3000) });
console.log(`listening on ${url}`);
