/** Run inside each benchmarked server process: report CPU time to the driver over IPC, and the port once listening. */
export const ELICIT_SCHEMA = {
  type: 'object',
  properties: { name: { type: 'string', minLength: 1 }, age: { type: 'integer', minimum: 0 }, plan: { type: 'string', enum: ['free', 'pro'] } },
  required: ['name'],
} as const;

export function serveBenchControl(port: number): void {
  process.on('message', (message: unknown) => {
    if (message === 'cpu') process.send!({ cpu: process.cpuUsage(), memory: process.memoryUsage().rss });
    if (message === 'stop') process.exit(0);
  });
  process.send!({ port });
}
