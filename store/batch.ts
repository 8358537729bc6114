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
 * Under load an idle batcher waits for company (`GATHER_MS`). When the process is busy (its event loop
 * over half of the time, `loopBusy`) and requests of the shape have been arriving less than a timer's
 * tick apart on average, the first request to find the batcher idle waits one tick for the next ones
 * before its statement runs. Requests paced apart (a steady rate under the closed-loop peak) otherwise
 * find it idle one by one, and each pays the round trip and the wake-ups of two processes alone: at half
 * of its peak the 1M list's gateway was 73-78% busy without the wait and 64-69% with it, for about a
 * millisecond more at the median (bench:tail, RESULTS.md, sixteenth pass). An idle process, or a request
 * that arrives alone (the mean gap over a tick), runs at once as before: nobody waits for company that is
 * not coming, or while there is time to spare.
 *
 * One request can never fail another (issue 16): when a statement of several sets fails, its sets are
 * split in two halves, each run again on its own, and so on down to the set that fails, which fails alone
 * (one bad set among 64 costs about a dozen more statements; the others get their results). A failure
 * that no set escapes (`failsAll`: the store is unreachable) fails the whole batch at once.
 */
// Node's, for eventLoopUtilization (the clock is the global `performance.now()`).
import { performance as nodePerformance } from 'node:perf_hooks';
import { isApiError } from '../lib/errors.js';

/** What one parameter set of a batch got: its result or its own error. */
type Outcome<R> = { ok: true; value: R } | { ok: false; error: unknown };

/** The default `failsAll`: the store is unreachable (db.ts `storeError`), so every set would fail. */
const storeUnavailable = (error: unknown) => isApiError(error) && error.code === 'UPSTREAM_UNAVAILABLE';

/**
 * How long an idle batcher under load holds a request for others of its shape (ms): node's shortest
 * timer. Also the mean gap between requests under which it does (about one companion per wait).
 */
export const GATHER_MS = 1;
/** The most one gap adds to the mean (ms): a pause of any length ends the waits within a few requests. */
const GAP_CAP_MS = 8;
/** The share of the time the event loop must be busy (over the last `BUSY_SAMPLE_MS`) for a wait. */
const BUSY_SHARE = 0.5;
const BUSY_SAMPLE_MS = 100;

let busySample = nodePerformance.eventLoopUtilization();
let busySampledAt = performance.now();
let busyNow = false;

/** Whether this process's event loop was busy over half of the last ~100 ms (read at most that often). */
export function loopBusy(): boolean {
  const now = performance.now();
  if (now - busySampledAt >= BUSY_SAMPLE_MS) {
    const sample = nodePerformance.eventLoopUtilization();
    busyNow = nodePerformance.eventLoopUtilization(sample, busySample).utilization > BUSY_SHARE;
    busySample = sample;
    busySampledAt = now;
  }
  return busyNow;
}

export class ReadBatcher<P, R> {
  private queue: Array<{ key: string; params: P; resolve: (r: R) => void; reject: (e: unknown) => void }> =
    [];
  private running = false;
  /** The wait for company in progress (see GATHER_MS). */
  private gathering: NodeJS.Timeout | null = null;
  /** When the last request arrived, and the moving mean of the gaps between arrivals (ms, over ~8). */
  private lastArrival = Number.NEGATIVE_INFINITY;
  private meanGap = GAP_CAP_MS;

  constructor(
    /** Runs distinct parameter sets as one statement; returns one result per set, in order. */
    private readonly run: (params: P[]) => Promise<R[]>,
    /** Equal keys mean equal parameter sets (and so equal results). */
    private readonly keyOf: (params: P) => string,
    /** Most distinct parameter sets in one statement; the rest wait for the next batch. */
    private readonly maxBatch = 64,
    /** True for a failure of a statement that no subset of its sets would escape. */
    private readonly failsAll: (error: unknown) => boolean = storeUnavailable,
    /** Whether the process is busy enough to hold a request for company (see GATHER_MS). */
    private readonly underLoad: () => boolean = loopBusy,
  ) {}

  load(params: P): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ key: this.keyOf(params), params, resolve, reject });
      const now = performance.now();
      this.meanGap += (Math.min(now - this.lastArrival, GAP_CAP_MS) - this.meanGap) / 8;
      this.lastArrival = now;
      if (this.running) return; // it goes with the next batch, when this one is done
      if (this.gathering) {
        // A batch's worth waiting already: no reason to wait for the tick.
        if (this.queue.length >= this.maxBatch) this.flushGathered();
        return;
      }
      if (this.meanGap < GATHER_MS && this.underLoad())
        this.gathering = setTimeout(() => this.flushGathered(), GATHER_MS);
      // After the current callback: the requests loaded in the same callback join one batch.
      else process.nextTick(() => this.flush());
    });
  }

  private flushGathered(): void {
    if (this.gathering) clearTimeout(this.gathering);
    this.gathering = null;
    this.flush();
  }

  private flush(): void {
    if (this.running || this.gathering || this.queue.length === 0) return;
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
