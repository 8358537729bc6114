import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { type PartStatus, partsDown, supervise } from '../../lib/supervisor.js';

/** A part that ends when `end()` is called; `failNext` makes the next starts throw. */
function fakeParts() {
  let counter = 0;
  const parts: Array<{ id: number; end: (why: string) => void; stopped: boolean }> = [];
  const state = { failNext: 0, startedAt: [] as number[] };
  const start = async () => {
    state.startedAt.push(Date.now());
    if (state.failNext > 0) {
      state.failNext--;
      throw new Error('port taken');
    }
    let end!: (why: string) => void;
    const exited = new Promise<string>((resolve) => {
      end = resolve;
    });
    const part = { id: ++counter, end, stopped: false, exited };
    parts.push(part);
    return part;
  };
  return { parts, state, start };
}

function logs() {
  const lines: Array<Record<string, unknown>> = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  return { lines, logger };
}

// Waits for the state itself; the deadline only ends a test that would otherwise hang, so it is far
// beyond any delay here even on a starved box.
const until = async (check: () => boolean, ms = 60_000) => {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`no such state within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 5));
  }
};

describe('supervise', () => {
  it('restarts a part that ends, with growing delays, and reports its state meanwhile', async () => {
    const { parts, state, start } = fakeParts();
    const { lines, logger } = logs();
    const changes: PartStatus[] = [];
    const supervised = await supervise({
      name: 'thing',
      logger,
      start,
      exited: (p) => p.exited,
      stop: async (p) => {
        p.stopped = true;
        p.end('stopped');
      },
      initialDelayMs: 20,
      onChange: (s) => changes.push(s),
    });
    expect(supervised.status().state).toBe('up');
    state.failNext = 2;
    parts[0]!.end('killed');
    await until(() => supervised.status().state === 'up' && parts.length === 2);
    // Attempt 1 after 20 ms, 2 after 40, 3 after 80: each waits longer than the one before.
    const gaps = state.startedAt.slice(1).map((t, i) => t - (state.startedAt[i] ?? t));
    expect(gaps.slice(1).every((gap, i) => gap >= 2 * 20 * 2 ** i - 5)).toBe(true);
    expect(changes.map((c) => c.state)).toEqual([
      'down',
      'restarting',
      'down',
      'restarting',
      'down',
      'restarting',
      'up',
    ]);
    expect(changes[0]!.lastError).toBe('killed');
    expect(changes[2]!.lastError).toBe('port taken');
    expect(supervised.status().restarts).toBe(1);
    expect(lines.map((l) => l.msg)).toContain('supervised part back up');
    expect(partsDown([supervised.status()])).toBeNull();
    await supervised.stop();
  });

  it('gives up after maxAttempts in a row, and says so', async () => {
    const { parts, state, start } = fakeParts();
    const { lines, logger } = logs();
    const supervised = await supervise({
      name: 'thing',
      logger,
      start,
      exited: (p) => p.exited,
      stop: async () => {},
      initialDelayMs: 1,
      maxAttempts: 3,
    });
    state.failNext = 10;
    parts[0]!.end('killed');
    await until(() => supervised.status().state === 'failed');
    expect(state.startedAt).toHaveLength(4);
    expect(lines.filter((l) => l.msg === 'supervised part given up')).toHaveLength(1);
    expect(partsDown([supervised.status()])).toMatch(/^thing failed since /);
  });

  it('a part stopped on purpose, or ending while the supervisor stops, is not restarted', async () => {
    const { parts, state, start } = fakeParts();
    const { logger } = logs();
    const supervised = await supervise({
      name: 'thing',
      logger,
      start,
      exited: (p) => p.exited,
      stop: async (p) => {
        p.stopped = true;
        p.end('stopped');
      },
      initialDelayMs: 10,
    });
    // A control with the same delay whose part ends after the stop: once it is restarted, a restart
    // of the stopped part (its timer set earlier) would have come too.
    const control = fakeParts();
    const controlled = await supervise({
      name: 'control',
      logger,
      start: control.start,
      exited: (p) => p.exited,
      stop: async () => {},
      initialDelayMs: 10,
    });
    await supervised.stop();
    expect(parts[0]!.stopped).toBe(true);
    control.parts[0]!.end('killed');
    await until(() => control.state.startedAt.length === 2);
    expect(state.startedAt).toHaveLength(1);
    expect(supervised.status().state).toBe('stopped');
    await controlled.stop();

    // Stopped while waiting for the next attempt: the attempt never comes.
    const again = fakeParts();
    const second = await supervise({
      name: 'other',
      logger,
      start: again.start,
      exited: (p) => p.exited,
      stop: async () => {},
      initialDelayMs: 100,
    });
    const control2 = fakeParts();
    const controlled2 = await supervise({
      name: 'control',
      logger,
      start: control2.start,
      exited: (p) => p.exited,
      stop: async () => {},
      initialDelayMs: 100,
    });
    again.parts[0]!.end('killed');
    await until(() => second.status().state === 'down');
    // The control's attempt is due after the stopped one's would have been.
    control2.parts[0]!.end('killed');
    await until(() => controlled2.status().state === 'down');
    await second.stop();
    await until(() => control2.state.startedAt.length === 2);
    expect(again.state.startedAt).toHaveLength(1);
    await controlled2.stop();
  });
});
