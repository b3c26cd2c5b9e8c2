import { inputRequired, McpServer, StreamableHttpTransport, WebSocketTransport } from 'switchboard-mcp';

const server = new McpServer(
  { name: 'bookings', version: '1.0.0' },
  // Several instances behind one URL must share the requestState key.
  { requestState: { keys: [process.env.STATE_KEY ?? 'a development key of at least 32 bytes'] } },
);

// Era-portable: on a legacy-era session ctx.elicit sends elicitation/create and waits; on a 2026-07-28
// request it answers input-required and this handler runs again, from the top, with the answer.
server.registerTool('book', { description: 'Books a table' }, async (_args, ctx) => {
  const when = await ctx.elicit({
    message: 'Which day?',
    requestedSchema: { type: 'object', properties: { day: { type: 'string', format: 'date' } }, required: ['day'] },
  });
  if (when.action !== 'accept') return 'Nothing booked.';
  return `Booked for ${when.content!.day}.`;
});

// Explicit: the handler sees the answers and its own state, and decides what to ask next.
server.registerTool('survey', { description: 'Two questions, one round each' }, (_args, ctx) => {
  const first = ctx.inputResponses?.first as { content?: { likes?: boolean } } | undefined;
  if (!first) {
    return inputRequired({ state: { started: Date.now() } }).addElicitation('first', {
      message: 'Do you like it?',
      requestedSchema: { type: 'object', properties: { likes: { type: 'boolean' } }, required: ['likes'] },
    });
  }
  return `Thanks! likes=${first.content?.likes}, started ${typeof (ctx.requestState as { started?: number }).started}`;
});

const http = new StreamableHttpTransport(server);
const { url } = await http.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 3000) });
new WebSocketTransport(server).attach(http.httpServer!);
console.log(`listening on ${url}`);
