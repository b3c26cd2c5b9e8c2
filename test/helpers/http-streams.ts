/**
 * Shared pieces for Streamable HTTP stream tests: raw clients of a running server with their server-side
 * session and the official SDK v1 client over StreamableHTTPClientTransport, exact SSE events and their wire
 * text, a recording event store and a slow one, and waits on what the server saw.
 */
import { Client, type ClientOptions } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  InMemoryEventStore,
  type InMemoryEventStoreOptions,
  type EventStore,
  type JsonRpcMessage,
  type McpServer,
  type McpSession,
  type StoredEvent,
  type StreamableHttpTransport,
} from '../../src/index.js';
import type { Cleanups } from './cleanups.js';
import { deferred } from './deferred.js';
import { HttpTestClient, type OpenResponse, type SseEvent } from './http-client.js';
import { nextEvent } from './server-events.js';
import type { RunningServer } from './servers.js';
import { until } from './waits.js';
import type { Json } from './ws-client.js';

type InitOptions = Parameters<HttpTestClient['initialize']>[0];

export interface HttpSessions {
  /** A raw client that completed initialize + notifications/initialized, and its server-side session (ready). */
  client(running: RunningServer, init?: InitOptions): Promise<{ client: HttpTestClient; session: McpSession }>;
  /** The SDK v1 client over StreamableHTTPClientTransport, initialized, closed after the test; `setup` runs before connecting. */
  sdk(
    running: RunningServer,
    options?: ClientOptions,
    setup?: (client: Client) => void,
    transportOptions?: ConstructorParameters<typeof StreamableHTTPClientTransport>[1],
  ): Promise<{ client: Client; transport: StreamableHTTPClientTransport; session: McpSession }>;
}

/** Pass the file's `useCleanups()`, so clients close before the servers they talk to. */
export function useHttpSessions(cleanups: Cleanups): HttpSessions {
  return {
    async client(running, init) {
      const client = new HttpTestClient(running.url);
      await client.initialize(init);
      const session = running.server.sessions.get(client.sessionId!);
      if (session?.state !== 'ready') throw new Error('the initialized session is not ready on the server');
      return { client, session };
    },
    async sdk(running, options = {}, setup, transportOptions) {
      const client = new Client({ name: 'sdk-v1-http-peer', version: '1.0.0' }, options);
      setup?.(client);
      const started = nextEvent<[McpSession]>(running.server, 'sessionNew');
      const initialized = nextEvent<[McpSession]>(running.server, 'initialized');
      const transport = new StreamableHTTPClientTransport(new URL(running.url), transportOptions);
      cleanups.push(() => client.close());
      await client.connect(transport);
      const [session] = await started;
      const [ready] = await initialized;
      if (ready !== session) throw new Error('another session initialized at the same time');
      return { client, transport, session };
    },
  };
}

/** The next SSE event of a response, whatever it is (priming events included), in arrival order. */
export function nextSse(res: OpenResponse): Promise<SseEvent> {
  return res.nextEvent(() => true);
}

/** Read `count` events in order; resolves with them. */
export async function readSse(res: OpenResponse, count: number): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  for (let i = 0; i < count; i++) events.push(await nextSse(res));
  return events;
}

/** An SSE `message` event carrying `message`, with event id `id` (none when undefined). */
export function sseMessage(id: string | undefined, message: Json): SseEvent {
  const data = JSON.stringify(message);
  return id === undefined ? { event: 'message', data, message } : { id, event: 'message', data, message };
}

/** A priming event: an id with empty data, and `retry` when given. */
export function priming(id: string, retry: number | undefined = 1000): SseEvent {
  return retry === undefined ? { id, data: '' } : { id, retry, data: '' };
}

/** The exact bytes of these events on the wire (transports.mdx; the SDK's `event: message` / `id:` / `data:` order). */
export function wire(...events: SseEvent[]): string {
  return events
    .map((e) =>
      e.message === undefined
        ? `id: ${e.id}\n${e.retry === undefined ? '' : `retry: ${e.retry}\n`}data: \n\n`
        : `event: message\n${e.id === undefined ? '' : `id: ${e.id}\n`}data: ${e.data}\n\n`,
    )
    .join('');
}

/**
 * Resolves once the server has seen a response connection closed by the client before the server ended it
 * (a dropped stream). Call it before sending the request whose connection will be dropped.
 */
export function dropNoticed(transport: StreamableHttpTransport, method: 'GET' | 'POST'): Promise<void> {
  return new Promise((resolve) => {
    const listener = (req: IncomingMessage, res: ServerResponse) => {
      if (req.method !== method || res.writableEnded) return;
      transport.off('httpResponse', listener);
      resolve();
    };
    transport.on('httpResponse', listener);
  });
}

/** Resolves once the server has sent (to the transport) a message that matches. */
export function sentByServer(server: McpServer, match: (message: Json) => boolean): Promise<Json> {
  return new Promise((resolve) => {
    const listener = (_session: McpSession, direction: 'in' | 'out', message: unknown) => {
      if (direction !== 'out' || typeof message !== 'object' || message === null || !match(message as Json)) return;
      server.off('message', listener);
      resolve(message as Json);
    };
    server.on('message', listener);
  });
}

/** Wait until the session's back channel (its GET stream) has opened: an unrelated server request can reach the client. */
export async function standaloneOpen(running: RunningServer, session: McpSession): Promise<void> {
  await until(() => running.backChannels.includes(session), 'the client to open its GET stream');
}

/** A client that completed initialize and notifications/initialized with a server whose every POST answers with an event stream (`responseMode: 'sse'`). */
export async function initializedOverSse(url: string, protocolVersion = '2025-11-25'): Promise<HttpTestClient> {
  const client = new HttpTestClient(url);
  const res = await client.request('initialize', { protocolVersion, capabilities: {}, clientInfo: { name: 'sse', version: '1.0.0' } }, 0);
  const answer = await res.nextMessage({ id: 0 });
  if (!answer.result) throw new Error(`initialize failed: ${JSON.stringify(answer)}`);
  client.sessionId = res.headers['mcp-session-id'] as string;
  client.protocolVersion = answer.result.protocolVersion;
  await (await client.notify('notifications/initialized')).ended;
  return client;
}

/** An event as the transport stores it: its id and the message's JSON exactly as it was sent. */
export function stored(eventId: string, message: Json): StoredEvent {
  return { eventId, data: JSON.stringify(message) };
}

/** An EventStore that records every call and keeps the events in an InMemoryEventStore. */
export class RecordingEventStore implements EventStore {
  readonly appended: { sessionId: string; streamId: string; event: StoredEvent }[] = [];
  /** The streams whose final event was appended (`last`), as [sessionId, streamId, eventId]. */
  readonly ended: [sessionId: string, streamId: string, eventId: string][] = [];
  readonly replays: [sessionId: string, streamId: string, lastEventId: string][] = [];
  readonly dropped: string[] = [];
  /** The streams said to have ended with no last event (`endStream`), as [sessionId, streamId]. */
  readonly endedUnmarked: [sessionId: string, streamId: string][] = [];
  private readonly inner: InMemoryEventStore;

  constructor(options?: InMemoryEventStoreOptions) {
    this.inner = new InMemoryEventStore(options);
  }

  append(sessionId: string, streamId: string, event: StoredEvent, last?: boolean): void {
    this.appended.push({ sessionId, streamId, event });
    if (last) this.ended.push([sessionId, streamId, event.eventId]);
    this.inner.append(sessionId, streamId, event, last);
  }

  endStream(sessionId: string, streamId: string): void {
    this.endedUnmarked.push([sessionId, streamId]);
    this.inner.endStream(sessionId, streamId);
  }

  replayAfter(sessionId: string, streamId: string, lastEventId: string): StoredEvent[] {
    this.replays.push([sessionId, streamId, lastEventId]);
    return this.inner.replayAfter(sessionId, streamId, lastEventId);
  }

  dropSession(sessionId: string): void {
    this.dropped.push(sessionId);
    this.inner.dropSession(sessionId);
  }

  /** The stream a stored message went on. */
  streamOf(match: (message: JsonRpcMessage & Json) => boolean): string | undefined {
    return this.appended.find((e) => match(JSON.parse(e.event.data)))?.streamId;
  }

  /** The stored events of one stream of one session, in order. */
  eventsOf(sessionId: string, streamId: string): StoredEvent[] {
    return this.appended.filter((e) => e.sessionId === sessionId && e.streamId === streamId).map((e) => e.event);
  }
}

/** An EventStore like a slow database: a replay is read when asked for, and answered only once `answer()` is called. */
export class SlowEventStore implements EventStore {
  readonly inner = new InMemoryEventStore();
  private readonly askedFor = deferred();
  private readonly answering = deferred();

  /** Resolves once a replay has been asked for (its events are read by then). */
  readonly asked = this.askedFor.promise;

  append(sessionId: string, streamId: string, event: StoredEvent, last?: boolean): void {
    this.inner.append(sessionId, streamId, event, last);
  }

  replayAfter(sessionId: string, streamId: string, lastEventId: string): Promise<StoredEvent[]> {
    const snapshot = this.inner.replayAfter(sessionId, streamId, lastEventId);
    this.askedFor.resolve();
    return this.answering.promise.then(() => snapshot);
  }

  dropSession(sessionId: string): void {
    this.inner.dropSession(sessionId);
  }

  /** Let the replays asked for, and every later one, answer. */
  answer(): void {
    this.answering.resolve();
  }
}
