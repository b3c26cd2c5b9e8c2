import { McpServer, StreamableHttpTransport, useTasks } from 'switchboard-mcp';

const server = new McpServer({ name: 'reports', version: '1.0.0' });
const tasks = useTasks(server, { ttlMs: 600_000, pollIntervalMs: 500 });

// A task for a 2026-07-28 client that declares the extension; an ordinary call for any other.
tasks.registerTool('export_report', { description: 'Renders a report, asking the format halfway', taskSupport: 'optional' }, async (_args, ctx) => {
  ctx.progress(1, 2, 'Gathering figures'); // a task's status message
  const { action, content } = await ctx.elicit({
    message: 'Which format?',
    requestedSchema: { type: 'object', properties: { format: { type: 'string', enum: ['pdf', 'csv'] } }, required: ['format'] },
  });
  if (action !== 'accept') return 'Export stopped.';
  ctx.progress(2, 2, `Rendering ${content?.format}`);
  return `Exported as ${content?.format}.`;
});

// Asked on the call itself, before the task exists (MRTR); then the handler runs in the task.
tasks.registerTool(
  'deploy',
  {
    description: 'Deploys where you say',
    taskSupport: 'required',
    beforeTask: async (_args, ctx) => {
      const { content } = await ctx.elicit({
        message: 'Deploy where?',
        requestedSchema: { type: 'object', properties: { env: { type: 'string', enum: ['staging', 'production'] } }, required: ['env'] },
      });
      return String(content?.env ?? 'staging');
    },
  },
  (_args, _ctx, env) => `Deployed to ${env}.`,
);

tasks.on('taskCompleted', (task) => console.log(`task ${task.taskId.slice(0, 8)} ${task.status}`));

const { url } = await new StreamableHttpTransport(server).listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 3000) });
console.log(`listening on ${url}`);
