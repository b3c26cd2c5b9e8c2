/**
 * The WebSocket message path against generated frames, over a real WebSocketTransport on 127.0.0.1:0:
 * arbitrary text and bytes, any JSON, valid and mutated messages (wrong jsonrpc, odd ids, params of every
 * type, huge and deep values), batches on a 2025-03-26 session and elsewhere, unknown methods, replies
 * to nothing and notifications, on sockets at several protocol versions and one never initialized.
 * Every request and every invalid frame gets exactly one well-formed answer, nothing else arrives, the
 * server reports only documented errors, nothing escapes as an uncaught exception or unhandled
 * rejection, and every session still answers `ping`.
 */
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { checkProperty, expectNoProblems } from '../helpers/fuzz.js';
import type { Frame } from '../helpers/jsonrpc-arbitraries.js';
import { useCleanups } from '../helpers/cleanups.js';
import { startWsFuzzServer, wsFrameArb } from '../helpers/ws-fuzz.js';

const cleanups = useCleanups();

/** The sockets of each run: batches are taken only on the 2025-03-26 one; the last never initializes. */
const VERSIONS = ['2025-03-26', '2025-11-25', '2024-11-05', undefined] as const;

/**
 * The frames of one run, each with the socket it goes on. `initialize` is left out on the socket that
 * never initialized (it would start the session), and `subscriptions/listen` everywhere: a listen is
 * answered only when it ends.
 */
const runArb: fc.Arbitrary<[number, Frame][]> = fc.array(
  fc.oneof(
    ...VERSIONS.map((version, index) =>
      wsFrameArb({ initialize: version !== undefined, listen: false, deepValues: true }).map((frame): [number, Frame] => [index, frame]),
    ),
  ),
  { minLength: 20, maxLength: 120, size: 'max' },
);

describe('the WebSocket message path, fuzzed', () => {
  it('answers every request and every invalid frame exactly once, and nothing else, on sessions that live on', async () => {
    const running = await startWsFuzzServer();
    cleanups.push(() => running.close());
    await checkProperty(
      runArb,
      async (frames) => {
        const problems = await running.round(async (open) => {
          const sockets = [];
          for (const version of VERSIONS) sockets.push(await open(version));
          for (const [index, frame] of frames) sockets[index].send(frame);
        });
        expectNoProblems(problems, 'what the server did with the frames');
      },
      100,
    );
  }, 120_000);
});
