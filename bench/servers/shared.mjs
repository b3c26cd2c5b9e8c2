/** Loaded by every benchmarked server: the elicitation schema, and the IPC the driver uses to find and stop the server. */
/**
 * A fresh schema object per call, as a handler with the schema written inline makes one: the servers under
 * test may not keep anything by object identity. (structuredClone would charge them 3 µs per call.)
 */
export function elicitSchema() {
  return {
    type: 'object',
    properties: { name: { type: 'string', minLength: 1 }, age: { type: 'integer', minimum: 0 }, plan: { type: 'string', enum: ['free', 'pro'] } },
    required: ['name'],
  };
}

/** The same schema, for the bare responders, which only serialise it. */
export const ELICIT_SCHEMA = elicitSchema();

/** Tell the driver the port; answer CPU reads (used where /proc is missing) and stop on request or when the driver goes away. */
export function serveBenchControl(port) {
  process.on('message', (message) => {
    if (message === 'cpu') process.send({ cpu: process.cpuUsage() });
    if (message === 'stop') process.exit(0);
  });
  process.on('disconnect', () => process.exit(0));
  process.send({ port });
}
