/** How many commands of each kind a redis-server ran, from its own `INFO commandstats`. */
import { Redis } from 'ioredis';

export interface RedisCommandCounter {
  /** Start counting from zero (`CONFIG RESETSTAT`). */
  reset(): Promise<void>;
  /** How many times `command` (lowercase: get, set, eval, ...) ran since the last reset. */
  calls(command: string): Promise<number>;
  close(): Promise<void>;
}

export function countRedisCommands(url: string): RedisCommandCounter {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  return {
    async reset() {
      await redis.config('RESETSTAT');
    },
    async calls(command) {
      const stats = await redis.info('commandstats');
      const match = new RegExp(`^cmdstat_${command}:calls=(\\d+),`, 'm').exec(stats);
      return match ? Number(match[1]) : 0;
    },
    async close() {
      await redis.quit();
    },
  };
}
