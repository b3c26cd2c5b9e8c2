/**
 * The Tasks extension's store kept in Redis, on the connection `connectRedisScale` makes: every instance
 * sharing it answers `tasks/get` and records `tasks/cancel` for a task any of them created. Each task is
 * a hash (its record, its owner, whether it ended, its runner's lease) that Redis expires at the task's
 * `expiresAt`; sorted sets index all tasks, ended ones and each owner's (by creation order), the expiry
 * times and the leases of tasks still running. Every write is one Lua script, so an ended task stays
 * ended whatever another instance saves over it.
 */
import type { Redis as RedisClient } from 'ioredis';
import type { SaveCondition, StoredTask, TaskStore } from '../extensions/tasks/store.js';
import { ErrorCode, McpError } from '../protocol/errors.js';
import { MAX_TIMER_MS, positiveInteger } from '../protocol/option-checks.js';
import { isTerminalStatus } from '../protocol/tasks.js';

export interface RedisTaskStoreOptions {
  /** How often the indexes are swept of expired tasks, in milliseconds (default 60 000; each write sweeps a few too). */
  sweepIntervalMs?: number;
}

/** How many expired tasks a write drops from the indexes, and a timer's sweep. */
const SWEEP_PER_WRITE = 16;
const SWEEP_PER_TIMER = 1000;
/** How many expired tasks `oldestFinished` weighs against the oldest ended one (the soonest expired: the oldest, at one TTL). */
const EXPIRED_LOOKED_AT = 64;

/** Redis's clock, in ms: key expiry runs on it, so the indexes do too. */
const NOW = "local clock = redis.call('TIME'); local now = clock[1] * 1000 + math.floor(clock[2] / 1000)";

/** Drop up to `limit` expired tasks from the indexes (their hashes Redis has expired already; `now > expiresAt`, as Redis's). */
const SWEEP = `
local function sweep(all, ended, expiry, leases, now, limit)
  local gone = redis.call('ZRANGEBYSCORE', expiry, '-inf', '(' .. string.format('%.0f', now), 'LIMIT', 0, limit)
  for _, id in ipairs(gone) do
    redis.call('ZREM', all, id)
    redis.call('ZREM', ended, id)
    redis.call('ZREM', expiry, id)
    redis.call('ZREM', leases, id)
  end
  return #gone
end`;

/**
 * KEYS: task hash, all, ended, expiry, owner's set, sequence, leases. ARGV: id, record, owner, ended
 * (1/0), expiresAt ('' for never), lease ('' for none), lapsed-by ('' for unconditional: otherwise the
 * save applies only to a stored task whose lease is below it). 0 when nothing is written (the stored task
 * has ended, or the condition fails), else 1.
 */
const SAVE = `${SWEEP}
if redis.call('HGET', KEYS[1], 'ended') == '1' then return 0 end
if ARGV[7] ~= '' then
  local lease = tonumber(redis.call('HGET', KEYS[1], 'lease') or '')
  if not lease or lease >= tonumber(ARGV[7]) then return 0 end
end
${NOW}
sweep(KEYS[2], KEYS[3], KEYS[4], KEYS[7], now, ${SWEEP_PER_WRITE})
local id, expiresAt = ARGV[1], ARGV[5]
redis.call('HSET', KEYS[1], 'record', ARGV[2], 'owner', ARGV[3], 'ended', ARGV[4])
if ARGV[4] == '1' or ARGV[6] == '' then
  redis.call('HDEL', KEYS[1], 'lease')
  redis.call('ZREM', KEYS[7], id)
else
  redis.call('HSET', KEYS[1], 'lease', ARGV[6])
  redis.call('ZADD', KEYS[7], ARGV[6], id)
end
local seq = redis.call('ZSCORE', KEYS[2], id)
if not seq then
  seq = redis.call('INCR', KEYS[6])
  redis.call('ZADD', KEYS[2], seq, id)
end
local owned = redis.call('EXISTS', KEYS[5]) == 1
redis.call('ZADD', KEYS[5], seq, id)
if ARGV[4] == '1' then redis.call('ZADD', KEYS[3], seq, id) end
if expiresAt == '' then
  redis.call('PERSIST', KEYS[1])
  redis.call('ZREM', KEYS[4], id)
  redis.call('PERSIST', KEYS[5])
else
  redis.call('PEXPIREAT', KEYS[1], expiresAt)
  redis.call('ZADD', KEYS[4], expiresAt, id)
  -- The owner's set lives as long as its longest-lived task (one that never expires keeps it for good).
  local ttl = redis.call('PTTL', KEYS[5])
  if not owned or (ttl >= 0 and now + ttl < tonumber(expiresAt)) then redis.call('PEXPIREAT', KEYS[5], expiresAt) end
end
return 1`;

/** KEYS: the owner's set. ARGV: the task key prefix. Its unexpired ids, oldest first; the others leave the set. */
const OWNED_BY = `
local ids, alive = redis.call('ZRANGE', KEYS[1], 0, -1), {}
for _, id in ipairs(ids) do
  if redis.call('EXISTS', ARGV[1] .. id) == 1 then alive[#alive + 1] = id else redis.call('ZREM', KEYS[1], id) end
end
return alive`;

/** KEYS: task hash, all, ended, expiry, leases. ARGV: id, the owner key prefix. */
const DELETE = `
local owner = redis.call('HGET', KEYS[1], 'owner')
if owner then redis.call('ZREM', ARGV[2] .. owner, ARGV[1]) end
redis.call('DEL', KEYS[1])
for i = 2, 5 do redis.call('ZREM', KEYS[i], ARGV[1]) end
return 1`;

/** KEYS: all, ended, expiry. The oldest task (by creation) that has ended or expired, as MemoryTaskStore picks it. */
const OLDEST_FINISHED = `${NOW}
local best, bestSeq = nil, nil
local first = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
if first[1] then best, bestSeq = first[1], tonumber(first[2]) end
local gone = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', '(' .. string.format('%.0f', now), 'LIMIT', 0, ${EXPIRED_LOOKED_AT})
for _, id in ipairs(gone) do
  local seq = tonumber(redis.call('ZSCORE', KEYS[1], id))
  if seq and (not bestSeq or seq < bestSeq) then best, bestSeq = id, seq end
end
return best`;

/** KEYS: all, ended, expiry, leases. ARGV: how many at most. How many expired tasks left the indexes. */
const SWEEP_ONLY = `${SWEEP}
${NOW}
return sweep(KEYS[1], KEYS[2], KEYS[3], KEYS[4], now, tonumber(ARGV[1]))`;

/** The scripts, as ioredis commands (sent by digest, and whole only when Redis does not have them: first use, or after a restart). */
const COMMANDS = {
  switchboardTaskSave: { numberOfKeys: 7, lua: SAVE },
  switchboardTaskDelete: { numberOfKeys: 5, lua: DELETE },
  switchboardTasksOwnedBy: { numberOfKeys: 1, lua: OWNED_BY },
  switchboardTasksOldestFinished: { numberOfKeys: 3, lua: OLDEST_FINISHED },
  switchboardTasksSweep: { numberOfKeys: 4, lua: SWEEP_ONLY },
} as const;

type Command = keyof typeof COMMANDS;
type Commands = Record<Command, (...keysThenArgs: (string | number)[]) => Promise<unknown>>;

/** A task store in Redis: `scale.taskStore()`, for `useTasks(server, { store })`. */
export class RedisTaskStore implements TaskStore {
  private readonly sweeper: NodeJS.Timeout;
  private readonly keys: { all: string; ended: string; expiry: string; leases: string; sequence: string; task: string; owner: string };

  private constructor(
    private readonly redis: RedisClient,
    prefix: string,
    options: RedisTaskStoreOptions,
  ) {
    const sweepIntervalMs = options.sweepIntervalMs ?? 60_000;
    positiveInteger('sweepIntervalMs', sweepIntervalMs, MAX_TIMER_MS);
    this.keys = {
      all: `${prefix}:tasks`,
      ended: `${prefix}:tasks:ended`,
      expiry: `${prefix}:tasks:expiry`,
      leases: `${prefix}:tasks:leases`,
      sequence: `${prefix}:tasks:sequence`,
      task: `${prefix}:task:`,
      owner: `${prefix}:tasks:owner:`,
    };
    for (const [name, definition] of Object.entries(COMMANDS)) redis.defineCommand(name, definition);
    this.sweeper = setInterval(() => void this.sweep().catch(() => {}), sweepIntervalMs);
    this.sweeper.unref?.();
  }

  /**
   * A store on `redis` under `prefix`; `RedisScale.taskStore` makes it on the scale's own connection.
   * @internal
   */
  static over(redis: RedisClient, prefix: string, options: RedisTaskStoreOptions = {}): RedisTaskStore {
    return new RedisTaskStore(redis, prefix, options);
  }

  async save(task: StoredTask, condition?: SaveCondition): Promise<boolean> {
    const { all, ended, expiry, sequence, leases } = this.keys;
    const kept = await this.run(
      'switchboardTaskSave',
      [this.keys.task + task.taskId, all, ended, expiry, this.keys.owner + task.owner, sequence, leases],
      [
        task.taskId,
        JSON.stringify(task),
        task.owner,
        isTerminalStatus(task.status) ? '1' : '0',
        task.expiresAt === null ? '' : String(task.expiresAt),
        task.leaseExpiresAt === undefined ? '' : String(task.leaseExpiresAt),
        condition === undefined ? '' : String(condition.leaseLapsedBy),
      ],
    );
    return kept === 1;
  }

  async load(taskId: string): Promise<StoredTask | undefined> {
    const record = await this.call(() => this.redis.hget(this.keys.task + taskId, 'record'));
    if (record === null) return undefined;
    // A record written by anyone else with access to the Redis is not ours to answer with.
    try {
      const task = JSON.parse(record) as StoredTask;
      return task?.taskId === taskId ? task : undefined;
    } catch {
      return undefined;
    }
  }

  async delete(taskId: string): Promise<void> {
    const { all, ended, expiry, leases } = this.keys;
    await this.run('switchboardTaskDelete', [this.keys.task + taskId, all, ended, expiry, leases], [taskId, this.keys.owner]);
  }

  async ownedBy(owner: string): Promise<string[]> {
    return (await this.run('switchboardTasksOwnedBy', [this.keys.owner + owner], [this.keys.task])) as string[];
  }

  count(): Promise<number> {
    return this.call(() => this.redis.zcard(this.keys.all));
  }

  /** Leases are the runners' clocks (epoch ms), compared with the caller's: the instances' clocks must agree to well within a lease. */
  lapsed(now: number, limit: number): Promise<string[]> {
    return this.call(() => this.redis.zrangebyscore(this.keys.leases, '-inf', `(${now}`, 'LIMIT', 0, limit));
  }

  async oldestFinished(): Promise<string | undefined> {
    const { all, ended, expiry } = this.keys;
    return ((await this.run('switchboardTasksOldestFinished', [all, ended, expiry], [])) as string | null) ?? undefined;
  }

  /** Stops the sweeps; the connection is the scale's, which `scale.close()` lets go. */
  close(): void {
    clearInterval(this.sweeper);
  }

  /** Drop expired tasks from the indexes, a batch at a time (the timer runs it; Redis expires the tasks themselves). */
  private async sweep(): Promise<number> {
    const { all, ended, expiry, leases } = this.keys;
    return (await this.run('switchboardTasksSweep', [all, ended, expiry, leases], [SWEEP_PER_TIMER])) as number;
  }

  /** One of the scripts, on the keys and arguments it takes. */
  private run(command: Command, keys: string[], args: (string | number)[]): Promise<unknown> {
    return this.call(() => (this.redis as unknown as Commands)[command](...keys, ...args));
  }

  /** A command whose failure says the task store is unreachable, as the other shared state does. */
  private async call<T>(command: () => Promise<T>): Promise<T> {
    try {
      return await command();
    } catch (err) {
      throw new McpError(ErrorCode.InternalError, `The shared task store is unreachable (${(err as Error).message}); retry shortly`);
    }
  }
}
