/**
 * fastmcp on its httpStream transport at /mcp: sessions by default, its stateless mode with
 * FASTMCP_STATELESS=1. Pings and roots are off, so that the bench measures calls, not keep-alives, and
 * its console logging is silenced (mcp-proxy logs every DELETE to stdout): the bench measures MCP, not logs.
 */
import { createServer } from 'node:net';
import { FastMCP } from 'fastmcp';
import { z } from 'zod';
import { elicitSchema, serveBenchControl } from './shared.mjs';

const quiet = () => {};
console.log = console.info = console.debug = quiet;
// Its warnings too: one per session ("could not infer client capabilities"), which says nothing about the load.
const logger = { debug: quiet, error: console.error, info: quiet, log: quiet, warn: quiet };
const server = new FastMCP({ name: 'bench-fastmcp', version: '1.0.0', logger, ping: { enabled: false }, roots: { enabled: false } });
server.addTool({ name: 'echo', parameters: z.object({ text: z.string() }), execute: async ({ text }) => text });
server.addTool({
  name: 'ask',
  parameters: z.object({}),
  execute: async (_args, ctx) => {
    const answer = await ctx.elicit({ message: 'Who are you?', requestedSchema: elicitSchema() });
    return `${answer.action}:${answer.content?.name}`;
  },
});

/** fastmcp takes a port, not port 0: ask the OS for a free one first. */
const port = await new Promise((resolve) => {
  const probe = createServer().listen(0, '127.0.0.1', () => {
    const { port: free } = probe.address();
    probe.close(() => resolve(free));
  });
});
await server.start({
  transportType: 'httpStream',
  httpStream: { host: '127.0.0.1', port, endpoint: '/mcp', stateless: process.env.FASTMCP_STATELESS === '1' },
});
serveBenchControl(port);
