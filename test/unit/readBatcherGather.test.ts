/**
 * When ReadBatcher (store/batch.ts) waits for company and when it does not: a schedule of arrivals in
 * fractions of a millisecond, which cannot be arranged against a real store (the batching of real
 * statements, and their failures, are in test/integration/read-batcher.test.ts). The statements here
 * answer at once, so every grouping seen is the batcher's own choice; whether the process counts as busy
 * is given (in the service, its event loop's utilization).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { GATHER_MS, loopBusy, ReadBatcher } from '../../store/batch.js';

function recordingBatcher(maxBatch = 64, busy = true) {
  const statements: number[][] = [];
  const batcher = new ReadBatcher<number, number>(
    async (sets) => {
      statements.push(sets);
      return sets.map((n) => n * 10);
    },
    String,
    maxBatch,
    undefined,
    () => busy,
  );
  return { batcher, statements };
}

/** Loads `count` requests `gapMs` apart on the fake clock; their results in order. */
async function stream(batcher: ReadBatcher<number, number>, from: number, count: number, gapMs: number) {
  const pending: Promise<number>[] = [];
  for (let i = 0; i < count; i++) {
    pending.push(batcher.load(from + i));
    await vi.advanceTimersByTimeAsync(gapMs);
  }
  await vi.advanceTimersByTimeAsync(GATHER_MS * 2);
  return Promise.all(pending);
}

/** Whether `promise` has settled without any timer firing. */
async function settledAtOnce(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void promise.then(() => {
    settled = true;
  });
  for (let i = 0; i < 5; i++) await new Promise<void>((resolve) => process.nextTick(resolve));
  return settled;
}

describe('loopBusy', () => {
  it('reads a loop kept busy as busy, and an idle one as idle', async () => {
    const spinUntil = performance.now() + 250;
    while (performance.now() < spinUntil) {
      // the event loop held, as by requests back to back
    }
    expect(loopBusy()).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(loopBusy()).toBe(false);
  });
});

describe('ReadBatcher under a paced load', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('runs a request that arrives alone at once, without waiting for a timer', async () => {
    const { batcher, statements } = recordingBatcher();
    expect(await settledAtOnce(batcher.load(7))).toBe(true);
    expect(statements).toEqual([[7]]);
  });

  it('groups requests that arrive a fraction of a tick apart, each with its own result', async () => {
    const { batcher, statements } = recordingBatcher();
    const results = await stream(batcher, 0, 200, 0.25);
    expect(results).toEqual(Array.from({ length: 200 }, (_, i) => i * 10));
    // Every request is in exactly one statement, in the order they came.
    expect(statements.flat()).toEqual(Array.from({ length: 200 }, (_, i) => i));
    // Once the rate is seen (a mean over about eight gaps), about four requests share each statement;
    // without the wait each would have found the batcher idle and run alone.
    const settled = statements.slice(statements.findIndex((s) => s.length > 1));
    expect(settled.length).toBeLessThan(200 / 3);
    expect(settled.every((s) => s.length >= 2)).toBe(true);
  });

  it('never holds a request while the process has time to spare', async () => {
    const { batcher, statements } = recordingBatcher(64, false);
    await stream(batcher, 0, 100, 0.25);
    expect(statements).toEqual(Array.from({ length: 100 }, (_, i) => [i]));
  });

  it('stops waiting after a pause: the next request runs at once', async () => {
    const { batcher, statements } = recordingBatcher();
    await stream(batcher, 0, 100, 0.25);
    await vi.advanceTimersByTimeAsync(50);
    const before = statements.length;
    expect(await settledAtOnce(batcher.load(1_000))).toBe(true);
    expect(statements.slice(before)).toEqual([[1_000]]);
  });

  it('does not hold a full batch for the rest of the wait', async () => {
    const { batcher, statements } = recordingBatcher(4);
    await stream(batcher, 0, 100, 0.25);
    const before = statements.length;
    const burst = [1_000, 1_001, 1_002, 1_003].map((n) => batcher.load(n));
    // The fourth distinct set fills the batch: it runs without the timer.
    expect(await settledAtOnce(Promise.all(burst))).toBe(true);
    expect(statements.slice(before)).toEqual([[1_000, 1_001, 1_002, 1_003]]);
  });
});
