/**
 * Waiting out a grace period: a transport's closing handshake, a child's exit, the replies still going
 * out, a server's drain. Whoever waits decides what to do when it runs out (terminate, SIGTERM, close).
 */

import { unref } from './unref.js';

/** How often a condition is checked: a drain ends at most this late. */
const POLL_MS = 50;

/**
 * Whether `awaited` settles within `ms`: a promise (fulfilled or rejected alike), or a condition that
 * is checked now and every 50 ms (those checks keep no process alive).
 */
export function settlesWithin(awaited: Promise<unknown> | (() => boolean), ms: number): Promise<boolean> {
  if (typeof awaited === 'function') return conditionWithin(awaited, ms);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    const settled = () => {
      clearTimeout(timer);
      resolve(true);
    };
    awaited.then(settled, settled);
  });
}

function conditionWithin(holds: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  return new Promise((resolve) => {
    const check = () => {
      if (holds()) return resolve(true);
      if (Date.now() >= deadline) return resolve(false);
      unref(setTimeout(check, Math.min(POLL_MS, Math.max(1, deadline - Date.now()))));
    };
    check();
  });
}
