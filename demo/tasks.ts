/**
 * The demo's task: export_report runs as a task for a 2026-07-28 client that declares the Tasks
 * extension (the console does): it works, asks which format halfway through, and finishes. Its progress
 * is the task's status message. For other clients it runs within the call, asking the same question.
 */
import { type McpServer, type Tasks, useTasks } from '../src/index.js';

const STEP_MS = 1500;

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true });
  });
}

/** Returns the extension, whose events the console's feed shows. */
export function registerTaskDemo(server: McpServer): Tasks {
  const tasks = useTasks(server, { pollIntervalMs: 500, ttlMs: 600_000 });
  tasks.registerTool(
    'export_report',
    {
      title: 'Export a report',
      description: 'Gathers the quarter’s figures, asks which format you want, then renders the report. Runs as a task where the client allows it.',
      inputSchema: { type: 'object', properties: { quarter: { type: 'string', description: 'Which quarter', enum: ['Q1', 'Q2', 'Q3', 'Q4'], default: 'Q3' } } },
      taskSupport: 'optional',
      annotations: { readOnlyHint: true },
    },
    async (args, ctx) => {
      const quarter = String(args.quarter ?? 'Q3');
      ctx.progress(1, 3, `Gathering the ${quarter} figures…`);
      await pause(STEP_MS, ctx.signal);
      const answer = await ctx.elicit({
        message: `The ${quarter} figures are in. How should the report look?`,
        requestedSchema: {
          type: 'object',
          properties: {
            format: {
              type: 'string',
              title: 'Format',
              oneOf: [
                { const: 'pdf', title: 'PDF' },
                { const: 'csv', title: 'CSV' },
                { const: 'html', title: 'Web page' },
              ],
              default: 'pdf',
            },
            charts: { type: 'boolean', title: 'Include charts', default: true },
          },
          required: ['format'],
        },
      });
      if (answer.action !== 'accept') return { content: [{ type: 'text', text: `Export of ${quarter} stopped: you chose ${answer.action}.` }], isError: true };
      const { format, charts } = answer.content ?? {};
      ctx.progress(2, 3, `Rendering the ${quarter} report as ${String(format).toUpperCase()}…`);
      await pause(STEP_MS, ctx.signal);
      ctx.progress(3, 3, 'Done');
      return `Exported the ${quarter} report as ${String(format).toUpperCase()}${charts === false ? ', without charts' : ', with charts'}.`;
    },
  );
  return tasks;
}
