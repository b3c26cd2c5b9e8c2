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
  append(sessionId: string, streamId: string, event: StoredEvent): void | Promise<void>;
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
  /** Bytes of the events one session keeps (their data, as UTF-8); its oldest go first. Default 4 MiB. */
  maxBytesPerSession?: number;
  /** Bytes of all the events kept; the oldest go first, whoever they belong to. Default 64 MiB. */
  maxBytes?: number;
}

/** A kept event's place in one of its lists: the events next to it, older and newer. */
interface Link {
  older: Kept | undefined;
  newer: Kept | undefined;
}

/** One event, in three lists at once: its stream's, its session's and the store's, each in the order they came. */
interface Kept {
  readonly eventId: string;
  readonly data: string;
  readonly size: number;
  readonly session: SessionEvents;
  readonly stream: EventList;
  readonly inStream: Link;
  readonly inSession: Link;
  readonly inStore: Link;
}

/** Events oldest first, linked through their own `Link`s: any one leaves in O(1), with no compaction to wait for. */
class EventList {
  oldest: Kept | undefined;
  private newest: Kept | undefined;
  length = 0;

  constructor(private readonly linkOf: (kept: Kept) => Link) {}

  push(kept: Kept): void {
    const link = this.linkOf(kept);
    link.older = this.newest;
    if (this.newest) this.linkOf(this.newest).newer = kept;
    else this.oldest = kept;
    this.newest = kept;
    this.length++;
  }

  remove(kept: Kept): void {
    const link = this.linkOf(kept);
    if (link.older) this.linkOf(link.older).newer = link.newer;
    else this.oldest = link.newer;
    if (link.newer) this.linkOf(link.newer).older = link.older;
    else this.newest = link.older;
    link.older = link.newer = undefined;
    this.length--;
  }

  *[Symbol.iterator](): IterableIterator<Kept> {
    for (let kept = this.oldest; kept; kept = this.linkOf(kept).newer) yield kept;
  }
}

const inStream = (kept: Kept) => kept.inStream;
const inSession = (kept: Kept) => kept.inSession;
const inStore = (kept: Kept) => kept.inStore;

interface SessionEvents {
  readonly streams: Map<string, EventList>;
  readonly arrivals: EventList;
  size: number;
}

/**
 * The default store: in this process's memory, bounded by count and by size. A client that resumes
 * after more than that was sent gets what is still kept (replay is a MAY in transports.mdx).
 */
export class InMemoryEventStore implements EventStore {
  private readonly sessions = new Map<string, SessionEvents>();
  private readonly arrivals = new EventList(inStore);
  private size = 0;
  private readonly limits: Required<InMemoryEventStoreOptions>;

  constructor(options: InMemoryEventStoreOptions = {}) {
    this.limits = {
      maxEventsPerStream: options.maxEventsPerStream ?? 1000,
      maxStreamsPerSession: options.maxStreamsPerSession ?? 100,
      maxBytesPerSession: options.maxBytesPerSession ?? 4 * 1024 * 1024,
      maxBytes: options.maxBytes ?? 64 * 1024 * 1024,
    };
    for (const [name, value] of Object.entries(this.limits)) {
      if (!Number.isInteger(value) || value <= 0)
        throw new TypeError(`InMemoryEventStore option ${name} must be a positive integer; got ${JSON.stringify(value)}`);
    }
  }

  /** Bytes of the events kept, in all (their data, as UTF-8). */
  get keptSize(): number {
    return this.size;
  }

  append(sessionId: string, streamId: string, event: StoredEvent): void {
    if (typeof event?.eventId !== 'string' || typeof event.data !== 'string')
      throw new TypeError(`InMemoryEventStore.append takes { eventId, data } with both strings (data is the message's JSON); got ${shapeOf(event)}`);
    let session = this.sessions.get(sessionId);
    if (!session) this.sessions.set(sessionId, (session = { streams: new Map(), arrivals: new EventList(inSession), size: 0 }));
    let stream = session.streams.get(streamId);
    if (!stream) {
      session.streams.set(streamId, (stream = new EventList(inStream)));
      if (session.streams.size > this.limits.maxStreamsPerSession) this.dropStream(session, session.streams.keys().next().value as string);
    }
    const size = Buffer.byteLength(event.data);
    const kept: Kept = {
      eventId: event.eventId,
      data: event.data,
      size,
      session,
      stream,
      inStream: { older: undefined, newer: undefined },
      inSession: { older: undefined, newer: undefined },
      inStore: { older: undefined, newer: undefined },
    };
    stream.push(kept);
    session.arrivals.push(kept);
    this.arrivals.push(kept);
    session.size += size;
    this.size += size;
    if (stream.length > this.limits.maxEventsPerStream) this.drop(stream.oldest!);
    while (session.size > this.limits.maxBytesPerSession) this.drop(session.arrivals.oldest!);
    while (this.size > this.limits.maxBytes) this.drop(this.arrivals.oldest!);
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
