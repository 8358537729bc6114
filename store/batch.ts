/**
 * Group commit for hot reads. Requests for the same statement shape that arrive while that shape's
 * previous batch is still running wait for it, then go to Postgres together as ONE statement (the
 * caller's `run` passes the parameter sets in one statement); identical parameter sets in a batch share a
 * single result. Nothing is cached: every batch starts after each of its requests arrived, so an answer
 * is never older than its request. When the store is idle a request runs at once (a batch of one).
 *
 * The win is per-statement overhead: a round trip, a wake-up of a backend, the executor start and the
 * socket writes of node and Postgres are paid once per batch instead of once per request
 * (bench/catalogue.ts: the filtered list more than doubles its throughput on two cores).
 *
 * One request can never fail another: when a statement of several sets fails, its sets are
 * split in two halves, each run again on its own, and so on down to the set that fails, which fails alone
 * (one bad set among 64 costs about a dozen more statements; the others get their results). A failure
 * that no set escapes (`failsAll`: the store is unreachable) fails the whole batch at once.
 */
import { isApiError } from '../lib/errors.js';

/** What one parameter set of a batch got: its result or its own error. */
type Outcome<R> = { ok: true; value: R } | { ok: false; error: unknown };

/** The default `failsAll`: the store is unreachable (db.ts `storeError`), so every set would fail. */
const storeUnavailable = (error: unknown) => isApiError(error) && error.code === 'UPSTREAM_UNAVAILABLE';

export class ReadBatcher<P, R> {
  private queue: Array<{ key: string; params: P; resolve: (r: R) => void; reject: (e: unknown) => void }> =
    [];
  private running = false;

  constructor(
    /** Runs distinct parameter sets as one statement; returns one result per set, in order. */
    private readonly run: (params: P[]) => Promise<R[]>,
    /** Equal keys mean equal parameter sets (and so equal results). */
    private readonly keyOf: (params: P) => string,
    /** Most distinct parameter sets in one statement; the rest wait for the next batch. */
    private readonly maxBatch = 64,
    /** True for a failure of a statement that no subset of its sets would escape. */
    private readonly failsAll: (error: unknown) => boolean = storeUnavailable,
  ) {}

  load(params: P): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ key: this.keyOf(params), params, resolve, reject });
      // After the current callback: requests parsed in the same I/O phase join one batch.
      if (!this.running) process.nextTick(() => this.flush());
    });
  }

  private flush(): void {
    if (this.running || this.queue.length === 0) return;
    const index = new Map<string, number>();
    const distinct: P[] = [];
    let taken = 0;
    for (const item of this.queue) {
      if (!index.has(item.key)) {
        if (distinct.length === this.maxBatch) break;
        index.set(item.key, distinct.length);
        distinct.push(item.params);
      }
      taken++;
    }
    const batch = this.queue.slice(0, taken);
    this.queue = this.queue.slice(taken);
    this.running = true;
    this.attempt(distinct)
      .then((outcomes) => {
        for (const item of batch) {
          const outcome = outcomes[index.get(item.key)!]!;
          if (outcome.ok) item.resolve(outcome.value);
          else item.reject(outcome.error);
        }
      })
      .finally(() => {
        this.running = false;
        this.flush();
      });
  }

  /**
   * The outcome of each set: one statement for all of them (the normal path); after its failure,
   * each half again, in turn (never more than the batch's one connection at a time), down to the
   * failing set.
   */
  private async attempt(sets: P[]): Promise<Outcome<R>[]> {
    try {
      const results = await this.run(sets);
      return sets.map((_, i) => ({ ok: true, value: results[i]! }));
    } catch (error) {
      if (sets.length === 1 || this.failsAll(error)) return sets.map(() => ({ ok: false, error }));
      const half = Math.ceil(sets.length / 2);
      const first = await this.attempt(sets.slice(0, half));
      return [...first, ...(await this.attempt(sets.slice(half)))];
    }
  }
}
