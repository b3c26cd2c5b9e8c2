/**
 * What the SSE event store holds is what it counts: after full garbage collections the heap keeps no
 * more than `keptSize` (and so its limits) of events, however many large events were dropped behind
 * small live ones, however many tiny events it keeps, and a session's events are gone once it ends.
 * First the store alone, then a StreamableHttpTransport on 127.0.0.1 whose tool answers 2 MiB on SSE streams.
 */
import { describe, expect, it } from 'vitest';
import { InMemoryEventStore, type InMemoryEventStoreOptions, type StoredEvent } from '../../../src/index.js';
import { EVENT_OVERHEAD_BYTES } from '../../../src/transports/http/event-store.js';
import { heapUsedAfterGc, inMiB, MiB } from '../../helpers/heap.js';
import type { HttpTestClient } from '../../helpers/http-client.js';
import { initializedOverSse } from '../../helpers/http-streams.js';
import { startHttp } from '../../helpers/servers.js';
import { useCleanups } from '../../helpers/cleanups.js';

const cleanups = useCleanups();

/** What the heap may hold beyond what keptSize counts: the sessions' and streams' maps, and one event still in flight. */
const SLACK = 4 * MiB;

/** An event that costs the store `cost` bytes; its data is JSON, a string of its own (not shared with any other event). */
function event(eventId: string, cost: number): StoredEvent {
  return { eventId, data: JSON.stringify(eventId.padEnd(cost - EVENT_OVERHEAD_BYTES - eventId.length - 2, '.')) };
}

/** 3,000 small live events that cost 300 bytes each: `sessions` × `streams` each × `events` each. */
function appendSmallEvents(store: InMemoryEventStore, [sessions, streams, events]: [number, number, number]): void {
  for (let s = 0; s < sessions; s++)
    for (let stream = 1; stream <= streams; stream++)
      for (let n = 1; n <= events; n++) store.append(`small-${s}`, String(stream), event(`${stream}_${n}`, 300));
}

/** Each case drops 2 MiB events by one limit, while the 3,000 small events older than them stay. */
const cases: {
  limit: string;
  options: InMemoryEventStoreOptions;
  small: [number, number, number];
  largeKept: number;
  dropLarge(store: InMemoryEventStore): void;
}[] = [
  {
    limit: 'maxBytesPerSession (4 MiB): 199 of 201 dropped',
    options: {},
    small: [30, 1, 100],
    largeKept: 2,
    dropLarge: (store) => {
      for (let n = 1; n <= 201; n++) store.append('large', '1', event(`1_${n}`, 2 * MiB));
    },
  },
  {
    limit: 'maxEventsPerStream (1): 199 of 200 dropped',
    options: { maxEventsPerStream: 1 },
    small: [30, 100, 1],
    largeKept: 1,
    dropLarge: (store) => {
      for (let n = 1; n <= 200; n++) store.append('large', '1', event(`1_${n}`, 2 * MiB));
    },
  },
  {
    limit: 'maxStreamsPerSession (1): 199 of 200 streams dropped',
    options: { maxStreamsPerSession: 1 },
    small: [3000, 1, 1],
    largeKept: 1,
    dropLarge: (store) => {
      for (let stream = 1; stream <= 200; stream++) store.append('large', String(stream), event(`${stream}_1`, 2 * MiB));
    },
  },
  {
    limit: 'dropSession: 200 sessions of one 2 MiB event each, dropped',
    options: {},
    small: [30, 100, 1],
    largeKept: 0,
    dropLarge: (store) => {
      for (let s = 1; s <= 200; s++) {
        store.append(`large-${s}`, '1', event('1_1', 2 * MiB));
        store.dropSession(`large-${s}`);
      }
    },
  },
];

describe('InMemoryEventStore lets dropped events go', () => {
  it.each(cases)(
    '2 MiB events dropped by $limit behind 3,000 small live ones: the heap keeps keptSize and a little more',
    ({ options, small, largeKept, dropLarge }) => {
      const before = heapUsedAfterGc();
      const store = new InMemoryEventStore(options);
      appendSmallEvents(store, small);
      dropLarge(store);
      const growth = heapUsedAfterGc() - before;
      console.log(`event store alone: heap grew by ${inMiB(growth)} with keptSize ${inMiB(store.keptSize)}`);
      expect(growth, `the heap grew by ${inMiB(growth)} while the store keeps ${inMiB(store.keptSize)}`).toBeLessThanOrEqual(store.keptSize + SLACK);
      const [sessions, streams] = small;
      let smallKept = 0;
      for (let session = 0; session < sessions; session++)
        for (let stream = 1; stream <= streams; stream++) smallKept += store.replayAfter(`small-${session}`, String(stream), '0_0').length;
      expect({ smallKept, keptSize: store.keptSize }).toEqual({ smallKept: 3000, keptSize: 3000 * 300 + largeKept * 2 * MiB });
    },
  );
});

describe('InMemoryEventStore counts what tiny events take', () => {
  it('1.6 million events of 45 bytes over 16 sessions of 100 streams: the heap keeps maxBytes (64 MiB) and a little more', () => {
    const before = heapUsedAfterGc();
    const store = new InMemoryEventStore();
    const seq = new Array<number>(16 * 100).fill(0);
    for (let n = 0; n < 1_600_000; n++) {
      const stream = n % 1600;
      const eventId = `${stream % 100}_${++seq[stream]}`;
      store.append(`session-${Math.floor(stream / 100)}`, String(stream % 100), { eventId, data: JSON.stringify(eventId.padEnd(43, '.')) });
    }
    const growth = heapUsedAfterGc() - before;
    const kept = Array.from({ length: 16 }, (_, s) =>
      Array.from({ length: 100 }, (_, t) => store.replayAfter(`session-${s}`, String(t), `${t}_0`).length),
    ).flat();
    const count = kept.reduce((sum, n) => sum + n, 0);
    console.log(
      `1.6 M tiny events: heap grew by ${inMiB(growth)} for ${count} kept (${(growth / count).toFixed(0)} B each), keptSize ${inMiB(store.keptSize)}`,
    );
    // Every session is full to within one event (of at most 45 + 6 + 160 bytes), so the bound is what is measured.
    expect(store.keptSize).toBeGreaterThan(16 * (4 * MiB - 211));
    expect(growth, `the heap grew by ${inMiB(growth)} while the store keeps ${inMiB(store.keptSize)}`).toBeLessThanOrEqual(64 * MiB + SLACK);
  }, 60_000);
});

describe('a StreamableHttpTransport keeps no more of its SSE answers than its event store counts', () => {
  const ANSWER_CHARS = 2 * MiB;

  /** Call the tool `calls` times on `client`'s session: each answer is checked as it comes, then let go. */
  async function callLarge(client: HttpTestClient, calls: number): Promise<void> {
    for (let n = 0; n < calls; n++) {
      const res = await client.request('tools/call', { name: 'large' });
      expect(res.headers['content-type']).toBe('text/event-stream');
      const answer = await res.nextMessage({}, 10_000);
      expect(answer.result.content[0].text.length).toBe(ANSWER_CHARS);
      await res.ended;
    }
  }

  it('60 answers of 2 MiB on the SSE streams of one 2025-11-25 session: the heap keeps maxBytesPerSession at most, and nothing once it is deleted', async () => {
    const start = () =>
      startHttp(cleanups, (server) => server.registerTool('large', {}, () => 'y'.repeat(ANSWER_CHARS)), { transport: { responseMode: 'sse' } });
    // Warm-up on a server of its own, so code, caches and pooled connections exist before the baseline and the measured store starts empty.
    const warm = await start();
    const warmUp = await initializedOverSse(warm.url);
    await callLarge(warmUp, 5);
    expect((await warmUp.delete()).status).toBe(200);
    const running = await start();
    const store = running.transport.eventStore as InMemoryEventStore;
    const before = heapUsedAfterGc();

    const client = await initializedOverSse(running.url);
    expect(client.protocolVersion).toBe('2025-11-25');
    await callLarge(client, 60);
    const open = heapUsedAfterGc() - before;
    const keptOpen = store.keptSize;
    const deleted = await client.delete();
    await deleted.ended;
    expect(deleted.status).toBe(200);
    const closed = heapUsedAfterGc() - before;
    console.log(`60 answers of 2 MiB over SSE: heap grew by ${inMiB(open)} with the session open (keptSize ${inMiB(keptOpen)}), ${inMiB(closed)} once deleted`);

    expect({ keptOpen: keptOpen <= 4 * MiB, keptClosed: store.keptSize }).toEqual({ keptOpen: true, keptClosed: 0 });
    expect(open, `with the session open the heap grew by ${inMiB(open)}`).toBeLessThanOrEqual(4 * MiB + SLACK);
    // Less than one answer: not one of them is still held anywhere.
    expect(closed, `once the session was deleted the heap grew by ${inMiB(closed)}`).toBeLessThan(ANSWER_CHARS);
    expect({ warm: warm.errors, measured: running.errors }).toEqual({ warm: [], measured: [] });
  }, 60_000);
});
