/**
 * rest/windowCounter.ts against the machine's Redis: the counts of one event-loop turn go as one script
 * call, every count is exact (two processes' counters on one key share the window), the keys are the
 * ones rate-limiter-flexible reads, and a Redis that cannot answer rejects every count of its batch.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type WindowCount, WindowCounter } from '../../rest/windowCounter.js';
import { MACHINE_REDIS } from '../helpers/postgres.js';

const prefix = `test:wc:${randomBytes(4).toString('hex')}:`;
const clients: Redis[] = [];
const client = () => {
  const redis = new Redis(MACHINE_REDIS, { maxRetriesPerRequest: 1 });
  clients.push(redis);
  return redis;
};
let a: Redis;
let b: Redis;

/**
 * The commands clients sent that name `key` (Redis MONITOR, the script's own commands left out) while
 * `run` ran. MONITOR reports commands in the order Redis ran them: a marker command sent after `run`
 * and seen on the monitor means every command of `run` was seen before it.
 */
async function commandsNaming(key: string, run: () => Promise<unknown>): Promise<string[]> {
  const monitor = await client().monitor();
  const marker = `${key}:marker`;
  const commands: string[] = [];
  let markerSeen = false;
  monitor.on('monitor', (_time: string, args: string[], source: string) => {
    if (args.includes(marker)) markerSeen = true;
    else if (source !== 'lua' && args.includes(key)) commands.push(String(args[0]).toLowerCase());
  });
  await run();
  await a.get(marker);
  for (let waited = 0; !markerSeen && waited < 10_000; waited += 10)
    await new Promise((r) => setTimeout(r, 10));
  monitor.disconnect();
  expect(markerSeen).toBe(true);
  return commands;
}

beforeAll(async () => {
  a = client();
  b = client();
  await Promise.all([a.ping(), b.ping()]);
});
afterAll(async () => {
  const keys = await a.keys(`${prefix}*`);
  if (keys.length > 0) await a.del(...keys);
  for (const redis of clients) redis.disconnect();
});

describe('WindowCounter', () => {
  it('counts the increments of one turn in one script call, each with its own consecutive value', async () => {
    const counter = new WindowCounter(a, 60);
    await counter.increment(`${prefix}warm`); // the script loaded, its SHA known
    const key = `${prefix}one-turn`;
    let counts: WindowCount[] = [];
    const commands = await commandsNaming(key, async () => {
      counts = await Promise.all(Array.from({ length: 50 }, () => counter.increment(key)));
    });
    expect(commands).toEqual(['evalsha']);
    expect(counts.map((c) => c.count).sort((x, y) => x - y)).toEqual(
      Array.from({ length: 50 }, (_, i) => i + 1),
    );
    for (const c of counts) expect(c.msLeft).toBeGreaterThan(55_000);
    expect(await a.pttl(key)).toBeGreaterThan(55_000);
  });

  it('shares one window between two processes exactly, and is read by rate-limiter-flexible', async () => {
    const key = 'shared';
    const [one, two] = [new WindowCounter(a, 60), new WindowCounter(b, 60)];
    const counts = await Promise.all(
      Array.from({ length: 70 }, (_, i) => (i % 2 === 0 ? one : two).increment(`${prefix}rl:stats:${key}`)),
    );
    expect(counts.map((c) => c.count).sort((x, y) => x - y)).toEqual(
      Array.from({ length: 70 }, (_, i) => i + 1),
    );
    const reader = new RateLimiterRedis({
      storeClient: a,
      keyPrefix: `${prefix}rl:stats`,
      points: 60,
      duration: 60,
    });
    const res = await reader.get(key);
    expect(res?.consumedPoints).toBe(70);
    expect(res?.remainingPoints).toBe(0);
  });

  it('reads a window without counting, in the same script call as the counts of that turn', async () => {
    const counter = new WindowCounter(a, 60);
    const key = `${prefix}read`;
    expect((await counter.read(key)).count).toBe(0);
    let results: WindowCount[] = [];
    const commands = await commandsNaming(key, async () => {
      results = await Promise.all([counter.increment(key), counter.read(key), counter.increment(key)]);
    });
    expect(commands).toEqual(['evalsha']);
    const [first, read, second] = results as [WindowCount, WindowCount, WindowCount];
    // In the batch's order: the read sees the first count only, and does not count itself.
    expect([first.count, read.count, second.count]).toEqual([1, 1, 2]);
    expect(read.msLeft).toBeGreaterThan(55_000);
    expect((await counter.read(key)).count).toBe(2);
    expect(await a.get(key)).toBe('2');
  });

  it('starts a new window when the last one expired', async () => {
    const counter = new WindowCounter(a, 1);
    const key = `${prefix}short`;
    expect((await counter.increment(key)).count).toBe(1);
    expect((await counter.increment(key)).count).toBe(2);
    // The window is over when Redis has expired its key (the event itself, not a guess of its length).
    await expect.poll(() => a.exists(key), { timeout: 20_000, interval: 20 }).toBe(0);
    const next = await counter.increment(key);
    expect(next.count).toBe(1);
    // A new window of the counter's length (1 s), not what was left of the old one: the value is Redis's
    // TTL, not a time measured here.
    expect(next.msLeft).toBeGreaterThan(0);
    expect(next.msLeft).toBeLessThanOrEqual(1_000);
  });

  it('rejects every count of a batch Redis cannot take', async () => {
    const gone = client();
    await gone.ping();
    const counter = new WindowCounter(gone, 60);
    gone.disconnect();
    const outcomes = await Promise.allSettled([
      counter.increment(`${prefix}x`),
      counter.increment(`${prefix}y`),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected']);
  });
});
