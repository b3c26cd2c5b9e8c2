/**
 * `npm run soak [-- --minutes N --clients N --seed N]`: the server under a mixed load for N minutes (1 by
 * default), to find leaks and errors that take time to show. A line per 10 s window, then a summary; the
 * exit code is 1 when any error happened or server RSS grew past the limit. Also writes soak/results/soak-<time>.json.
 */
import { agent } from '../bench/http-client.js';
import { type Connect, SoakClient } from './client.js';
import { HttpSession } from './http-session.js';
import { Recorder } from './recorder.js';
import { printSummary, writeResult } from './report.js';
import { judge } from './result.js';
import { SoakServer } from './server-process.js';
import { clientMix, parseSettings, WINDOW_MS } from './settings.js';
import { StatelessHttp } from './stateless-http.js';
import { observe } from './windows.js';
import { WsSession } from './ws-session.js';

const settings = parseSettings(process.argv.slice(2));
const mix = clientMix(settings.clients);
const deadline = setTimeout(
  () => {
    console.error(`soak: not done ${settings.minutes + 1} min after it started; giving up (the server process is killed)`);
    process.exit(2);
  },
  (settings.minutes + 1) * 60_000,
);

// Ctrl-C ends the windows and the clients; a second one quits at once. The server ignores SIGINT and is stopped over IPC.
const interrupt = new AbortController();
const stopClients = new AbortController();
process.on('SIGINT', () => {
  if (interrupt.signal.aborted) process.exit(130);
  console.log('interrupted: stopping the clients (Ctrl-C again to quit at once)');
  interrupt.abort();
  stopClients.abort();
});

const server = await SoakServer.start();
const idle = await server.report(true);
const recorder = new Recorder();
server.exited.then((why) => {
  if (stopClients.signal.aborted) return;
  recorder.error(why);
  interrupt.abort();
});

const endpoint = { port: server.port, path: '/mcp' };
const kinds: [string, number, Connect][] = [
  ['http', mix.http, (fail) => HttpSession.open(endpoint, fail)],
  ['stateless', mix.stateless, async () => new StatelessHttp(endpoint)],
  ['ws', mix.ws, (fail) => WsSession.open(`ws://127.0.0.1:${server.port}/mcp`, fail)],
];
// Each client draws its choices from a generator of its own, seeded from --seed and its place in the list.
const clients = kinds
  .flatMap(([kind, count, connect]) => Array.from({ length: count }, (_, i) => ({ tag: `${kind}-${i + 1}`, connect })))
  .map(({ tag, connect }, i) => new SoakClient(tag, connect, settings.seed * 100_003 + i, recorder));
console.log(
  `soak: ${settings.minutes} min, ${settings.clients} clients (${mix.http} HTTP sessions with a GET stream, ${mix.stateless} stateless 2026-07-28 HTTP, ` +
    `${mix.ws} WebSocket), seed ${settings.seed}, Node ${process.version}; server on 127.0.0.1:${server.port} with elicitation timeout ` +
    `${idle.timeouts.elicitationTimeoutMs / 1000} s and HTTP session idle timeout ${idle.timeouts.sessionIdleTimeoutMs / 1000} s`,
);
console.log(
  `one line per ${WINDOW_MS / 1000} s window: ops/s by kind, client-side latency, errors (the clients' and the server's), server RSS, heap used and sessions, ` +
    "CPU as a share of one core (the server's, the clients', other processes'), the server's event-loop delay",
);

const started = performance.now();
const loops = clients.map((client) => client.run(stopClients.signal));
const observed = await observe(server, recorder, settings.minutes * 60_000, idle, interrupt.signal);

// The end reading is taken under load, as the baseline was; then the clients leave.
const end = await server.report(true).catch(() => observed.latest);
const seconds = (performance.now() - started) / 1000;
stopClients.abort();
await Promise.all(loops);
const after = await server.report().catch(() => observed.latest);
const ticks = clients.reduce((sum, client) => sum + client.ticks, 0);
if (after.notifications !== ticks) {
  recorder.error(`notifications/soak/tick: the server took in ${after.notifications}, the clients sent ${ticks} and saw them taken in`);
}
await server.stop();
agent.destroy();
clearTimeout(deadline);

const result = judge({ settings, clients: mix, seconds, interrupted: interrupt.signal.aborted, recorder, observed, idle, end, after });
printSummary(result);
console.log(`wrote ${writeResult(result)}`);
process.exit(result.exitCode);
