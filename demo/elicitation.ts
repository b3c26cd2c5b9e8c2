/** The demo's elicitation tools: a form, a URL-mode flow with its completion notification, and a confirmation gate. */
import { randomUUID } from 'node:crypto';
import type { McpServer, McpSession } from '../src/index.js';

/** URL-mode flows waiting for the user to open their page, by elicitation id. */
const waitingForBrowser = new Map<string, { session: McpSession; done: () => void }>();

/**
 * Handle `GET /connect/<elicitationId>`: the page a URL-mode elicitation points to. Returns false for
 * other paths. Opening it completes the flow and tells the client (`notifications/elicitation/complete`).
 */
export function handleConnectPage(server: McpServer, path: string, res: import('node:http').ServerResponse): boolean {
  const match = /^\/connect\/([\w-]+)$/.exec(path);
  if (!match) return false;
  const flow = waitingForBrowser.get(match[1]);
  if (!flow) {
    res.writeHead(404, { 'content-type': 'text/plain' }).end('This link has expired or was already used.\n');
    return true;
  }
  waitingForBrowser.delete(match[1]);
  server.notifyElicitationComplete(flow.session, match[1]);
  flow.done();
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>Connected</title><p>Your account is connected. You can close this tab.</p>\n');
  return true;
}

export function registerElicitationDemo(server: McpServer, baseUrl: () => string): void {
  server.registerTool(
    'book_table',
    {
      title: 'Book a table',
      description: 'Asks you for the booking details with a form, then books the table.',
      inputSchema: { type: 'object', properties: { restaurant: { type: 'string' } }, required: ['restaurant'] },
    },
    async ({ restaurant }, ctx) => {
      const answer = await ctx.elicit({
        message: `Booking at ${restaurant}: who, when and where?`,
        requestedSchema: {
          type: 'object',
          properties: {
            name: { type: 'string', title: 'Name', minLength: 1 },
            email: { type: 'string', title: 'Email', format: 'email' },
            date: { type: 'string', title: 'Date', format: 'date' },
            guests: { type: 'integer', title: 'Guests', minimum: 1, maximum: 12, default: 2 },
            seating: {
              type: 'string',
              title: 'Seating',
              oneOf: [
                { const: 'inside', title: 'Inside' },
                { const: 'terrace', title: 'Terrace' },
              ],
              default: 'inside',
            },
            dietary: { type: 'array', title: 'Dietary needs', items: { type: 'string', enum: ['vegetarian', 'vegan', 'gluten-free'] }, default: [] },
          },
          required: ['name', 'email', 'date'],
        },
      });
      if (answer.action !== 'accept') return `No booking made (you chose ${answer.action}).`;
      const { name, date, guests, seating } = answer.content!;
      return `Booked a table at ${restaurant} for ${guests ?? 2} on ${date}, ${seating ?? 'inside'}, under ${name}.`;
    },
  );

  server.registerTool(
    'connect_account',
    {
      title: 'Connect an account',
      description: 'Sends you to a page to connect an account (URL-mode elicitation), and waits until you have opened it.',
      inputSchema: { type: 'object', properties: {} },
    },
    async (_args, ctx) => {
      const elicitationId = randomUUID();
      const opened = new Promise<void>((resolve) => waitingForBrowser.set(elicitationId, { session: ctx.session, done: resolve }));
      try {
        const answer = await ctx.elicit({ mode: 'url', message: 'Open this page to connect your account.', url: `${baseUrl()}/connect/${elicitationId}`, elicitationId });
        if (answer.action !== 'accept') return `Not connected (you chose ${answer.action}).`;
        await Promise.race([opened, new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason), { once: true }))]);
        return 'Account connected.';
      } finally {
        waitingForBrowser.delete(elicitationId);
      }
    },
  );
}
