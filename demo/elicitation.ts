/** The demo's elicitation tools: a form, a URL-mode flow with its completion notification, and a confirmation gate. */
import { randomUUID } from 'node:crypto';
import { inputRequired, type McpServer, type McpSession } from '../src/index.js';

/** URL-mode flows waiting for the user to open their page, by elicitation id. */
interface Flow {
  /** The session that asked (2025 sessions are told when the page was opened). */
  session: McpSession;
  opened: Promise<void>;
  open: () => void;
  isOpen: boolean;
  expires: NodeJS.Timeout;
}
const flows = new Map<string, Flow>();
const FLOW_TTL_MS = 10 * 60_000;

function startFlow(session: McpSession): string {
  const id = randomUUID();
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  const expires = setTimeout(() => flows.delete(id), FLOW_TTL_MS);
  expires.unref();
  flows.set(id, { session, opened, open, isOpen: false, expires });
  return id;
}

function endFlow(id: string): void {
  const flow = flows.get(id);
  if (flow) clearTimeout(flow.expires);
  flows.delete(id);
}

/**
 * Handle `GET /connect/<elicitationId>`: the page a URL-mode elicitation points to. Returns false for
 * other paths. Opening it completes the flow and tells a 2025 client (`notifications/elicitation/complete`).
 */
export function handleConnectPage(server: McpServer, path: string, res: import('node:http').ServerResponse): boolean {
  const match = /^\/connect\/([\w-]+)$/.exec(path);
  if (!match) return false;
  const flow = flows.get(match[1]);
  if (!flow || flow.isOpen) {
    res.writeHead(404, { 'content-type': 'text/plain' }).end('This link has expired or was already used.\n');
    return true;
  }
  // The flow stays until the tool call that asked sees it (a 2026-07-28 client may retry later).
  flow.isOpen = true;
  if (flow.session.era === 'legacy') server.sendElicitationComplete(flow.session, match[1]);
  flow.open();
  res
    .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
    .end('<!doctype html><title>Connected</title><p>Your account is connected. You can close this tab.</p>\n');
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
    // The explicit form, so the flow's id survives the 2026-07-28 retry in requestState (a replayed
    // ctx.elicit would start a new flow each round); on a 2025 session the runtime pushes the question.
    async (_args, ctx) => {
      const id = (ctx.requestState as { flow?: string } | undefined)?.flow;
      const answer = ctx.inputResponses?.connect as { action?: string } | undefined;
      const flow = id === undefined ? undefined : flows.get(id);
      if (!answer || !flow) {
        const flowId = startFlow(ctx.session);
        return inputRequired({ state: { flow: flowId } }).addElicitation('connect', {
          mode: 'url',
          message: 'Open this page to connect your account.',
          url: `${baseUrl()}/connect/${flowId}`,
          elicitationId: flowId,
        });
      }
      if (answer.action !== 'accept') {
        endFlow(id!);
        return `Not connected (you chose ${answer.action}).`;
      }
      await Promise.race([flow.opened, new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason), { once: true }))]);
      endFlow(id!);
      return 'Account connected.';
    },
  );
}
