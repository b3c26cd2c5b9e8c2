/**
 * InMemoryEventStore on its own: what an event costs, what each limit drops (per stream count, streams per
 * session, ended streams per session, bytes per session, bytes in all, dropSession), an event too large for a limit kept nowhere and
 * dropping nothing, as exact keptSize and exact replays, one copy of each event, and the store against a
 * plain reference model over generated sequences of appends and session drops.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EVENT_OVERHEAD_BYTES, eventSeq } from '../../../src/transports/http/event-store.js';
import { InMemoryEventStore, type InMemoryEventStoreOptions, type StoredEvent } from '../../../src/index.js';
import { checkProperty } from '../../helpers/fuzz.js';

const MiB = 1024 * 1024;

/** An event that costs the store `cost` bytes (its id, its data and the overhead): its data is JSON (a string), distinct for each id. */
function event(eventId: string, cost: number): StoredEvent {
  const size = cost - EVENT_OVERHEAD_BYTES - eventId.length;
  const data = JSON.stringify(eventId.padEnd(size - 2, '.'));
  if (data.length !== size) throw new Error(`an event that costs ${cost} bytes cannot carry the id ${eventId}`);
  return { eventId, data };
}

/** Every event of one stream, from its start. */
function replayAll(store: InMemoryEventStore, sessionId: string, streamId: string): StoredEvent[] {
  return store.replayAfter(sessionId, streamId, `${streamId}_0`);
}

describe('InMemoryEventStore counts what each event costs', () => {
  it('charges an event the UTF-8 bytes of its id and of its data, and 160 bytes for its record', () => {
    const store = new InMemoryEventStore();
    store.append('s', '12', { eventId: '12_345', data: '"a message of forty-five bytes, in JSON....."' });
    expect(store.keptSize).toBe(6 + 45 + 160);
    store.append('s', '12', { eventId: '12_346', data: '"€€"' });
    expect(store.keptSize).toBe(6 + 45 + 160 + (6 + 8 + 160));
  });
});

describe('InMemoryEventStore keeps no event larger than a limit, and drops nothing for one', () => {
  /** 50 events of 1000 bytes on stream 1 of session s: what was kept before the large one came. */
  function fifty(store: InMemoryEventStore): StoredEvent[] {
    const events = Array.from({ length: 50 }, (_, n) => event(`1_${n + 1}`, 1000));
    for (const appended of events) store.append('s', '1', appended);
    return events;
  }

  it('maxBytesPerSession: 50 events, then one answer of 5 MiB: the 50 stay, the answer is not kept, and the next event is', () => {
    const store = new InMemoryEventStore();
    const kept = fifty(store);
    store.append('s', '1', event('1_51', 5 * MiB));
    expect({ kept: store.keptSize, replay: replayAll(store, 's', '1') }).toEqual({ kept: 50 * 1000, replay: kept });
    store.append('s', '1', event('1_52', 1000));
    expect({ kept: store.keptSize, replay: replayAll(store, 's', '1') }).toEqual({ kept: 51 * 1000, replay: [...kept, event('1_52', 1000)] });
  });

  it("maxBytes: an event over the store's limit (under the session's) is not kept, and every session keeps its events", () => {
    const store = new InMemoryEventStore({ maxBytes: 60_000, maxBytesPerSession: 100_000 });
    const kept = fifty(store);
    store.append('other', '1', event('1_1', 1000));
    store.append('other', '1', event('1_2', 60_001));
    expect({ kept: store.keptSize, s: replayAll(store, 's', '1'), other: replayAll(store, 'other', '1') }).toEqual({
      kept: 51 * 1000,
      s: kept,
      other: [event('1_1', 1000)],
    });
  });

  it('an event of exactly the limit is kept, and drops all the others of its session to fit', () => {
    const store = new InMemoryEventStore({ maxBytesPerSession: 50_000 });
    fifty(store);
    store.append('s', '1', event('1_51', 50_000));
    expect({ kept: store.keptSize, replay: replayAll(store, 's', '1') }).toEqual({ kept: 50_000, replay: [event('1_51', 50_000)] });
  });

  it('an event too large for a new stream opens no stream: at maxStreamsPerSession the oldest stream stays', () => {
    const store = new InMemoryEventStore({ maxStreamsPerSession: 1, maxBytesPerSession: 2000 });
    store.append('s', '1', event('1_1', 1000));
    store.append('s', '2', event('2_1', 2001));
    expect({ kept: store.keptSize, one: replayAll(store, 's', '1'), two: replayAll(store, 's', '2') }).toEqual({
      kept: 1000,
      one: [event('1_1', 1000)],
      two: [],
    });
  });
});

describe('InMemoryEventStore drops by each of its limits', () => {
  it('maxEventsPerStream: a stream keeps its newest events, and what it dropped no longer counts toward its session', () => {
    const store = new InMemoryEventStore({ maxEventsPerStream: 2, maxBytesPerSession: 2000 });
    for (const [n, size] of [200, 400, 600, 800].entries()) store.append('s', '1', event(`1_${n + 1}`, size));
    expect({ kept: store.keptSize, one: replayAll(store, 's', '1') }).toEqual({ kept: 1400, one: [event('1_3', 600), event('1_4', 800)] });
    // 1400 + 600 is exactly the session's 2000: nothing more goes.
    store.append('s', '2', event('2_1', 600));
    expect({ kept: store.keptSize, one: replayAll(store, 's', '1'), two: replayAll(store, 's', '2') }).toEqual({
      kept: 2000,
      one: [event('1_3', 600), event('1_4', 800)],
      two: [event('2_1', 600)],
    });
  });

  it('maxStreamsPerSession: a new stream over the limit drops the oldest stream whole, and the next drop is of a kept event', () => {
    const store = new InMemoryEventStore({ maxStreamsPerSession: 2, maxBytes: 2000 });
    store.append('a', '1', event('1_1', 400));
    store.append('a', '1', event('1_2', 400));
    store.append('a', '2', event('2_1', 400));
    store.append('a', '3', event('3_1', 400));
    expect({ kept: store.keptSize, one: replayAll(store, 'a', '1'), two: replayAll(store, 'a', '2'), three: replayAll(store, 'a', '3') }).toEqual({
      kept: 800,
      one: [],
      two: [event('2_1', 400)],
      three: [event('3_1', 400)],
    });
    store.append('b', '1', event('1_1', 1400));
    expect({ kept: store.keptSize, two: replayAll(store, 'a', '2'), three: replayAll(store, 'a', '3'), b: replayAll(store, 'b', '1') }).toEqual({
      kept: 1800,
      two: [],
      three: [event('3_1', 400)],
      b: [event('1_1', 1400)],
    });
  });

  it("maxBytesPerSession: the session's oldest events go first, across its streams, and no other session's", () => {
    const store = new InMemoryEventStore({ maxBytesPerSession: 2000 });
    store.append('quiet', '1', event('1_1', 1800));
    store.append('loud', '1', event('1_1', 800));
    store.append('loud', '2', event('2_1', 800));
    store.append('loud', '1', event('1_2', 800));
    store.append('loud', '2', event('2_2', 400));
    expect({
      kept: store.keptSize,
      quiet: replayAll(store, 'quiet', '1'),
      one: replayAll(store, 'loud', '1'),
      two: replayAll(store, 'loud', '2'),
    }).toEqual({ kept: 1800 + 2000, quiet: [event('1_1', 1800)], one: [event('1_2', 800)], two: [event('2_1', 800), event('2_2', 400)] });
  });

  it('maxBytes: the oldest events of any session go first', () => {
    const store = new InMemoryEventStore({ maxBytes: 2000, maxBytesPerSession: 2000 });
    store.append('a', '1', event('1_1', 600));
    store.append('b', '1', event('1_1', 600));
    store.append('a', '1', event('1_2', 600));
    store.append('c', '1', event('1_1', 1000));
    expect(['a', 'b', 'c'].map((s) => replayAll(store, s, '1'))).toEqual([[event('1_2', 600)], [], [event('1_1', 1000)]]);
    expect(store.keptSize).toBe(1600);
  });

  it('maxEndedStreamsPerSession: past it the stream that ended first goes whole; live streams, older or not, and other sessions stay', () => {
    const store = new InMemoryEventStore({ maxEndedStreamsPerSession: 2 });
    store.append('s', 'live', event('live_1', 200));
    for (const id of ['1', '2', '3']) {
      store.append('s', id, event(`${id}_1`, 200));
      store.append('s', id, event(`${id}_2`, 200), true);
    }
    store.append('other', '1', event('1_1', 200), true);
    expect({
      kept: store.keptSize,
      live: replayAll(store, 's', 'live'),
      one: replayAll(store, 's', '1'),
      two: replayAll(store, 's', '2'),
      three: replayAll(store, 's', '3'),
      other: replayAll(store, 'other', '1'),
    }).toEqual({
      kept: 6 * 200,
      live: [event('live_1', 200)],
      one: [],
      two: [event('2_1', 200), event('2_2', 200)],
      three: [event('3_1', 200), event('3_2', 200)],
      other: [event('1_1', 200)],
    });
  });

  it('maxEndedStreamsPerSession: an ended stream dropped by maxStreamsPerSession leaves the ended ones, and a last event not kept still ends its stream', () => {
    const store = new InMemoryEventStore({ maxStreamsPerSession: 3, maxEndedStreamsPerSession: 2, maxBytesPerSession: 1000 });
    store.append('s', '1', event('1_1', 200), true);
    store.append('s', '2', event('2_1', 200), true);
    store.append('s', '3', event('3_1', 200));
    // A fourth stream drops stream 1, which had ended: only stream 2 is left of the ended ones...
    store.append('s', '4', event('4_1', 200));
    // ...so one more ending drops nothing.
    store.append('s', '3', event('3_2', 200), true);
    expect([1, 2, 3, 4].map((n) => replayAll(store, 's', String(n)).length)).toEqual([0, 1, 2, 1]);
    // Too large to keep, the last event of stream 4 still ends it: stream 2, the first to end, goes.
    store.append('s', '4', event('4_2', 5000), true);
    expect({ kept: store.keptSize, streams: [2, 3, 4].map((n) => replayAll(store, 's', String(n))) }).toEqual({
      kept: 600,
      streams: [[], [event('3_1', 200), event('3_2', 200)], [event('4_1', 200)]],
    });
  });

  it('endStream: a stream that ended with no last event counts among the ended ones; an unknown stream or session changes nothing', () => {
    const store = new InMemoryEventStore({ maxEndedStreamsPerSession: 1 });
    store.append('s', '1', event('1_1', 200));
    store.append('s', '2', event('2_1', 200));
    store.endStream('s', '9');
    store.endStream('t', '1');
    expect([1, 2].map((n) => replayAll(store, 's', String(n)).length)).toEqual([1, 1]);
    // Stream 1 ends unmarked, then stream 2: one ended stream is kept, so the first to end goes.
    store.endStream('s', '1');
    store.endStream('s', '2');
    expect({ kept: store.keptSize, one: replayAll(store, 's', '1'), two: replayAll(store, 's', '2') }).toEqual({
      kept: 200,
      one: [],
      two: [event('2_1', 200)],
    });
    // Ending it again (or with a last event) does not make it the latest to end.
    store.append('s', '3', event('3_1', 200));
    store.endStream('s', '2');
    store.append('s', '3', event('3_2', 200), true);
    expect({ two: replayAll(store, 's', '2'), three: replayAll(store, 's', '3') }).toEqual({ two: [], three: [event('3_1', 200), event('3_2', 200)] });
  });

  it('dropSession: the session keeps nothing, the others keep all, and the same id starts again with its full budget', () => {
    const store = new InMemoryEventStore({ maxBytesPerSession: 2000, maxStreamsPerSession: 2 });
    store.append('gone', '1', event('1_1', 1200));
    store.append('gone', '2', event('2_1', 800));
    store.append('kept', '1', event('1_1', 1000));
    store.dropSession('gone');
    expect({ kept: store.keptSize, one: replayAll(store, 'gone', '1'), two: replayAll(store, 'gone', '2'), other: replayAll(store, 'kept', '1') }).toEqual({
      kept: 1000,
      one: [],
      two: [],
      other: [event('1_1', 1000)],
    });
    store.append('gone', '3', event('3_1', 1200));
    store.append('gone', '4', event('4_1', 800));
    expect({ kept: store.keptSize, three: replayAll(store, 'gone', '3'), four: replayAll(store, 'gone', '4') }).toEqual({
      kept: 3000,
      three: [event('3_1', 1200)],
      four: [event('4_1', 800)],
    });
    store.dropSession('kept');
    store.dropSession('gone');
    store.dropSession('never seen');
    expect(store.keptSize).toBe(0);
  });

  it('replays only the events after Last-Event-ID, in order, and none for an id without a number', () => {
    const store = new InMemoryEventStore();
    for (let n = 1; n <= 4; n++) store.append('s', '7', event(`7_${n}`, 200));
    expect({ afterTwo: store.replayAfter('s', '7', '7_2'), last: store.replayAfter('s', '7', '7_4'), bad: store.replayAfter('s', '7', '7') }).toEqual({
      afterTwo: [event('7_3', 200), event('7_4', 200)],
      last: [],
      bad: [],
    });
  });
});

describe('InMemoryEventStore keeps one copy of each event', () => {
  it('replays an event as its eventId and data alone, whatever else the appended object carried', () => {
    const store = new InMemoryEventStore();
    const appended = { eventId: '1_1', data: '{"jsonrpc":"2.0","method":"notifications/message"}', message: { jsonrpc: '2.0' } };
    store.append('s', '1', appended);
    expect(store.replayAfter('s', '1', '1_0')).toStrictEqual([{ eventId: '1_1', data: '{"jsonrpc":"2.0","method":"notifications/message"}' }]);
  });

  it('refuses an event whose data is not a string with a TypeError saying what an event is', () => {
    const store = new InMemoryEventStore();
    const withoutData = { eventId: '1_1', message: { jsonrpc: '2.0', method: 'ping' } } as unknown as StoredEvent;
    expect(() => store.append('s', '1', withoutData)).toThrow(
      new TypeError("InMemoryEventStore.append takes { eventId, data } with both strings (data is the message's JSON); got an object with eventId, message"),
    );
    expect({ kept: store.keptSize, replay: replayAll(store, 's', '1') }).toEqual({ kept: 0, replay: [] });
  });
});

// ---------------------------------------------------------------------------------------------------------
// Against a reference model

type Operation =
  | { append: [session: string, stream: string, cost: number, last: boolean] }
  | { endStream: [session: string, stream: string] }
  | { dropSession: string };

/** The store's rules written as plainly as they can be: arrays filtered at every step. */
class ModelStore {
  private events: { session: string; stream: string; event: StoredEvent; size: number }[] = [];
  private readonly streams = new Map<string, string[]>();
  /** Each session's streams that ended, in the order they did. */
  private readonly ended = new Map<string, string[]>();

  constructor(private readonly limits: Required<InMemoryEventStoreOptions>) {}

  get keptSize(): number {
    return this.events.reduce((sum, e) => sum + e.size, 0);
  }

  append(session: string, stream: string, event: StoredEvent, last = false): void {
    const size = Buffer.byteLength(event.eventId) + Buffer.byteLength(event.data) + 160;
    if (size > this.limits.maxBytesPerSession || size > this.limits.maxBytes) {
      if (last && this.streams.get(session)?.includes(stream)) this.end(session, stream);
      return;
    }
    const streams = this.streams.get(session) ?? [];
    this.streams.set(session, streams);
    if (!streams.includes(stream)) {
      streams.push(stream);
      if (streams.length > this.limits.maxStreamsPerSession) this.dropStream(session, streams[0]!);
    }
    this.events.push({ session, stream, event, size });
    const ofStream = this.events.filter((e) => e.session === session && e.stream === stream);
    if (ofStream.length > this.limits.maxEventsPerStream) this.remove(ofStream[0]);
    const sessionSize = () => this.events.filter((e) => e.session === session).reduce((sum, e) => sum + e.size, 0);
    while (sessionSize() > this.limits.maxBytesPerSession) this.remove(this.events.find((e) => e.session === session)!);
    while (this.keptSize > this.limits.maxBytes) this.remove(this.events[0]);
    if (last) this.end(session, stream);
  }

  endStream(session: string, stream: string): void {
    if (this.streams.get(session)?.includes(stream)) this.end(session, stream);
  }

  private end(session: string, stream: string): void {
    const ended = this.ended.get(session) ?? [];
    this.ended.set(session, ended);
    if (!ended.includes(stream)) ended.push(stream);
    if (ended.length > this.limits.maxEndedStreamsPerSession) this.dropStream(session, ended[0]!);
  }

  private dropStream(session: string, stream: string): void {
    this.streams.set(
      session,
      (this.streams.get(session) ?? []).filter((s) => s !== stream),
    );
    this.ended.set(
      session,
      (this.ended.get(session) ?? []).filter((s) => s !== stream),
    );
    this.events = this.events.filter((e) => !(e.session === session && e.stream === stream));
  }

  replayAfter(session: string, stream: string, lastEventId: string): StoredEvent[] {
    return this.events.filter((e) => e.session === session && e.stream === stream && eventSeq(e.event.eventId) > eventSeq(lastEventId)).map((e) => e.event);
  }

  dropSession(session: string): void {
    this.events = this.events.filter((e) => e.session !== session);
    this.streams.delete(session);
    this.ended.delete(session);
  }

  private remove(kept: (typeof this.events)[number]): void {
    this.events.splice(this.events.indexOf(kept), 1);
  }
}

const SESSIONS = ['a', 'b', 'c'];
const STREAMS = ['0', '1', '2', '3'];

const operationArb: fc.Arbitrary<Operation> = fc.oneof(
  {
    weight: 12,
    arbitrary: fc
      .tuple(fc.constantFrom(...SESSIONS), fc.constantFrom(...STREAMS), fc.integer({ min: 180, max: 800 }), fc.boolean())
      .map((append) => ({ append })),
  },
  { weight: 2, arbitrary: fc.tuple(fc.constantFrom(...SESSIONS), fc.constantFrom(...STREAMS)).map((endStream) => ({ endStream })) },
  { weight: 1, arbitrary: fc.constantFrom(...SESSIONS).map((dropSession) => ({ dropSession })) },
);

const limitsArb = fc.record({
  maxEventsPerStream: fc.integer({ min: 1, max: 6 }),
  maxStreamsPerSession: fc.integer({ min: 1, max: 4 }),
  maxEndedStreamsPerSession: fc.integer({ min: 1, max: 3 }),
  maxBytesPerSession: fc.integer({ min: 400, max: 3000 }),
  maxBytes: fc.integer({ min: 600, max: 6000 }),
});

describe('InMemoryEventStore against a reference model', () => {
  it('keeps exactly what the model keeps, in keptSize and in the replay of every stream, after every step', async () => {
    await checkProperty(
      fc.tuple(limitsArb, fc.array(operationArb, { minLength: 1, maxLength: 300, size: 'max' })),
      ([limits, operations]) => {
        const store = new InMemoryEventStore(limits);
        const model = new ModelStore(limits);
        const seq = new Map<string, number>();
        for (const [step, operation] of operations.entries()) {
          if ('append' in operation) {
            const [session, stream, cost, last] = operation.append;
            const n = (seq.get(`${session} ${stream}`) ?? 0) + 1;
            seq.set(`${session} ${stream}`, n);
            const appended = event(`${stream}_${n}`, cost);
            store.append(session, stream, appended, last);
            model.append(session, stream, appended, last);
          } else if ('endStream' in operation) {
            store.endStream(...operation.endStream);
            model.endStream(...operation.endStream);
          } else {
            store.dropSession(operation.dropSession);
            model.dropSession(operation.dropSession);
          }
          const seen = { kept: store.keptSize, replays: SESSIONS.flatMap((s) => STREAMS.map((t) => store.replayAfter(s, t, `${t}_0`))) };
          const expected = { kept: model.keptSize, replays: SESSIONS.flatMap((s) => STREAMS.map((t) => model.replayAfter(s, t, `${t}_0`))) };
          if (JSON.stringify(seen) !== JSON.stringify(expected)) expect({ step, ...seen }).toEqual({ step, ...expected });
        }
      },
      100,
    );
  });
});
