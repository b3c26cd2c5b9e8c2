/**
 * The demo's tools that ask the client for more than a form: plan_trip (three rounds: a form, the client's
 * model, a yes/no), summarize_note (sampling) and list_roots (roots).
 *
 * Each asks through `ctx.elicit`, `ctx.createMessage` and `ctx.listRoots`, so one handler serves both eras:
 * on a legacy-era session each ask is a request pushed to the client, awaited in place; on a 2026-07-28 request
 * each is an input round (`input_required`), and the handler runs again from the top with the answers so
 * far. So a handler asks before it does anything, and what it asks depends only on earlier answers: every
 * replay asks the same questions in the same order (keys elicit-1, sample-2, elicit-3, ...).
 */
import { type CreateMessageResult, type ElicitRequestedSchema, type McpServer, SamplingNotSupportedError } from '../src/index.js';
import { readNote } from './catalog.js';

/** Where and when: the first round of plan_trip. */
const TRIP_FORM: ElicitRequestedSchema = {
  type: 'object',
  properties: {
    destination: { type: 'string', title: 'Destination', minLength: 1, maxLength: 80 },
    depart: { type: 'string', title: 'Departure date', format: 'date' },
    return: { type: 'string', title: 'Return date', format: 'date' },
  },
  required: ['destination', 'depart', 'return'],
};

/** Book it or not: the last round of plan_trip. */
const BOOK_FORM: ElicitRequestedSchema = {
  type: 'object',
  properties: { book: { type: 'boolean', title: 'Book this trip', default: true } },
  required: ['book'],
};

const DAY_MS = 24 * 60 * 60 * 1000;

/** The text of a sampling answer (one content block, or several with SEP-1577 tools). */
function textOf(result: CreateMessageResult): string {
  const blocks = Array.isArray(result.content) ? result.content : [result.content];
  const texts = blocks.filter((block) => block.type === 'text' && typeof block.text === 'string').map((block) => (block.text as string).trim());
  return texts.length > 0 ? texts.join('\n') : '(the model answered without text)';
}

export function registerFlowDemo(server: McpServer): void {
  server.registerTool(
    'plan_trip',
    {
      title: 'Plan a trip',
      description:
        'Plans a trip in three rounds: asks where and when (a form), asks your model for an itinerary (sampling), then shows it and asks whether to book it (a yes/no form).',
      inputSchema: { type: 'object', properties: {} },
    },
    async (_args, ctx) => {
      // Check before the first question, so nobody fills in a form for a trip that cannot be planned:
      // a tool failure on a legacy-era session, -32021 naming the capability on 2026-07-28.
      if (!ctx.session.clientCapabilities.sampling) throw new SamplingNotSupportedError();

      // Round 1: where and when.
      const where = await ctx.elicit({ message: 'Where do you want to go, and when?', requestedSchema: TRIP_FORM });
      if (where.action !== 'accept') return `No trip planned (you chose ${where.action}).`;
      const { destination, depart, return: back } = where.content as { destination: string; depart: string; return: string };
      const nights = Math.round((Date.parse(back) - Date.parse(depart)) / DAY_MS);
      if (nights < 0)
        return { content: [{ type: 'text', text: `The return date ${back} is before the departure date ${depart}. No trip planned.` }], isError: true };
      const stay = nights === 1 ? '1 night' : `${nights} nights`;

      // Round 2: the client's model suggests an itinerary.
      const suggestion = await ctx.createMessage({
        messages: [
          {
            role: 'user',
            content: { type: 'text', text: `Suggest an itinerary for ${stay} in ${destination}, from ${depart} to ${back}. One short line per day.` },
          },
        ],
        systemPrompt: 'You are a concise travel planner.',
        maxTokens: 400,
      });
      const itinerary = textOf(suggestion);

      // Round 3: show it, and ask whether to book.
      const decision = await ctx.elicit({
        message: `Suggested itinerary for ${destination}, ${depart} to ${back}:\n\n${itinerary}\n\nBook this trip?`,
        requestedSchema: BOOK_FORM,
      });
      const booked = decision.action === 'accept' && decision.content?.book !== false;
      const plan = `${stay} in ${destination}, ${depart} to ${back}. Itinerary (suggested by ${suggestion.model}):\n${itinerary}`;
      return booked ? `Booked: ${plan}` : `Not booked (you chose ${decision.action === 'accept' ? 'not to book' : decision.action}). The plan was: ${plan}`;
    },
  );

  server.registerTool(
    'summarize_note',
    {
      title: 'Summarize a note',
      description: 'Asks your model (sampling) to summarize one of the notes in a sentence.',
      inputSchema: { type: 'object', properties: { id: { type: 'string', description: 'The note, as in demo://notes/{id}' } }, required: ['id'] },
      annotations: { readOnlyHint: true },
    },
    async ({ id }, ctx) => {
      const note = readNote(id as string);
      if (note === undefined) return { content: [{ type: 'text', text: `There is no note ${id}.` }], isError: true };
      const summary = await ctx.createMessage({
        messages: [{ role: 'user', content: { type: 'text', text: `Summarize this note in one short sentence:\n\n${note}` } }],
        systemPrompt: 'You summarize notes in one short sentence.',
        modelPreferences: { speedPriority: 0.8, intelligencePriority: 0.2 },
        maxTokens: 100,
      });
      return `Note ${id}, summarized by ${summary.model}: ${textOf(summary)}`;
    },
  );

  server.registerTool(
    'list_roots',
    {
      title: 'List your roots',
      description: 'Asks your client for its roots (the directories or files it shares with servers) and lists them.',
      inputSchema: { type: 'object', properties: {} },
      annotations: { readOnlyHint: true },
    },
    async (_args, ctx) => {
      const { roots } = await ctx.listRoots();
      if (roots.length === 0) return 'Your client shares no roots.';
      const lines = roots.map((root) => `- ${root.uri}${root.name ? ` (${root.name})` : ''}`);
      return `Your client shares ${roots.length === 1 ? '1 root' : `${roots.length} roots`}:\n${lines.join('\n')}`;
    },
  );
}
