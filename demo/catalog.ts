/** The demo's tools, prompts and resources, shared by the WebSocket and stdio demos. */
import type { McpServer } from '../src/index.js';

const notes = new Map<string, string>([
  ['1', 'Buy milk'],
  ['2', 'Call the plumber'],
]);

/** A note's text, or undefined when there is no note `id` (summarize_note reads notes through it). */
export function readNote(id: string): string | undefined {
  return notes.get(id);
}

/**
 * The server's `instructions`: what each tool shows, one short paragraph per feature. Clients show it to
 * the user. It names every tool of `npm start` (the catalog below, the elicitation tools and the flows).
 */
export const DEMO_INSTRUCTIONS = [
  'Switchboard demo: each tool shows one MCP feature.',
  'Forms: register_for_event asks you to sign up for the launch event with a form that has every field kind (text with formats and lengths, numbers, a yes/no, single and multi-select lists, defaults, required fields); book_table is a shorter form.',
  'URL mode: connect_account sends you to a page this demo serves; press Connect there and the call finishes.',
  'Confirmation: delete_note asks you to confirm before it deletes a note; write_note writes one.',
  'Multiple rounds: plan_trip asks in three rounds: where and when (a form), an itinerary from your model (sampling), then whether to book it (a yes/no form).',
  'Sampling: summarize_note asks your model to summarize a note.',
  'Roots: list_roots lists the roots your client shares.',
  'Progress and logging: count_slowly counts to n, reporting progress and logging as it goes; cancel it to stop early.',
  'Tasks: export_report runs as a task for a 2026-07-28 client that declares the Tasks extension (this console does), and asks which format you want halfway through.',
  'Also: echo repeats text, add returns structured content, the summarize prompt, and the resources demo://readme, demo://pixel and demo://notes/{id} (subscribe to one to hear when write_note changes it).',
].join('\n\n');

// A 1x1 transparent PNG.
const PIXEL = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

export function registerDemoCatalog(server: McpServer): void {
  server.registerTool(
    'echo',
    {
      title: 'Echo',
      description: 'Repeats the text it is given.',
      inputSchema: { type: 'object', properties: { text: { type: 'string', description: 'What to repeat' } }, required: ['text'] },
      annotations: { readOnlyHint: true },
    },
    ({ text }) => String(text),
  );

  server.registerTool(
    'add',
    {
      title: 'Add two numbers',
      description: 'Adds a and b, and returns the sum as structured content.',
      inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
      outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
      annotations: { readOnlyHint: true, idempotentHint: true },
    },
    ({ a, b }) => {
      const sum = (a as number) + (b as number);
      return { content: [{ type: 'text', text: `${a} + ${b} = ${sum}` }], structuredContent: { sum } };
    },
  );

  server.registerTool(
    'count_slowly',
    {
      title: 'Count slowly',
      description: 'Counts to n, one step every 100 ms, reporting progress. Cancel it to stop early.',
      inputSchema: { type: 'object', properties: { n: { type: 'integer', minimum: 1, maximum: 100 } }, required: ['n'] },
    },
    async ({ n }, ctx) => {
      const total = n as number;
      // Start and end at info, the level a client gets without logging/setLevel; each step at debug.
      ctx.log('info', `counting to ${total}`, 'count_slowly');
      for (let i = 1; i <= total; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        if (ctx.signal.aborted) return 'cancelled';
        ctx.progress(i, total, `counted to ${i}`);
        ctx.log('debug', { counted: i }, 'count_slowly');
      }
      ctx.log('info', `counted to ${total}`, 'count_slowly');
      return `counted to ${total}`;
    },
  );

  server.registerTool(
    'write_note',
    {
      title: 'Write a note',
      description: 'Writes a note; subscribers of demo://notes/{id} are told it changed.',
      inputSchema: { type: 'object', properties: { id: { type: 'string' }, text: { type: 'string' } }, required: ['id', 'text'] },
      annotations: { destructiveHint: false },
    },
    ({ id, text }, ctx) => {
      const created = !notes.has(id as string);
      notes.set(id as string, text as string);
      ctx.session.data.lastNote = id;
      server.sendResourceUpdated(`demo://notes/${id}`);
      ctx.log('info', `note ${id} ${created ? 'created' : 'updated'}`, 'notes');
      return `note ${id} saved`;
    },
  );

  server.registerTool(
    'delete_note',
    {
      title: 'Delete a note',
      description: 'Deletes a note. Asks you to confirm first (a yes/no elicitation); decline and nothing is deleted.',
      inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
      annotations: { destructiveHint: true },
      confirm: ({ id }) => `Delete note ${id}? This cannot be undone.`,
    },
    ({ id }) => {
      if (!notes.delete(id as string)) return { content: [{ type: 'text', text: `There is no note ${id}.` }], isError: true };
      server.sendResourceUpdated(`demo://notes/${id}`);
      return `Note ${id} deleted.`;
    },
  );

  server.registerPrompt(
    'summarize',
    {
      title: 'Summarize',
      description: 'Asks the model to summarize a text in a given style.',
      arguments: [
        { name: 'text', description: 'The text to summarize', required: true },
        { name: 'style', description: 'brief, detailed or bullet-points' },
      ],
      complete: { style: (value) => ['brief', 'detailed', 'bullet-points'].filter((s) => s.startsWith(value)) },
    },
    ({ text, style }) => ({
      description: 'Summarize a text',
      messages: [{ role: 'user', content: { type: 'text', text: `Summarize this${style ? ` (${style})` : ''}:\n\n${text}` } }],
    }),
  );

  server.registerResource(
    'demo://readme',
    { name: 'readme', title: 'About this demo', description: 'What the demo server offers', mimeType: 'text/markdown' },
    () =>
      '# Switchboard demo\n\nTools: echo, add, count_slowly, write_note, delete_note; with npm start also book_table, register_for_event, connect_account, plan_trip, summarize_note, list_roots. Prompt: summarize. Resources: demo://readme, demo://pixel, demo://notes/{id}.\n',
  );

  server.registerResource('demo://pixel', { name: 'pixel', description: 'A 1x1 PNG', mimeType: 'image/png' }, (uri) => [
    { uri, mimeType: 'image/png', blob: PIXEL },
  ]);

  server.registerResourceTemplate(
    'demo://notes/{id}',
    { name: 'note', description: 'A note by id', mimeType: 'text/plain', complete: { id: (value) => [...notes.keys()].filter((k) => k.startsWith(value)) } },
    (_uri, { id }) => notes.get(id),
  );
}
