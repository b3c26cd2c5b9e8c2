/**
 * The files one eliciting `tools/call` runs, leg by leg (bench/walk.ts, V8 coverage): the path a request
 * takes through src/, kept as docs/architecture.md describes it. A change that sends a request through
 * more files, or other ones, shows here; update this list and the walk in docs/architecture.md together.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { succeed } from './helpers/commands.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** What every leg of both eras runs: the gate, the dispatcher, reading the POST, the pipeline, the tool, the back channel, the form's check. */
const EVERY_LEG = [
  'elicitation/elicit.ts',
  'protocol/jsonrpc.ts',
  'protocol/safe-emitter.ts',
  'protocol/versions.ts',
  'schema/compiler.ts',
  'server/back-channel.ts',
  'server/context.ts',
  'server/methods.ts',
  'server/pipeline.ts',
  'server/session.ts',
  'server/tools.ts',
  'transports/connection-budget.ts',
  'transports/gate.ts',
  'transports/http/request.ts',
  'transports/http/streamable-http.ts',
];

/** What both legs of a 2025-11-25 session add: the connection object, the session endpoints and streams, outgoing and the rpc floor's tables. */
const SESSION = [
  'rpc/requests.ts',
  'server/connection.ts',
  'server/outgoing.ts',
  'transports/http/event-store.ts',
  'transports/http/http-session.ts',
  'transports/http/session-endpoints.ts',
  'transports/http/session-registry.ts',
  'transports/http/sse.ts',
];

/** What both 2026-07-28 legs add: the 2026 POST, the stateless dispatch, mrtr/, the `_meta` capabilities and the tool registry (Mcp-Param-* headers). */
const ROUND = [
  'mrtr/input-round.ts',
  'mrtr/request-state.ts',
  'mrtr/rounds.ts',
  'protocol/capabilities.ts',
  'protocol/mcp-name.ts',
  'server/registry.ts',
  'server/stateless.ts',
  'transports/http/modern-post.ts',
];

const leg = (...parts: string[][]) => parts.flat().sort();

const EXPECTED: Record<string, Record<string, string[]>> = {
  '2025-11-25': {
    'the answer': leg(EVERY_LEG, SESSION),
    'tools/call to elicitation/create': leg(EVERY_LEG, SESSION, ['server/registry.ts']),
  },
  '2026-07-28': {
    'first round': leg(EVERY_LEG, ROUND, ['mrtr/input-required.ts']),
    retry: leg(EVERY_LEG, ROUND),
  },
};

describe('one eliciting tools/call over Streamable HTTP, file by file', () => {
  it('runs code in the files docs/architecture.md lists, under 25 per leg, in both eras', async () => {
    const ran = await succeed('npx', ['tsx', 'bench/walk.ts', '--json'], { cwd: ROOT, timeoutMs: 60_000 });
    const walks = JSON.parse(ran.stdout) as typeof EXPECTED;
    expect(walks).toEqual(EXPECTED);
    for (const legs of Object.values(walks)) for (const files of Object.values(legs)) expect(files.length).toBeLessThan(25);
  }, 90_000);
});
