/** One simulated client: connects, loops over the operation mix until told to stop, and leaves properly. */
import { setTimeout as sleep } from 'node:timers/promises';
import { within } from './check.js';
import { type Kind, OPS, vanishMidCall, WEIGHTS } from './ops.js';
import { Random } from './random.js';
import type { Recorder } from './recorder.js';
import { MAX_THINK_MS, OP_TIMEOUT_MS } from './settings.js';
import type { Fail, Transport } from './transport.js';

export type Connect = (fail: Fail) => Promise<Transport>;

export class SoakClient {
  /** Notifications sent in a session and seen taken in: the server must have counted as many. */
  ticks = 0;
  private readonly rng: Random;
  private readonly fail: Fail;

  constructor(
    /** `http-3`, `ws-12`, `stateless-1`: what kind of client, and which. */
    readonly tag: string,
    private readonly connect: Connect,
    seed: number,
    private readonly recorder: Recorder,
  ) {
    this.rng = new Random(seed);
    this.fail = (message) => recorder.error(`${this.kind} ${message}`);
  }

  /** The kind of client, which error texts name (the client itself would make every text distinct). */
  private get kind(): string {
    return this.tag.replace(/-\d+$/, '');
  }

  async run(stop: AbortSignal): Promise<void> {
    let transport: Transport | undefined;
    while (!stop.aborted) {
      try {
        transport ??= await within(OP_TIMEOUT_MS, 'connecting', this.connect(this.fail));
      } catch (err) {
        this.fail(`connect: ${(err as Error).message}`);
        await sleep(1000);
        continue;
      }
      const kind = this.rng.weighted(WEIGHTS);
      const started = performance.now();
      try {
        transport = await within(OP_TIMEOUT_MS, kind, this.perform(kind, transport));
        this.recorder.op(kind, performance.now() - started);
      } catch (err) {
        this.fail(`${kind}: ${(err as Error).message}`);
        // The session's state is unknown after a failure: leave it, and start a new one.
        transport.drop();
        transport = undefined;
      }
      await sleep(this.rng.int(MAX_THINK_MS + 1));
    }
    try {
      await within(OP_TIMEOUT_MS, 'closing', transport?.close() ?? Promise.resolve());
    } catch (err) {
      this.fail(`close: ${(err as Error).message}`);
    }
  }

  /** One operation; resolves with the connection to go on with (a new one after vanishing). */
  private async perform(kind: Kind, transport: Transport): Promise<Transport> {
    if (kind === 'abrupt') {
      await vanishMidCall(transport, this.rng);
      return this.connect(this.fail);
    }
    await OPS[kind](transport, this.rng, this.tag);
    if (kind === 'notify' && transport.era === 'legacy') this.ticks++;
    return transport;
  }
}
