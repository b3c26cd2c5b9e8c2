/**
 * Where SSE events wait for a client that reconnects with Last-Event-ID (transports.mdx, resumability).
 * Event ids are made by the transport: `<stream>_<n>`, with n counting up within the stream, so they are
 * unique per session and name their stream. A store only keeps and replays them.
 */

export interface StoredEvent {
  eventId: string;
  /** The message's JSON, as it was written on the stream: what a replay writes again. */
  data: string;
}

export interface EventStore {
  /**
   * Keep `event` of `streamId`. `last` says it is the stream's final event (its request answered): a client
   * comes back for such a stream only when it lost the tail, within its `retry`, so a store may keep fewer
   * streams that ended than live ones.
   */
  append(sessionId: string, streamId: string, event: StoredEvent, last?: boolean): void | Promise<void>;
  /**
   * `streamId` ended with no final event to mark it (its requests were cancelled): from now on it counts
   * among the streams that ended, as if its last event had been appended with `last`. Optional: a store
   * without it keeps such a stream among the live ones until its own limits drop it.
   */
  endStream?(sessionId: string, streamId: string): void | Promise<void>;
  /** The events of `streamId` whose n is above `lastEventId`'s, oldest first (the id itself may not be stored: priming ids are not). */
  replayAfter(sessionId: string, streamId: string, lastEventId: string): StoredEvent[] | Promise<StoredEvent[]>;
  /** The session ended: forget its events. */
  dropSession(sessionId: string): void | Promise<void>;
}

export interface InMemoryEventStoreOptions {
  /** Events kept per stream; older ones are dropped first. Default 1000. */
  maxEventsPerStream?: number;
  /** Streams kept per session; the oldest is dropped first. Default 100. */
  maxStreamsPerSession?: number;
  /**
   * Of those, streams that ended (their request answered, or cancelled: `endStream`), kept for a client that
   * lost its tail and comes back for it; past it the one that ended first is dropped. A live stream never counts. Default 8.
   */
  maxEndedStreamsPerSession?: number;
  /**
   * Bytes one session's events may cost, each counted as the UTF-8 bytes of its id and its data plus 160 (its
   * record): about what it takes of the heap. Its oldest go first; an event that alone costs more than this
   * (or than `maxBytes`) is not kept, and drops nothing. Default 4 MiB.
   */
  maxBytesPerSession?: number;
  /** Bytes all the events kept may cost, counted as for `maxBytesPerSession`; the oldest go first, whoever they belong to. Default 64 MiB. */
  maxBytes?: number;
}

/** A kept event's heap beyond its id and data: a record of 11 fields and two string headers, 149–154 B measured after GC on Node 20. */
export const EVENT_OVERHEAD_BYTES = 160;

/** The bytes an event counts for toward the store's limits: about what keeping it takes of the heap. */
export function eventCost(event: StoredEvent): number {
  return Buffer.byteLength(event.eventId) + Buffer.byteLength(event.data) + EVENT_OVERHEAD_BYTES;
}

type Older = 'olderInStream' | 'olderInSession' | 'olderInStore';
type Newer = 'newerInStream' | 'newerInSession' | 'newerInStore';

/** One event, in three lists at once (its stream's, its session's and the store's), linked by its own fields: one allocation per event. */
class Kept {
  olderInStream: Kept | undefined = undefined;
  newerInStream: Kept | undefined = undefined;
  olderInSession: Kept | undefined = undefined;
  newerInSession: Kept | undefined = undefined;
  olderInStore: Kept | undefined = undefined;
  newerInStore: Kept | undefined = undefined;

  constructor(
    readonly eventId: string,
    readonly data: string,
    readonly size: number,
    readonly session: SessionEvents,
    readonly stream: EventList,
  ) {}
}

/** Events oldest first, linked through one pair of their fields: any one leaves in O(1), with no compaction to wait for. */
class EventList {
  oldest: Kept | undefined;
  private newest: Kept | undefined;
  length = 0;

  constructor(
    private readonly older: Older,
    private readonly newer: Newer,
  ) {}

  push(kept: Kept): void {
    kept[this.older] = this.newest;
    if (this.newest) this.newest[this.newer] = kept;
    else this.oldest = kept;
    this.newest = kept;
    this.length++;
  }

  remove(kept: Kept): void {
    const older = kept[this.older];
    const newer = kept[this.newer];
    if (older) older[this.newer] = newer;
    else this.oldest = newer;
    if (newer) newer[this.older] = older;
    else this.newest = older;
    kept[this.older] = kept[this.newer] = undefined;
    this.length--;
  }

  *[Symbol.iterator](): IterableIterator<Kept> {
    for (let kept = this.oldest; kept; kept = kept[this.newer]) yield kept;
  }
}

interface SessionEvents {
  readonly streams: Map<string, EventList>;
  readonly arrivals: EventList;
  /** The streams kept that ended, in the order they did. */
  readonly ended: Set<string>;
  size: number;
}

/**
 * The default store: in this process's memory, bounded by count and by size. A client that resumes
 * after more than that was sent gets what is still kept (replay is a MAY in transports.mdx).
 */
export class InMemoryEventStore implements EventStore {
  private readonly sessions = new Map<string, SessionEvents>();
  private readonly arrivals = new EventList('olderInStore', 'newerInStore');
  private size = 0;
  private readonly limits: Required<InMemoryEventStoreOptions>;
  /** The most one event may cost: beyond it, keeping it would drop everything else and it would still not fit. */
  private readonly largest: number;

  constructor(options: InMemoryEventStoreOptions = {}) {
    this.limits = {
      maxEventsPerStream: options.maxEventsPerStream ?? 1000,
      maxStreamsPerSession: options.maxStreamsPerSession ?? 100,
      maxEndedStreamsPerSession: options.maxEndedStreamsPerSession ?? 8,
      maxBytesPerSession: options.maxBytesPerSession ?? 4 * 1024 * 1024,
      maxBytes: options.maxBytes ?? 64 * 1024 * 1024,
    };
    for (const [name, value] of Object.entries(this.limits)) {
      if (!Number.isInteger(value) || value <= 0)
        throw new TypeError(`InMemoryEventStore option ${name} must be a positive integer; got ${JSON.stringify(value)}`);
    }
    this.largest = Math.min(this.limits.maxBytesPerSession, this.limits.maxBytes);
  }

  /** Bytes the events kept cost, in all: each the UTF-8 bytes of its id and its data, plus 160. */
  get keptSize(): number {
    return this.size;
  }

  append(sessionId: string, streamId: string, event: StoredEvent, last = false): void {
    if (typeof event?.eventId !== 'string' || typeof event.data !== 'string')
      throw new TypeError(`InMemoryEventStore.append takes { eventId, data } with both strings (data is the message's JSON); got ${shapeOf(event)}`);
    const size = eventCost(event);
    let session = this.sessions.get(sessionId);
    if (size > this.largest) {
      // Not kept, but the stream ended all the same.
      if (last && session?.streams.has(streamId)) this.streamEnded(session, streamId);
      return;
    }
    if (!session) {
      session = { streams: new Map(), arrivals: new EventList('olderInSession', 'newerInSession'), ended: new Set(), size: 0 };
      this.sessions.set(sessionId, session);
    }
    let stream = session.streams.get(streamId);
    if (!stream) {
      session.streams.set(streamId, (stream = new EventList('olderInStream', 'newerInStream')));
      if (session.streams.size > this.limits.maxStreamsPerSession) this.dropStream(session, session.streams.keys().next().value as string);
    }
    const kept = new Kept(event.eventId, event.data, size, session, stream);
    stream.push(kept);
    session.arrivals.push(kept);
    this.arrivals.push(kept);
    session.size += size;
    this.size += size;
    if (stream.length > this.limits.maxEventsPerStream) this.drop(stream.oldest!);
    while (session.size > this.limits.maxBytesPerSession) this.drop(session.arrivals.oldest!);
    while (this.size > this.limits.maxBytes) this.drop(this.arrivals.oldest!);
    if (last) this.streamEnded(session, streamId);
  }

  endStream(sessionId: string, streamId: string): void {
    const session = this.sessions.get(sessionId);
    if (session?.streams.has(streamId)) this.streamEnded(session, streamId);
  }

  /** A stream's final event was sent: it joins the ended streams, and the one that ended first may go. */
  private streamEnded(session: SessionEvents, streamId: string): void {
    session.ended.add(streamId);
    if (session.ended.size > this.limits.maxEndedStreamsPerSession) this.dropStream(session, session.ended.values().next().value as string);
  }

  replayAfter(sessionId: string, streamId: string, lastEventId: string): StoredEvent[] {
    const stream = this.sessions.get(sessionId)?.streams.get(streamId);
    if (!stream) return [];
    const after = eventSeq(lastEventId);
    const replay: StoredEvent[] = [];
    for (const kept of stream) if (eventSeq(kept.eventId) > after) replay.push({ eventId: kept.eventId, data: kept.data });
    return replay;
  }

  dropSession(sessionId: string): void {
    const session = this.sessions.get(sessionId);
    if (!session) return;
    while (session.arrivals.oldest) this.drop(session.arrivals.oldest);
    this.sessions.delete(sessionId);
  }

  private dropStream(session: SessionEvents, streamId: string): void {
    const stream = session.streams.get(streamId);
    session.streams.delete(streamId);
    session.ended.delete(streamId);
    while (stream?.oldest) this.drop(stream.oldest);
  }

  /** Take one event out of all three of its lists: nothing refers to it, or to its data, any more. */
  private drop(kept: Kept): void {
    kept.stream.remove(kept);
    kept.session.arrivals.remove(kept);
    this.arrivals.remove(kept);
    kept.session.size -= kept.size;
    this.size -= kept.size;
  }
}

/** The n of an event id `<stream>_<n>` (NaN when it has none). */
export function eventSeq(eventId: string): number {
  const cut = eventId.lastIndexOf('_');
  return cut === -1 ? Number.NaN : Number(eventId.slice(cut + 1));
}

/** What an event that is not one looks like, for the error that refuses it. */
function shapeOf(event: unknown): string {
  if (typeof event !== 'object' || event === null) return String(event);
  return `an object with ${Object.keys(event).join(', ') || 'no keys'}`;
}
