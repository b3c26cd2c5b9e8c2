/**
 * What an McpServer shares with the other instances serving the same endpoint (`scale` option): the
 * requestState key ring and single-use marks. `src/scale/` has an implementation on Redis; without one,
 * each instance keeps its own (in memory).
 */
export interface SharedState {
  /** requestState secrets every instance holds alike (the first signs, all verify); used unless `requestState.keys` is given. */
  readonly stateKeys: readonly (string | Buffer)[];
  /** Mark a requestState id used until `expiresAt` (ms since the epoch), for every instance: false if it already was. */
  consumeState(id: string, expiresAt: number): Promise<boolean>;
  /** Tell every other instance of a change its clients should hear of too. */
  broadcast?(event: SharedEvent): Promise<void>;
  /** Hear what the other instances broadcast (never this instance's own); returns a function that stops listening. */
  onBroadcast?(listener: (event: SharedEvent) => void): () => void;
  /** Whether the store is reachable now: `/readyz` says not ready while it is not. */
  healthy?(): boolean;
}

/** A change every instance tells its own clients of: a resource that was updated, a list that changed, an extension's news. */
export type SharedEvent =
  | { type: 'resourceUpdated'; uri: string }
  | { type: 'listChanged'; list: 'tools' | 'prompts' | 'resources' }
  | { type: 'extension'; id: string; news: Record<string, unknown> };

/** Single-use marks in this process's memory: each id is remembered until its state would expire anyway. */
export class LocalStateMarks {
  private readonly used = new Map<string, number>();
  private nextSweep = 0;

  consume(id: string, expiresAt: number): boolean {
    const now = Date.now();
    if (now >= this.nextSweep) this.sweep(now);
    const seen = this.used.get(id);
    if (seen !== undefined && seen > now) return false;
    this.used.set(id, expiresAt);
    return true;
  }

  get size(): number {
    return this.used.size;
  }

  /** Forget ids whose states have expired (a state past its expiry is refused before it is consumed). */
  private sweep(now: number): void {
    for (const [id, expiresAt] of this.used) if (expiresAt <= now) this.used.delete(id);
    this.nextSweep = now + 10_000;
  }
}
