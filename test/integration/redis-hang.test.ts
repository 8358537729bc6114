import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GuardedRedis } from '../../lib/redisBreaker.js';
import { createDb } from '../../store/db.js';
import { migrate } from '../../store/migrate.js';
import { writeRollup } from '../../store/rollups.js';
import { fixtureChains } from '../helpers/catalogue.js';
import { eventually, type LoadRequest, loadLoop, type Sample, send, tally } from '../helpers/load.js';
import { testPort } from '../helpers/ports.js';
import { createTestDatabase, MACHINE_REDIS } from '../helpers/postgres.js';
import { type RedisServer, startRedisServer } from '../helpers/redis.js';
import { startTestService, type TestService } from '../helpers/service.js';

/**
 * A hung Redis (SIGSTOP: the socket stays open, no answer comes) must not hang the service: every
 * command is bounded (REDIS_COMMAND_TIMEOUT_MS), the breaker then stops asking Redis, rate limits count
 * per process, caches miss, and /readyz shows the degradation. SIGCONT: the service uses Redis again.
 *
 * The read load goes to two services of this process at once: `svc` on a Redis of the
 * test's own, which hangs, and `control` on the machine's Redis, which does not. Both see the same
 * machine at the same moment, so the control's p99 says what the machine allows: the hung service's p99
 * must be under 100 ms, or on a machine too busy for that, within 1.5 × the control's p99 + 50 ms.
 */

const REDIS_PORT = testPort(19750);
/** The client gives up after this: without the fix every bucketed request waited for Redis. */
const CLIENT_TIMEOUT_MS = 3000;
const prefix = `hang:${randomBytes(4).toString('hex')}:`;
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let redis: RedisServer;
let probe: Redis;
let svc: TestService;
let control: TestService;
let key: string;

beforeAll(async () => {
  database = await createTestDatabase();
  const db = createDb(database.url, 1);
  await migrate(db);
  await writeRollup(db, {
    totals: {
      strategies: 0,
      makers: 0,
      pairs: 0,
      chains: 2,
      volume_1d_usd: 0,
      volume_7d_usd: 0,
      volume_30d_usd: 0,
      last_activity: null,
    },
    chains: [],
    pairs: [],
  });
  await db.end();
  redis = await startRedisServer(REDIS_PORT);
  probe = new Redis(redis.url, { maxRetriesPerRequest: 1 });
  probe.on('error', () => {});
  svc = await startTestService({
    chains: fixtureChains(),
    env: {
      DATABASE_URL: database.url,
      REDIS_URL: redis.url,
      REDIS_PREFIX: prefix,
      TRUST_PROXY: '1',
      INDEXER: 'off',
    },
  });
  control = await startTestService({
    chains: fixtureChains(),
    env: { DATABASE_URL: database.url, REDIS_URL: MACHINE_REDIS, TRUST_PROXY: '1', INDEXER: 'off' },
  });
  ({ key } = await svc.createKey({ environment: 'LIVE' }));
}, 60_000);

afterAll(async () => {
  redis?.resume();
  await svc?.stop();
  await control?.stop();
  probe?.disconnect();
  await redis?.stop();
  await database?.drop();
});

const READ_PATHS = ['/api/stats', '/api/chains', '/api/strategies?chain=base&pair=USDC/USDT'];

/** Read i of the load: the three paths in turn, from 60 clients in turn (no bucket gets near its limit). */
function read(i: number, client = `198.51.100.${i % 60}`): LoadRequest {
  const path = READ_PATHS[i % READ_PATHS.length]!;
  return { name: path, path, init: { headers: { 'x-forwarded-for': client } } };
}

/**
 * Up to `count` reads from each service, for `ms` at most: a few clients each, each sending its next
 * read when the last one is answered, so the load never asks more than the machine can give (an offered
 * rate above it would measure the queue, not the service).
 */
async function reads(services: TestService[], count: number, ms: number): Promise<Sample[][]> {
  return Promise.all(
    services.map((service) => {
      let sent = 0;
      return loadLoop(service.url, {
        durationMs: ms,
        concurrency: 3,
        timeoutMs: CLIENT_TIMEOUT_MS,
        next: () => read(sent++),
        until: () => sent >= count,
      });
    }),
  );
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

interface ReadyBody {
  status: string;
  degraded?: string[];
}

async function readiness(of: TestService = svc): Promise<{ status: number; body: ReadyBody; ms: number }> {
  const started = performance.now();
  const res = await fetch(`${of.url}/readyz`, { signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS) });
  const body = (await res.json()) as ReadyBody;
  return { status: res.status, body, ms: performance.now() - started };
}

function prepare(): LoadRequest {
  // A deposit the chain does not list: refused after the key's bucket, with no RPC call.
  return {
    name: 'prepare',
    path: '/v1/positions',
    init: {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({
        chain: 'base',
        wallet: '0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc',
        deposits: [
          { symbol: 'NOPE', amount: '1000000' },
          { symbol: 'USDT', amount: '2000000' },
        ],
      }),
    },
  };
}

function graphql(): LoadRequest {
  return {
    name: 'graphql',
    path: '/graphql',
    init: {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer test-internal-token-0123456789' },
      body: JSON.stringify({ query: '{ stats { totals { strategies } } }' }),
    },
  };
}

describe('a hung Redis', () => {
  it('keeps read p99 under 100 ms (or near a healthy control on a busy machine), /graphql and POST /v1/positions answering, /readyz telling; SIGCONT: back on Redis', async () => {
    // Warm up: caches filled, counters in Redis.
    for (let i = 0; i < 6; i++)
      expect((await send(svc.url, read(i, '192.0.2.1'), CLIENT_TIMEOUT_MS)).status).toBe(200);
    expect(await probe.get(`${prefix}rl:chains:192.0.2.1`)).toBe('2');
    expect((await send(svc.url, graphql(), CLIENT_TIMEOUT_MS)).status).toBe(200);
    const before = await readiness();
    expect(before.status).toBe(200);
    // Its fixture chains are never indexed here (no indexer): readiness names them too; Redis is what this test reads.
    expect(before.body.degraded ?? []).not.toContain('redis');

    for (let i = 0; i < 6; i++)
      expect((await send(control.url, read(i, '192.0.2.1'), CLIENT_TIMEOUT_MS)).status).toBe(200);

    redis.hang();
    const [samples, controlSamples] = (await reads([svc, control], 300, 6000)) as [Sample[], Sample[]];
    const summary = (of: Sample[]) => {
      const ms = of.map((s) => s.ms);
      return { p50: percentile(ms, 50), p99: percentile(ms, 99), max: Math.max(...ms) };
    };
    const hung = summary(samples);
    const healthy = summary(controlSamples);
    console.log(
      `redis-hang: ${samples.length} reads while Redis hangs: ${JSON.stringify(hung)} ms; the same load on a healthy Redis meanwhile: ${JSON.stringify(healthy)} ms; ${JSON.stringify(tally(samples))}`,
    );
    for (const of of [samples, controlSamples])
      expect(
        of.filter((s) => s.status !== 200),
        JSON.stringify(tally(of)),
      ).toEqual([]);
    expect(samples.every((s) => s.rateLimit)).toBe(true);
    expect(samples.length).toBeGreaterThanOrEqual(60);
    expect(hung.p99).toBeLessThan(Math.max(100, 1.5 * healthy.p99 + 50));

    // The rate limits still count, per process: the 21st strategies read of one client is refused.
    const limited: Sample[] = [];
    for (let i = 0; i < 21; i++) limited.push(await send(svc.url, read(2, '192.0.2.9'), CLIENT_TIMEOUT_MS));
    expect(limited.slice(0, 20).map((s) => s.status)).toEqual(Array(20).fill(200));
    expect(limited[20]!.status).toBe(429);

    // /graphql (its response cache is in Redis) and a prepare (its bucket is in Redis) answer; the same
    // requests to the control at the same moment say what the machine allows now.
    const [others, controls] = [[] as Sample[], [] as Sample[]];
    for (const request of [graphql, prepare]) {
      const [one, other] = await Promise.all([
        send(svc.url, request(), CLIENT_TIMEOUT_MS),
        send(control.url, request(), CLIENT_TIMEOUT_MS),
      ]);
      others.push(one);
      controls.push(other);
    }
    console.log(
      `redis-hang: graphql ${others[0]!.status} in ${others[0]!.ms} ms (control ${controls[0]!.ms}), prepare ${others[1]!.status} in ${others[1]!.ms} ms (control ${controls[1]!.ms})`,
    );
    expect(others[0]!.status, JSON.stringify(others[0]!.body)).toBe(200);
    expect(others[1]!.status, JSON.stringify(others[1]!.body)).toBeGreaterThanOrEqual(400);
    expect(others[1]!.status, JSON.stringify(others[1]!.body)).toBeLessThan(500);
    // Without the bound on Redis commands they would wait for the client's timeout (CLIENT_TIMEOUT_MS, 3 s,
    // an answer of status 0 above); with it they take about what the control takes on a healthy Redis.
    others.forEach((s, i) => {
      expect(s.ms).toBeLessThan(Math.max(2000, 1.5 * controls[i]!.ms + 500));
    });

    // Liveness is the process; readiness stays 200 (every replica shares this Redis) and names it.
    expect((await svc.get('/healthz')).status).toBe(200);
    const [during, controlReady] = await Promise.all([readiness(), readiness(control)]);
    expect(during.status).toBe(200);
    expect(during.body.degraded).toContain('redis');
    expect(during.ms).toBeLessThan(Math.max(2000, 1.5 * controlReady.ms + 500));

    redis.resume();
    const backMs = await eventually(
      'readiness no longer degraded',
      async () => !((await readiness()).body.degraded ?? []).includes('redis'),
      10_000,
      50,
    );
    console.log(`redis-hang: back on Redis ${backMs} ms after SIGCONT`);
    const after = await send(svc.url, read(1, '192.0.2.2'), CLIENT_TIMEOUT_MS);
    expect(after.status).toBe(200);
    expect(await probe.get(`${prefix}rl:chains:192.0.2.2`)).toBe('1');
  }, 60_000);

  it('takes an error reply for an answer: a command Redis refuses does not open the breaker', async () => {
    const client = svc.services.redis;
    expect(client).toBeInstanceOf(GuardedRedis);
    const guarded = client as GuardedRedis;
    for (let i = 0; i < 5; i++)
      await expect(guarded.call('nosuchcommand')).rejects.toThrow(/unknown command/i);
    expect(guarded.breaker.state).toBe('closed');
    // A duplicate (another connection, e.g. with a key prefix) is guarded too.
    const duplicate = guarded.duplicate({ keyPrefix: `${prefix}dup:` });
    try {
      expect(duplicate).toBeInstanceOf(GuardedRedis);
      duplicate.on('error', () => {});
      // No offline queue (the service's options): it takes commands once connected.
      await new Promise((resolve) => duplicate.once('ready', resolve));
      await duplicate.set('k', 'v');
      expect(await probe.get(`${prefix}dup:k`)).toBe('v');
    } finally {
      duplicate.disconnect();
    }
  });
});
