/** Latencies in buckets 2% wide: percentiles over a whole soak without keeping every value. */
const STEP = Math.log(1.02);

export class Histogram {
  private readonly buckets = new Map<number, number>();
  count = 0;

  add(ms: number): void {
    const bucket = Math.max(0, Math.ceil(Math.log(ms * 1000 + 1) / STEP));
    this.buckets.set(bucket, (this.buckets.get(bucket) ?? 0) + 1);
    this.count++;
  }

  /** Nearest rank, in ms: the upper edge of the bucket holding it (at most 2% above the true value). */
  percentile(p: number): number {
    if (this.count === 0) return Number.NaN;
    const rank = Math.max(1, Math.ceil((p / 100) * this.count));
    let seen = 0;
    for (const bucket of [...this.buckets.keys()].sort((a, b) => a - b)) {
      seen += this.buckets.get(bucket)!;
      if (seen >= rank) return (Math.exp(bucket * STEP) - 1) / 1000;
    }
    return Number.NaN;
  }
}
