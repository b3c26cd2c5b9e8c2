/** What the clients did: counts and latencies by kind, per window and in all, and every error with its text. */
import { percentile } from '../bench/measure.js';
import { Histogram } from './histogram.js';
import { KINDS, type Kind } from './ops.js';

export interface Window {
  ops: Record<Kind, number>;
  p50Ms: number;
  p99Ms: number;
  /** Errors the clients saw in the window (the server's own are added by the caller). */
  errors: number;
}

/** Errors of one shape (their text with the numbers taken out): how many, and the first one's text. */
export interface ErrorGroup {
  count: number;
  example: string;
}

/** Shapes kept; past this, more count under one key. */
const MAX_SHAPES = 100;

const zeros = () => Object.fromEntries(KINDS.map((k) => [k, 0])) as Record<Kind, number>;

export class Recorder {
  readonly latency = Object.fromEntries(KINDS.map((k) => [k, new Histogram()])) as Record<Kind, Histogram>;
  readonly overall = new Histogram();
  readonly errorShapes = new Map<string, ErrorGroup>();
  errors = 0;
  private ops = zeros();
  private latencies: number[] = [];
  private windowErrors = 0;

  op(kind: Kind, ms: number): void {
    this.ops[kind]++;
    this.latencies.push(ms);
    this.latency[kind].add(ms);
    this.overall.add(ms);
  }

  error(text: string): void {
    this.errors++;
    this.windowErrors++;
    const shape = text.replace(/\d+/g, '#');
    const key = this.errorShapes.has(shape) || this.errorShapes.size < MAX_SHAPES ? shape : '(more shapes)';
    const group = this.errorShapes.get(key) ?? { count: 0, example: text };
    group.count++;
    this.errorShapes.set(key, group);
  }

  /** The window since the last call; the next one starts now. */
  takeWindow(): Window {
    const sorted = Float64Array.from(this.latencies).sort();
    const window = { ops: this.ops, p50Ms: percentile(sorted, 50), p99Ms: percentile(sorted, 99), errors: this.windowErrors };
    this.ops = zeros();
    this.latencies = [];
    this.windowErrors = 0;
    return window;
  }
}
