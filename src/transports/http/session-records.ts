/**
 * What a 2025 Streamable HTTP session leaves behind for another instance: its record (what `initialize`
 * settled and what the client set since) and a digest of its principal, kept where the session router
 * keeps its owners, so that a request for the session on another instance, once its owner is gone,
 * goes on there with the same `Mcp-Session-Id` instead of a 404.
 */
import { createHash } from 'node:crypto';
import { principalKey } from '../../protocol/principal.js';
import type { SessionRecord } from '../../server/port.js';

/** A session's record as it is kept: with a digest of its principal's key (none without `auth`). */
export interface KeptSession extends SessionRecord {
  principal?: string;
}

/** A session this instance took over: its record, and the instance that drains and handed it off, if one did. */
export interface TakenOver {
  kept: KeptSession;
  handedOffBy?: string;
}

/** Where the records are kept (the router of `scale.sessionRouter()` keeps them in Redis). */
export interface SessionRecords {
  /** Keep (or replace) session `sessionId`'s record. */
  remember(sessionId: string, kept: KeptSession): void | Promise<void>;
  /**
   * Take session `sessionId` over for this instance (at `ownerUrl`), unless an instance other than
   * `formerOwner` (the owner found gone, if any) holds it: then that instance's URL (it took it first).
   * With no record kept (the session ended, or it expired), undefined, and nothing is taken.
   */
  takeOver(sessionId: string, ownerUrl: string, formerOwner: string | undefined): Promise<TakenOver | { owner: string } | undefined>;
  /** The session ended: no one goes on with it. */
  forget(sessionId: string): void | Promise<void>;
}

/** `record` as kept for `principal` (with `auth`; undefined without). */
export function keep(record: SessionRecord, principal: unknown, withAuth: boolean): KeptSession {
  if (!withAuth) return record;
  const key = principalKey(principal);
  return key === undefined ? record : { ...record, principal: digest(key) };
}

/** Whether `principal` may go on with the kept session: the one that made it, when `auth` is on. */
export function mayAdopt(kept: KeptSession, principal: unknown, withAuth: boolean): boolean {
  if (!withAuth) return true;
  const key = principalKey(principal);
  return key !== undefined && kept.principal === digest(key);
}

/** What was kept, read back from a store anyone with access to may have written: the shape checked. */
export function isKeptSession(value: unknown): value is KeptSession {
  if (typeof value !== 'object' || value === null) return false;
  const kept = value as Record<string, unknown>;
  return (
    typeof kept.protocolVersion === 'string' &&
    typeof kept.clientCapabilities === 'object' &&
    kept.clientCapabilities !== null &&
    Array.isArray(kept.subscriptions) &&
    kept.subscriptions.every((uri) => typeof uri === 'string') &&
    (kept.principal === undefined || typeof kept.principal === 'string')
  );
}

function digest(key: string): string {
  return createHash('sha256').update(key).digest('base64url');
}
