/**
 * The exports one process streams at once, in all and per key. An export is long (a 100,000-row CSV is
 * seconds of pages) and costs the process CPU and memory for all that time: one key's many exports,
 * or many keys' together, must not take what the other requests need. A slot is taken before the first
 * page is read and given back when the response ends, however it ends.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { ApiError } from '../lib/errors.js';
import { type Lease, takeExportLease } from './exportLeases.js';

/** Seconds a refused export is told to wait before asking again (an export runs for seconds to minutes). */
const RETRY_AFTER_SECONDS = 5;

export class ExportSlots {
  private running = 0;
  private readonly byKey = new Map<string, number>();
  /** The slices of every export of the process, in turn (`loopShare`). */
  private turns: Promise<unknown> = Promise.resolve();

  /**
   * `loopShare`: the part of the event loop's time the exports of the process take together. An export
   * is CPU work that is always ready (shaping rows, CSV text), and a public request spans several turns
   * of the loop (its read, the store's answer, the write): two exports yielding after every slice raised
   * the public p50 from 3.5 to 44 ms. So their slices run one at a time, each followed by a pause of
   * (1 / loopShare − 1) times its length (0.1: nine times), whoever else is there; measured against a
   * pause only when other requests had used the loop meanwhile, the fixed one kept the public p99 lower
   * (bench:fairness, RESULTS.md).
   */
  constructor(
    private readonly perProcess: number,
    private readonly perKey: number,
    private readonly loopShare = 1,
    /** The replicas' Redis (REDIS_URL) and its key prefix: a key's limit holds across them. */
    private readonly shared?: { redis: Redis; prefix: string },
  ) {}

  get size(): number {
    return this.running;
  }

  /**
   * Takes a slot for `keyId`, or throws the refusal: 429 for the key's own limit (across the replicas
   * on a shared Redis: exportLeases.ts), 503 for this process's.
   */
  async take(keyId: string): Promise<() => void> {
    const shared = this.shared;
    if (this.running >= this.perProcess) {
      throw new ApiError(
        'UPSTREAM_UNAVAILABLE',
        'This server runs as many exports as it allows; retry shortly.',
        {
          retryAfter: RETRY_AFTER_SECONDS,
        },
      );
    }
    const held = this.byKey.get(keyId) ?? 0;
    // Counted here first: two exports of a key starting at once on this replica cannot both pass.
    if (held >= this.perKey) throw this.keyRefusal();
    this.running += 1;
    this.byKey.set(keyId, held + 1);
    let given = false;
    let lease: Lease | null | undefined;
    const release = () => {
      if (given) return;
      given = true;
      lease?.release();
      this.running -= 1;
      const left = (this.byKey.get(keyId) ?? 1) - 1;
      if (left > 0) this.byKey.set(keyId, left);
      else this.byKey.delete(keyId);
    };
    if (shared) {
      lease = await takeExportLease(shared.redis, shared.prefix, keyId, this.perKey);
      if (lease === null) {
        release();
        throw this.keyRefusal();
      }
    }
    return release;
  }

  private keyRefusal(): ApiError {
    return new ApiError(
      'RATE_LIMITED',
      `At most ${this.perKey} exports of one key run at once; retry when one has ended.`,
      { retryAfter: RETRY_AFTER_SECONDS },
    );
  }

  /** Runs one slice of an export's work in its turn, then keeps the loop free for the others a while. */
  slice<T>(work: () => T): Promise<T> {
    const turn = this.turns.then(async () => {
      const started = performance.now();
      const result = work();
      const spent = performance.now() - started;
      if (this.loopShare < 1) await delay(spent * (1 / this.loopShare - 1));
      return result;
    });
    this.turns = turn.catch(() => {});
    return turn;
  }
}
