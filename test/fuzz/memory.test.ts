/**
 * Memory stays bounded: one session on a real WebSocketTransport takes thousands of generated messages
 * (every kind the WebSocket property sends), and the heap, measured after full garbage collections once
 * every answer is in, grows by no more than a fixed bound between a warm-up and the end; nothing stays
 * in flight, and every message is still answered exactly as the reference model says.
 */
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { checkProperty, expectNoProblems, garbageCollector } from '../helpers/fuzz.js';
import { useCleanups } from '../helpers/cleanups.js';
import { startWsFuzzServer, wsFrameArb } from '../helpers/ws-fuzz.js';

const cleanups = useCleanups();

/** Messages sent before the first measurement (caches and code warm up), and after it. */
const WARM_UP = 5_000;
const MEASURED = 7_000;
/** Messages sent between two checkpoints (settle, account, forget). */
const CHUNK = 500;
/** How much the heap may grow across the measured messages. */
const HEAP_GROWTH_LIMIT = 16 * 1024 * 1024;

const MB = 1024 * 1024;

describe('memory under fuzzing', () => {
  it(`keeps the heap within ${HEAP_GROWTH_LIMIT / MB} MB of growth while one session takes ${MEASURED} generated messages`, async () => {
    const gc = garbageCollector();
    const heap = () => {
      gc();
      gc();
      return process.memoryUsage().heapUsed;
    };
    const running = await startWsFuzzServer();
    cleanups.push(() => running.close());
    // Generated as they are sent, and not kept: a long run holds no more than one chunk of them.
    const frames = fc.infiniteStream(wsFrameArb({ initialize: true, listen: false, deepValues: false }), { noHistory: true });
    await checkProperty(
      frames,
      async (stream) => {
        const answers: string[] = [];
        const problems = await running.round(async (open) => {
          const socket = await open('2025-03-26');
          let before = 0;
          for (let sent = 0; sent < WARM_UP + MEASURED; sent += CHUNK) {
            if (sent === WARM_UP) before = heap();
            for (const frame of stream.take(CHUNK)) socket.send(frame);
            answers.push(...(await socket.checkpoint()));
          }
          const growth = heap() - before;
          if (growth > HEAP_GROWTH_LIMIT) answers.push(`the heap grew by ${(growth / MB).toFixed(1)} MB over ${MEASURED} messages`);
        });
        expectNoProblems([...answers, ...problems], 'one session under many generated messages');
      },
      1,
      { shrink: false, fixedRuns: true },
    );
  }, 120_000);
});
