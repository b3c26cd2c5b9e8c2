/**
 * Where SSE events wait for a client that reconnects with Last-Event-ID (transports.mdx, resumability).
 * Event ids are made by the transport: `<stream>_<n>`, with n counting up within the stream, so they are
 * unique per session and name their stream. A store only keeps and replays them.
 */
import type { JsonRpcMessage } from '../../protocol/jsonrpc.js';

export interface StoredEvent {
  eventId: string;
  message: JsonRpcMessage;
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
}

/** The default store: bounded, in this process's memory. */
export class InMemoryEventStore implements EventStore {
  private readonly sessions = new Map<string, Map<string, StoredEvent[]>>();
  private readonly maxEvents: number;
  private readonly maxStreams: number;

  constructor(options: InMemoryEventStoreOptions = {}) {
    this.maxEvents = options.maxEventsPerStream ?? 1000;
    this.maxStreams = options.maxStreamsPerSession ?? 100;
  }

  append(sessionId: string, streamId: string, event: StoredEvent): void {
    let streams = this.sessions.get(sessionId);
    if (!streams) this.sessions.set(sessionId, (streams = new Map()));
    let events = streams.get(streamId);
    if (!events) {
      streams.set(streamId, (events = []));
      if (streams.size > this.maxStreams) streams.delete(streams.keys().next().value as string);
    }
    events.push(event);
    if (events.length > this.maxEvents) events.shift();
  }

  replayAfter(sessionId: string, streamId: string, lastEventId: string): StoredEvent[] {
    const events = this.sessions.get(sessionId)?.get(streamId);
    if (!events) return [];
    const after = eventSeq(lastEventId);
    return events.filter((e) => eventSeq(e.eventId) > after);
  }

  dropSession(sessionId: string): void {
    this.sessions.delete(sessionId);
  }
}

/** The n of an event id `<stream>_<n>` (NaN when it has none). */
export function eventSeq(eventId: string): number {
  const cut = eventId.lastIndexOf('_');
  return cut === -1 ? Number.NaN : Number(eventId.slice(cut + 1));
}
