/**
 * The fixture's task tools (SEP-2663), as the suite's tasks-* scenarios name them: a sync-only greet,
 * task-capable tools that sleep, fail as a tool, fail as a protocol error, ask for input in the task,
 * and one that asks before the task exists (MRTR on the call). With `store` (the Redis one, under
 * `--redis`), fixtures sharing it answer tasks/get and tasks/cancel for each other's tasks; `options.leaseMs`
 * is their runner's lease (`--task-lease-ms`).
 */
import { ErrorCode, McpError, type McpServer, type TaskStore, type TasksOptions, useTasks } from '../src/index.js';

function sleep(seconds: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, seconds * 1000);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}

const ANSWER_SCHEMA = {
  type: 'object',
  properties: { name: { type: 'string', description: 'A name' }, confirm: { type: 'boolean', description: 'Go ahead?' } },
} as const;

export function registerFixtureTasks(server: McpServer, store?: TaskStore, options: Pick<TasksOptions, 'leaseMs'> = {}): void {
  const tasks = useTasks(server, { pollIntervalMs: 500, ...options, ...(store ? { store } : {}) });

  server.registerTool(
    'greet',
    { description: 'Greets someone, at once (never a task)', inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
    (args) => `Hello, ${args.name}!`,
  );

  tasks.registerTool(
    'slow_compute',
    {
      description: 'Sleeps for `seconds`, then answers (a task where the client allows it)',
      inputSchema: { type: 'object', properties: { seconds: { type: 'number', minimum: 0 }, label: { type: 'string' } } },
      taskSupport: 'optional',
    },
    async (args, ctx) => {
      const seconds = Number(args.seconds ?? 0);
      await sleep(seconds, ctx.signal);
      return `Computed ${String(args.label ?? 'result')} after ${seconds}s`;
    },
  );

  tasks.registerTool('failing_job', { description: 'Runs only as a task, and fails as a tool after a second', taskSupport: 'required' }, async (_args, ctx) => {
    await sleep(1, ctx.signal);
    throw new Error('The job failed: the input could not be processed');
  });

  tasks.registerTool('protocol_error_job', { description: 'Ends in a protocol error (a failed task)', taskSupport: 'optional' }, async () => {
    throw new McpError(ErrorCode.InternalError, 'The job crashed before it could produce a result');
  });

  tasks.registerTool(
    'confirm_delete',
    {
      description: 'Asks for confirmation inside the task, then deletes (pretends to)',
      inputSchema: { type: 'object', properties: { filename: { type: 'string' } }, required: ['filename'] },
      taskSupport: 'optional',
    },
    async (args, ctx) => {
      const answer = await ctx.elicit({
        message: `Delete ${String(args.filename)}?`,
        requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean', description: 'Delete it' } }, required: ['confirm'] },
      });
      const confirmed = answer.action === 'accept' && answer.content?.confirm === true;
      return confirmed ? `Deleted ${String(args.filename)}` : `Kept ${String(args.filename)}`;
    },
  );

  tasks.registerTool('multi_input', { description: 'Asks two questions at once inside the task', taskSupport: 'optional' }, async (_args, ctx) => {
    const [first, second] = await Promise.all([
      ctx.elicit({ message: 'First question', requestedSchema: ANSWER_SCHEMA }),
      ctx.elicit({ message: 'Second question', requestedSchema: ANSWER_SCHEMA }),
    ]);
    return `Answers: ${JSON.stringify(first.content?.name)} and ${JSON.stringify(second.content?.name)}`;
  });

  tasks.registerTool(
    'test_tool_with_task',
    {
      description: 'Asks for a name on the call (MRTR), then runs as a task',
      beforeTask: async (_args, ctx) => {
        const answer = await ctx.elicit(
          { message: 'What is your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
          { key: 'user_name' },
        );
        return answer.action === 'accept' ? String(answer.content?.name) : 'stranger';
      },
    },
    (_args, _ctx, name) => `Hello, ${name}! The task is done.`,
  );
}
