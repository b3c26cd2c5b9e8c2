/** A redis-server per test file (see redis-server.ts, which the benchmark uses too). */
import { afterAll, beforeAll } from 'vitest';
import { type RunningRedis, startRedis } from './redis-server.js';

export { type RunningRedis, redisAvailable, startRedis } from './redis-server.js';

/** Call once at the top level of a test file: one redis-server for the file, started before its tests and stopped after. */
export function useRedis(): RunningRedis {
  let running: RunningRedis | undefined;
  beforeAll(async () => {
    running = await startRedis();
  });
  afterAll(async () => {
    await running?.stop();
  });
  const started = () => {
    if (!running) throw new Error('redis-server is not started yet: use it inside a test');
    return running;
  };
  return {
    get url() {
      return started().url;
    },
    get port() {
      return started().port;
    },
    stop: () => started().stop(),
    restart: () => started().restart(),
  };
}
