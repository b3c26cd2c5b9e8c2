import { McpServer, StreamableHttpTransport } from 'switchboard-mcp';

const server = new McpServer({ name: 'bookshop', version: '1.0.0' });

// The form the user fills in. Written `as const`, it types the answer too.
const orderForm = {
  type: 'object',
  properties: {
    copies: { type: 'integer', title: 'Copies', minimum: 1, maximum: 5, default: 1 },
    giftWrap: { type: 'boolean', title: 'Gift-wrap them?', default: false },
  },
  required: ['copies'],
} as const;

server.registerTool(
  'order_book',
  {
    description: 'Orders a book, asking how many copies',
    inputSchema: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] },
  },
  async ({ title }, ctx) => {
    // Legacy era: sends elicitation/create and waits for the answer. Modern era: answers the call with an
    // input round; the client's retry runs this handler again, from the top, with the answer.
    const answer = await ctx.elicit({ message: `How many copies of ${title}?`, requestedSchema: orderForm });
    if (answer.action !== 'accept') return 'Nothing ordered.';
    const { copies, giftWrap } = answer.content; // copies: number, giftWrap: boolean | undefined
    return `Ordered ${copies} of ${title}${giftWrap ? ', gift-wrapped' : ''}.`;
  },
);

const { url } = await new StreamableHttpTransport(server).listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 3000) });
console.log(`listening on ${url}`);
