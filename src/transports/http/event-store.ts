/**
 * Where SSE events wait for a client that reconnects with Last-Event-ID (transports.mdx, resumability).
 * Event ids are made by the transport: `<stream>_<n>`, with n counting up within the stream, so they are
 * unique per session and name their stream. A store only keeps and replays them.
 */
import type { JsonRpcMessage } from '../../protocol/jsonrpc.js';

export interface StoredEvent {
  eventId: string;
  message: JsonRpcMessage;
  /** The message's JSON, when the transport has it: a store may size the event by it, and keep it to replay. */
  data?: string;
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
  /** Bytes of the events one session keeps (their JSON, as UTF-8); its oldest go first. Default 4 MiB. */
  maxBytesPerSession?: number;
  /** Bytes of all the events kept; the oldest go first, whoever they belong to. Default 64 MiB. */
  maxBytes?: number;
}

interface Kept {
  readonly sessionId: string;
  readonly streamId: string;
  readonly event: StoredEvent;
  readonly size: number;
  dropped: boolean;
}

/** Events in the order they came, oldest first; dropped ones are skipped, and cleared out once they are most. */
class Arrivals {
  private events: Kept[] = [];
  private dropped = 0;

  push(kept: Kept): void {
    this.events.push(kept);
  }

  /** One of the events here was dropped. */
  onDrop(): void {
    if (++this.dropped > 64 && this.dropped > this.events.length / 2) {
      this.events = this.events.filter((k) => !k.dropped);
      this.dropped = 0;
    }
  }

  oldest(): Kept | undefined {
    while (this.events.length > 0 && this.events[0].dropped) {
      this.events.shift();
      this.dropped--;
    }
    return this.events[0];
  }

  all(): readonly Kept[] {
    return this.events;
  }
}

interface SessionEvents {
  readonly streams: Map<string, Kept[]>;
  readonly arrivals: Arrivals;
  size: number;
}

/**
 * The default store: in this process's memory, bounded by count and by size. A client that resumes
 * after more than that was sent gets what is still kept (replay is a MAY in transports.mdx).
 */
export class InMemoryEventStore implements EventStore {
  private readonly sessions = new Map<string, SessionEvents>();
  private readonly arrivals = new Arrivals();
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

  /** Bytes of the events kept, in all (their JSON, as UTF-8). */
  get keptSize(): number {
    return this.size;
  }

  append(sessionId: string, streamId: string, event: StoredEvent): void {
    const size = Buffer.byteLength(event.data ?? JSON.stringify(event.message));
    let session = this.sessions.get(sessionId);
    if (!session) this.sessions.set(sessionId, (session = { streams: new Map(), arrivals: new Arrivals(), size: 0 }));
    let events = session.streams.get(streamId);
    if (!events) {
      session.streams.set(streamId, (events = []));
      if (session.streams.size > this.limits.maxStreamsPerSession) this.dropStream(session, session.streams.keys().next().value as string);
    }
    const kept: Kept = { sessionId, streamId, event, size, dropped: false };
    events.push(kept);
    session.arrivals.push(kept);
    this.arrivals.push(kept);
    session.size += size;
    this.size += size;
    if (events.length > this.limits.maxEventsPerStream) this.drop(events[0]);
    while (session.size > this.limits.maxBytesPerSession) this.drop(session.arrivals.oldest());
    while (this.size > this.limits.maxBytes) this.drop(this.arrivals.oldest());
  }

  replayAfter(sessionId: string, streamId: string, lastEventId: string): StoredEvent[] {
    const events = this.sessions.get(sessionId)?.streams.get(streamId);
    if (!events) return [];
    const after = eventSeq(lastEventId);
    return events.filter((kept) => eventSeq(kept.event.eventId) > after).map((kept) => kept.event);
  }

  dropSession(sessionId: string): void {
    const session = this.sessions.get(sessionId);
    if (!session) return;
    for (const kept of session.arrivals.all()) this.drop(kept);
    this.sessions.delete(sessionId);
  }

  private dropStream(session: SessionEvents, streamId: string): void {
    const events = session.streams.get(streamId) ?? [];
    session.streams.delete(streamId);
    for (const kept of events) this.drop(kept);
  }

  /** Drop one event. Only the oldest of a stream is ever dropped alone: events leave in the order they came. */
  private drop(kept: Kept | undefined): void {
    if (!kept || kept.dropped) return;
    kept.dropped = true;
    this.size -= kept.size;
    this.arrivals.onDrop();
    const session = this.sessions.get(kept.sessionId);
    if (!session) return;
    session.size -= kept.size;
    session.arrivals.onDrop();
    const events = session.streams.get(kept.streamId);
    if (events?.[0] === kept) events.shift();
  }
}

/** The n of an event id `<stream>_<n>` (NaN when it has none). */
export function eventSeq(eventId: string): number {
  const cut = eventId.lastIndexOf('_');
  return cut === -1 ? Number.NaN : Number(eventId.slice(cut + 1));
}
