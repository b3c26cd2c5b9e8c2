/**
 * The demo's elicitation tools, and the rest of what `npm start` adds to the catalog: two forms
 * (book_table, register_for_event), a URL-mode flow with its page and its completion notification
 * (connect_account), and the multi-round, sampling and roots tools (plan_trip, summarize_note, list_roots).
 */
import { randomUUID } from 'node:crypto';
import { inputRequired, type McpServer, type McpSession } from '../src/index.js';
import { registerFlowDemo } from './flows.js';
import { registerFormDemo } from './forms.js';

/** How a URL-mode flow ended on its page: the user pressed Connect, or Don't connect. */
type FlowOutcome = 'connected' | 'refused';

/** URL-mode flows waiting for the user to press a button on their page, by elicitation id. */
interface Flow {
  /** The session that asked (legacy-era sessions are told when the page was used). */
  session: McpSession;
  outcome: Promise<FlowOutcome>;
  finish: (outcome: FlowOutcome) => void;
  done: boolean;
  expires: NodeJS.Timeout;
}
const flows = new Map<string, Flow>();
const FLOW_TTL_MS = 10 * 60_000;

function startFlow(session: McpSession): string {
  const id = randomUUID();
  let finish!: (outcome: FlowOutcome) => void;
  const outcome = new Promise<FlowOutcome>((resolve) => (finish = resolve));
  const expires = setTimeout(() => flows.delete(id), FLOW_TTL_MS);
  expires.unref();
  flows.set(id, { session, outcome, finish, done: false, expires });
  return id;
}

function endFlow(id: string): void {
  const flow = flows.get(id);
  if (flow) clearTimeout(flow.expires);
  flows.delete(id);
}

/** A small page of the demo's own (the ids in it are UUIDs, and the rest is ours: nothing needs escaping). */
function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${title}</title>
<style>
  body { font: 16px/1.5 system-ui, sans-serif; background: #f4f5f7; color: #1d2129; display: grid; place-items: center; min-height: 100vh; margin: 0; }
  main { background: #fff; border-radius: 12px; box-shadow: 0 2px 12px #0002; padding: 2rem; max-width: 26rem; }
  h1 { font-size: 1.3rem; margin-top: 0; }
  form { display: inline; }
  button { font: inherit; border: 0; border-radius: 8px; padding: 0.6rem 1.2rem; cursor: pointer; margin-right: 0.5rem; }
  .primary { background: #2563eb; color: #fff; }
  .secondary { background: #e5e7eb; color: #1d2129; }
</style>
</head>
<body><main>
${body}
</main></body>
</html>
`;
}

function consentPage(id: string): string {
  return page(
    'Connect your account',
    `<h1>Connect your account</h1>
<p>The Switchboard demo asks to connect your (pretend) account. Nothing real is shared: this page stands in for a sign-in or consent page.</p>
<form method="get" action="/connect/${id}/allow"><button class="primary" type="submit">Connect</button></form>
<form method="get" action="/connect/${id}/deny"><button class="secondary" type="submit">Don't connect</button></form>`,
  );
}

/**
 * Serve the pages a URL-mode elicitation points to (GET only); returns false for other paths.
 * `/connect/<id>` is the consent page: opening it changes nothing (a link preview may fetch it). Its
 * buttons are plain GETs, so a client without a browser can finish the flow too: `/connect/<id>/allow`
 * connects, `/connect/<id>/deny` refuses. Either ends the flow, and tells a 2025 client
 * (`notifications/elicitation/complete`); a 2026-07-28 client learns the outcome from its retry.
 */
export function handleConnectPage(server: McpServer, path: string, res: import('node:http').ServerResponse): boolean {
  const match = /^\/connect\/([\w-]+)(?:\/(allow|deny))?$/.exec(path);
  if (!match) return false;
  const [, id, choice] = match;
  const flow = flows.get(id);
  const html = (status: number, body: string) => res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(body);
  if (!flow || flow.done) {
    html(404, page('Link expired', '<h1>This link has expired</h1><p>It was already used, or it is too old. Ask for a new one.</p>'));
    return true;
  }
  if (choice === undefined) {
    html(200, consentPage(id));
    return true;
  }
  // The flow stays until the tool call that asked sees it (a 2026-07-28 client may retry later).
  flow.done = true;
  if (flow.session.era === 'legacy') server.sendElicitationComplete(flow.session, id);
  flow.finish(choice === 'allow' ? 'connected' : 'refused');
  html(
    200,
    choice === 'allow'
      ? page('Connected', '<h1>Connected</h1><p>Your account is connected. You can close this tab.</p>')
      : page('Not connected', '<h1>Not connected</h1><p>Nothing was connected. You can close this tab.</p>'),
  );
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

  registerFormDemo(server);

  server.registerTool(
    'connect_account',
    {
      title: 'Connect an account',
      description:
        "Sends you to a page this demo serves (URL-mode elicitation) and waits: press Connect there and the call finishes; press Don't connect and it ends without connecting.",
      inputSchema: { type: 'object', properties: {} },
    },
    // The explicit form, so the flow's id survives the 2026-07-28 retry in requestState (a replayed
    // ctx.elicit would start a new flow each round); on a legacy-era session the runtime pushes the question.
    async (_args, ctx) => {
      const id = (ctx.requestState as { flow?: string } | undefined)?.flow;
      const answer = ctx.inputResponses?.connect as { action?: string } | undefined;
      const flow = id === undefined ? undefined : flows.get(id);
      if (!answer || !flow) {
        const flowId = startFlow(ctx.session);
        return inputRequired({ state: { flow: flowId } }).addElicitation('connect', {
          mode: 'url',
          message: 'Open this page and press Connect to connect your account.',
          url: `${baseUrl()}/connect/${flowId}`,
          elicitationId: flowId,
        });
      }
      if (answer.action !== 'accept') {
        endFlow(id!);
        return `Not connected (you chose ${answer.action}).`;
      }
      const outcome = await Promise.race([
        flow.outcome,
        new Promise<never>((_, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason), { once: true })),
      ]);
      endFlow(id!);
      return outcome === 'connected' ? 'Account connected.' : 'Not connected (you chose not to, on the page).';
    },
  );

  registerFlowDemo(server);
}
