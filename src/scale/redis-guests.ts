/**
 * What serving a session's requests where they land (`serveWhereTheyLand`) keeps in Redis: the
 * sessions' records read back, each instance's tag (which its requests' ids carry) with its URL, when a
 * session was last used as a guest, and the news every instance hears (cancellations, ended sessions).
 */
import type { Redis as RedisClient } from 'ioredis';
import { isKeptSession } from '../transports/http/session-records.js';
import type { GuestNews, GuestSupport } from '../transports/http/session-router.js';
import { ExpiringMap } from './expiring-map.js';

/** What randomUUID() makes: a session id. */
export const SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** What an instance's tag is: 12 base64url characters. */
const TAG = /^[0-9A-Za-z_-]{12}$/;

/** How long an instance's tag stays registered without being registered again. */
const INSTANCE_TTL_MS = 24 * 3_600_000;
/** How many tags, and for how long, an instance remembers without asking Redis again. */
const INSTANCE_CACHE_SIZE = 1000;
const INSTANCE_CACHE_MS = 60_000;

interface GuestStore {
  redis: RedisClient;
  prefix: string;
  /** The pub/sub channel of the news (the instance's subscriber listens to it). */
  channel: string;
  listeners: Set<(news: GuestNews) => void>;
  recordKey: (sessionId: string) => string;
  ttlMs: number;
}

export function redisGuestSupport({ redis, prefix, channel, listeners, recordKey, ttlMs }: GuestStore): GuestSupport {
  const tagKey = (tag: string) => `${prefix}:instance:${tag}`;
  const usedKey = (sessionId: string) => `${prefix}:session-used:${sessionId}`;
  // An instance's tag names the same URL for as long as it runs.
  const instances = new ExpiringMap<string>(INSTANCE_CACHE_SIZE, INSTANCE_CACHE_MS);
  return {
    recall: async (sessionId) => {
      if (!SESSION_ID.test(sessionId)) return undefined;
      const text = await redis.get(recordKey(sessionId));
      let kept: unknown;
      try {
        kept = text === null ? undefined : JSON.parse(text);
      } catch {
        return undefined;
      }
      return isKeptSession(kept) ? kept : undefined;
    },
    register: async (tag, url) => {
      await redis.set(tagKey(tag), url, 'PX', INSTANCE_TTL_MS);
    },
    instance: async (tag) => {
      const known = instances.get(tag);
      if (known !== undefined) return known;
      if (!TAG.test(tag)) return undefined;
      const url = (await redis.get(tagKey(tag))) ?? undefined;
      // Anything with access to the Redis can write there: only an http(s) URL is an instance's.
      if (url === undefined || !isHttpUrl(url)) return undefined;
      instances.set(tag, url);
      return url;
    },
    used: async (sessionId) => {
      await redis.set(usedKey(sessionId), String(Date.now()), 'PX', ttlMs);
    },
    lastUse: async (sessionId) => {
      const text = await redis.get(usedKey(sessionId));
      const ms = text === null ? Number.NaN : Number(text);
      return Number.isFinite(ms) ? ms : undefined;
    },
    announce: async (news) => {
      await redis.publish(channel, JSON.stringify(news));
    },
    onNews: (listener) => {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
  };
}

function isHttpUrl(text: string): boolean {
  try {
    const { protocol } = new URL(text);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

/** A message on the news channel, checked (anything with access to the Redis can publish on it), to each listener. */
export function hearGuestNews(text: string, listeners: Set<(news: GuestNews) => void>): void {
  let news: unknown;
  try {
    news = JSON.parse(text);
  } catch {
    return;
  }
  if (!isGuestNews(news)) return;
  for (const listener of listeners) {
    try {
      listener(news);
    } catch {
      // A listener's failure is its own to report; the others still hear.
    }
  }
}

function isGuestNews(news: unknown): news is GuestNews {
  if (typeof news !== 'object' || news === null) return false;
  const { type, sessionId, requestId, reason, tag, messages } = news as Record<string, unknown>;
  if (typeof sessionId !== 'string' || !SESSION_ID.test(sessionId)) return false;
  if (type === 'ended' || type === 'changed') return true;
  if (type === 'replies') {
    return (
      typeof tag === 'string' && TAG.test(tag) && Array.isArray(messages) && messages.length > 0 && messages.every((m) => typeof m === 'object' && m !== null)
    );
  }
  return type === 'cancelled' && (typeof requestId === 'string' || typeof requestId === 'number') && (reason === undefined || typeof reason === 'string');
}
