/**
 * Faults under load: while a bounded loop of concurrent requests runs, a Redis, a Postgres
 * and one chain's RPC of the suite's own are stopped and started again under ONE running service.
 *   - every answer is an HTTP answer within the client's bound: 200, or a retryable 503/504 envelope
 *     (never a 500, never a hang), with X-Request-Id and the four RateLimit-* headers;
 *   - Redis down: rate limits fall back to per-process counters (headers, 200s, and still a 429 past
 *     the limit); when it returns, ioredis reconnects and the limiter and response cache write to it again;
 *   - Postgres down: 503 where the store is needed; every position stored before and during the
 *     outage is there afterwards;
 *   - RPC frozen (SIGSTOP): 504 UPSTREAM_TIMEOUT at RPC_TIMEOUT_MS (one timeout, not two); RPC killed and restarted on the
 *     same port (a new chain, re-seeded so the contracts are at the same addresses): 503 meanwhile, the
 *     other chain unaffected, then prepares answer again and the indexer follows the new chain.
 * Ports 19700-19705.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChainClient } from '../../chain/clients.js';
import { type Anvil, startAnvil } from '../../devnet/anvil.js';
import { DEVNET_CHAINS } from '../../devnet/chains.js';
import { type SeededChain, seedChain } from '../../devnet/seed.js';
import { BUCKET_LIMITS, WINDOW_SECONDS } from '../../lib/buckets.js';
import type { ChainConfig } from '../../lib/config.js';
import { createLogger } from '../../lib/logger.js';
import { responseCacheFor } from '../../rest/responseCache.js';
import { type EmbeddedDatabase, startEmbeddedPostgres } from '../../store/embedded.js';
import { eventually, type LoadRequest, loadLoop, type Sample, send, tally } from '../helpers/load.js';
import { testPort } from '../helpers/ports.js';
import { type RedisServer, startRedisServer } from '../helpers/redis.js';
import { startTestService, type TestService } from '../helpers/service.js';

const ANVIL_PORTS = { base: testPort(19700), arc: testPort(19701) } as const;
const PG_PORT = testPort(19703);
const REDIS_PORT = testPort(19704);
const SERVICE_PORT = testPort(19705);
const RPC_TIMEOUT_MS = 1500;
/**
 * Never a hang: every answer comes within a bound of what the service waits on at most (the RPC timeout,
 * 1.5 s here, and the pool's connection timeout, 2 s in store/db.ts). This bound stays because it is the
 * behaviour under test, relative to those timeouts with a factor a busy box cannot reach (a hang would
 * run to the client's timeout above it); the frozen RPC's 504s below show the timeout itself fired.
 */
const ANSWER_BOUND_MS = 10 * RPC_TIMEOUT_MS;
/** The load of a phase ends with the phase, and after 40 s at the latest. */
const LOAD = { durationMs: 40_000, concurrency: 4, timeoutMs: ANSWER_BOUND_MS + 5000 };
/** Answers of the load a phase waits for before its fault, during it and after its restore. */
const ANSWERS_BEFORE = 16;
/** What a control of the healthy service must have answered before the fault: one of each, at least. */
const CONTROL_KINDS = ['stats', 'badge', 'chains', 'strategies', 'prepare base', 'prepare arc'];
const ANSWERS_DURING = 24;
const ANSWERS_AFTER = 8;
const WALLET = '0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc';

const prefix = `faults:${randomBytes(4).toString('hex')}:`;
let dataDir: string;
let pg: EmbeddedDatabase;
let redis: RedisServer;
let probe: Redis;
const anvils = new Map<string, Anvil>();
let chains: ChainConfig[];
let svc: TestService;
let key: string;
let keyId: string;
/**
 * Readers of GET /v1/positions/{id}: its bucket is per key, so the load spreads over keys, in turn, and
 * position reads are paced (one per POSITION_READ_MS at most): each reader then gets fewer reads in a
 * window than its bucket holds (with a margin), so whatever pace the phase runs at, the load never
 * meets a 429 and every phase, however fast the machine, sends its share of position reads.
 */
const readers: { key: string; position: string }[] = [];
const READERS = 12;
/** READERS × (the bucket − 10) reads per window of WINDOW_SECONDS + 1 is more than this pace sends. */
const POSITION_READ_MS =
  Math.ceil(((WINDOW_SECONDS + 1) * 1000) / (READERS * (BUCKET_LIMITS.positions - 10))) + 20;
let lastPositionRead = 0;
let positionReads = 0;

function nextReader(): (typeof readers)[number] | undefined {
  const now = Date.now();
  if (now - lastPositionRead < POSITION_READ_MS) return undefined;
  lastPositionRead = now;
  return readers[positionReads++ % readers.length];
}
/** Every strategy hash a 200 prepare returned: none may be lost. */
const prepared = new Set<string>();

const specOf = (chainKey: keyof typeof ANVIL_PORTS) => DEVNET_CHAINS.find((c) => c.key === chainKey)!;

async function startChain(chainKey: keyof typeof ANVIL_PORTS): Promise<SeededChain> {
  const spec = specOf(chainKey);
  const anvil = await startAnvil({ port: ANVIL_PORTS[chainKey], chainId: spec.chainId });
  anvils.set(chainKey, anvil);
  return seedChain(spec, anvil.rpcUrl);
}

const pairOf: Record<string, [string, string]> = { base: ['USDC', 'USDT'], arc: ['USDC', 'EURC'] };

let counter = 0;
/** A distinct client per request (TRUST_PROXY=1): the load itself never fills a read bucket. */
function client(): Record<string, string> {
  const n = ++counter;
  return { 'x-forwarded-for': `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}` };
}

function prepareRequest(chain: 'base' | 'arc'): LoadRequest {
  const [a, b] = pairOf[chain]!;
  return {
    name: `prepare ${chain}`,
    path: '/v1/positions',
    init: {
      method: 'POST',
      headers: { ...client(), 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({
        chain,
        wallet: WALLET,
        deposits: [
          { symbol: a, amount: '1000000' },
          { symbol: b, amount: '2000000' },
        ],
      }),
    },
  };
}

const get = (name: string, path: string, headers: Record<string, string> = {}): LoadRequest => ({
  name,
  path,
  init: { headers: { ...client(), ...headers } },
});

/** The mix every phase sends: cached and uncached reads, prepares on both chains, a position read. */
function mix(i: number): LoadRequest {
  switch (i % 8) {
    case 0:
      return get('stats', '/api/stats');
    case 1:
      return get('badge', '/api/badge?metric=strategies');
    case 2:
      return get('chains', '/api/chains');
    case 3:
      return get('strategies', '/api/strategies?chain=base&pair=USDC/USDT');
    case 4:
      return prepareRequest('base');
    case 5:
      return prepareRequest('arc');
    case 6: {
      const reader = nextReader();
      if (!reader) return get('detail', '/api/strategies?resource=chains');
      return get('position', `/v1/positions/${reader.position}`, { authorization: `Bearer ${reader.key}` });
    }
    default:
      return get('detail', '/api/strategies?resource=chains');
  }
}

function remember(samples: readonly Sample[]): void {
  for (const s of samples) {
    if (s.name.startsWith('prepare') && s.status === 200) {
      prepared.add((s.body as { data: { strategyHash: string } }).data.strategyHash);
    }
  }
}

/** What holds for every answer in every phase. */
function expectWellFormed(samples: readonly Sample[]): void {
  const counts = tally(samples);
  expect(samples.length, JSON.stringify(counts)).toBeGreaterThan(20);
  for (const s of samples) {
    const where = `${s.name}: ${JSON.stringify(counts)}; this one ${s.status} ${s.ms} ms ${s.error ?? ''}`;
    expect(s.error, where).toBeNull();
    expect([200, 503, 504], where).toContain(s.status);
    expect(s.ms, where).toBeLessThan(ANSWER_BOUND_MS);
    expect(s.requestId, where).toBe(true);
    expect(s.rateLimit, where).toBe(true);
    if (s.status === 503) expect([s.code, s.retryable], where).toEqual(['UPSTREAM_UNAVAILABLE', true]);
    if (s.status === 504) expect([s.code, s.retryable], where).toEqual(['UPSTREAM_TIMEOUT', true]);
  }
}

/**
 * Runs the load; once it has answered ANSWERS_BEFORE requests (a control of the healthy service in the
 * same phase), the fault; the outage then lasts `holdMs` after the fault is in place, whatever the fault
 * took (the box is shared), and at least until ANSWERS_DURING requests sent in it were answered; then the
 * restore, and load after it until ANSWERS_AFTER requests sent after it were answered. Waits on answers,
 * not on the clock alone: a slow box sends fewer requests in a second. The deadlines only end a hung test.
 */
async function underLoad(fault: () => Promise<void>, restore: () => Promise<void>, holdMs = 2500) {
  const marks: Record<string, number> = {};
  let done = false;
  const answered: Sample[] = [];
  const answeredSince = (mark: number | undefined) =>
    mark === undefined ? 0 : answered.filter((s) => s.at >= mark).length;
  const answers = (count: () => number, atLeast: number) =>
    expect.poll(count, { timeout: 30_000, interval: 20 }).toBeGreaterThanOrEqual(atLeast);
  const load = loadLoop(svc.url, {
    ...LOAD,
    next: mix,
    until: () => done,
    onSample: (s) => answered.push(s),
  });
  const script = (async () => {
    try {
      await answers(() => answered.length, ANSWERS_BEFORE);
      // The control holds a healthy answer of every kind (the prepares, the slowest, come back last).
      await expect
        .poll(() => CONTROL_KINDS.every((k) => answered.some((s) => s.name === k && s.status === 200)), {
          timeout: 30_000,
          interval: 20,
        })
        .toBe(true);
      marks.faultStart = Date.now();
      await fault();
      marks.faulted = Date.now();
      await Promise.all([sleep(holdMs), answers(() => answeredSince(marks.faulted), ANSWERS_DURING)]);
      marks.restoreStart = Date.now();
      await restore();
      marks.restored = Date.now();
      await answers(() => answeredSince(marks.restored), ANSWERS_AFTER);
    } finally {
      done = true;
    }
  })();
  const [samples] = await Promise.all([load, script]);
  remember(samples);
  const during = samples.filter((s) => s.at >= marks.faulted! && s.at + s.ms <= marks.restoreStart!);
  /** The same requests answered by the healthy service earlier in the phase. */
  const control = samples.filter((s) => s.at + s.ms <= marks.faultStart!);
  return { samples, during, control, marks };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Everything answers 200 again: the mix, twice over, with the service never restarted. */
let probes = 0;
async function recovered(): Promise<boolean> {
  for (let i = 0; i < 16; i++) {
    const s = await send(svc.url, mix(probes++), LOAD.timeoutMs);
    if (s.status !== 200) return false;
    remember([s]);
  }
  return true;
}

async function expectNoPositionLost(): Promise<void> {
  const { rows } = await svc.services.db.query<{ strategy_hash: string }>(
    'SELECT strategy_hash FROM positions WHERE key_id = $1',
    [keyId],
  );
  const stored = new Set(rows.map((r) => r.strategy_hash));
  expect([...prepared].filter((h) => !stored.has(h))).toEqual([]);
  // Each answered prepare is one row, and no row without an answer (nothing half-written).
  expect(stored.size).toBe(prepared.size);
  for (const hash of [...prepared].slice(0, 30)) {
    const res = await svc.get(`/v1/positions/${hash}`, { headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: { positionId: string } }).data.positionId).toBe(hash);
  }
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'gw-faults-'));
  const [database, server, base, arc] = await Promise.all([
    startEmbeddedPostgres({ dataDir, port: PG_PORT, logger: createLogger('silent') }),
    startRedisServer(REDIS_PORT),
    startChain('base'),
    startChain('arc'),
  ]);
  pg = database;
  redis = server;
  probe = new Redis(redis.url, { maxRetriesPerRequest: 1 });
  probe.on('error', () => {});
  chains = [base.config, arc.config];
  svc = await startTestService({
    chains,
    env: {
      PORT: String(SERVICE_PORT),
      DATABASE_URL: pg.url,
      REDIS_URL: redis.url,
      REDIS_PREFIX: prefix,
      TRUST_PROXY: '1',
      RPC_TIMEOUT_MS: String(RPC_TIMEOUT_MS),
      INDEXER: 'embedded',
      INDEXER_POLL_MS: '250',
      ROLLUP_REFRESH_MS: '1000',
    },
  });
  ({ key, keyId } = await svc.createKey({ environment: 'LIVE', prepareLimitPerMinute: 100_000 }));
  for (let i = 0; i < 10; i++) {
    const s = await send(svc.url, prepareRequest(i % 2 === 0 ? 'base' : 'arc'), LOAD.timeoutMs);
    expect(s.status, JSON.stringify(s.body)).toBe(200);
    remember([s]);
  }
  for (let i = 0; i < READERS; i++) {
    const reader = await svc.createKey({ environment: 'LIVE' });
    const res = await svc.get('/v1/positions', {
      ...prepareRequest('arc').init,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${reader.key}` },
    });
    expect(res.status).toBe(200);
    readers.push({
      key: reader.key,
      position: ((await res.json()) as { data: { strategyHash: string } }).data.strategyHash,
    });
  }
  expect(await recovered()).toBe(true);
}, 120_000);

afterAll(async () => {
  for (const anvil of anvils.values()) process.kill(anvil.pid, 'SIGCONT');
  await svc?.stop();
  probe?.disconnect();
  await redis?.stop();
  await pg?.stop().catch(() => {});
  await Promise.all([...anvils.values()].map((a) => a.stop()));
  await rm(dataDir, { recursive: true, force: true });
}, 60_000);

describe('faults under load, one service never restarted', () => {
  it('Redis down: per-process counters, headers and 200s; back: ioredis reconnects, limiter and cache use Redis again', async () => {
    const redisClient = svc.services.redis!;
    // Before: the counters live in Redis.
    const before = await send(
      svc.url,
      get('strategies', '/api/strategies?chain=base&pair=USDC/USDT', { 'x-forwarded-for': '203.0.113.1' }),
      LOAD.timeoutMs,
    );
    expect(before.status).toBe(200);
    expect(await probe.get(`${prefix}rl:strategies:203.0.113.1`)).toBe('1');

    let outage: { limited: Sample[] } = { limited: [] };
    let readyAt = 0;
    let serverBackAt = 0;
    const { samples, during } = await underLoad(
      async () => {
        await redis.stop();
        await eventually('ioredis notices', async () => redisClient.status !== 'ready', 20_000, 20);
        // The per-process fallback still limits: 20 of the strategies bucket, then 429, headers throughout.
        const limited: Sample[] = [];
        for (let i = 0; i < 21; i++) {
          limited.push(
            await send(
              svc.url,
              get('limited', '/api/strategies?chain=base&pair=USDC/USDT', {
                'x-forwarded-for': '203.0.113.2',
              }),
              LOAD.timeoutMs,
            ),
          );
        }
        outage = { limited };
      },
      async () => {
        redisClient.once('ready', () => {
          readyAt = Date.now();
        });
        redis = await startRedisServer(REDIS_PORT);
        serverBackAt = Date.now();
      },
    );
    expectWellFormed(samples);
    // Redis is not needed to answer: every answer of the load is a 200, during the outage too.
    expect(
      samples.filter((s) => s.status !== 200),
      JSON.stringify(tally(samples)),
    ).toEqual([]);
    expect(during.length).toBeGreaterThan(10);
    expect(outage.limited.slice(0, 20).map((s) => s.status)).toEqual(Array(20).fill(200));
    expect(outage.limited.map((s) => s.rateLimit).every(Boolean)).toBe(true);
    expect(outage.limited[20]!.status).toBe(429);
    expect(outage.limited[20]!.code).toBe('RATE_LIMITED');

    // ioredis reconnects by itself (retryStrategy: backoff up to 2 s).
    await eventually('ioredis reconnected', async () => redisClient.status === 'ready', 30_000, 20);
    console.log(
      `faults/redis: ${JSON.stringify(tally(samples))}; ioredis ready again ${readyAt - serverBackAt} ms after redis-server answered`,
    );
    // The limiter writes to the new server again…
    const after = await send(
      svc.url,
      get('strategies', '/api/strategies?chain=base&pair=USDC/USDT', { 'x-forwarded-for': '203.0.113.3' }),
      LOAD.timeoutMs,
    );
    expect(after.status).toBe(200);
    expect(await probe.get(`${prefix}rl:strategies:203.0.113.3`)).toBe('1');
    // …and so does the response cache (its in-process copy dropped, the next miss is stored there).
    await responseCacheFor(svc.services).delete('stats');
    const stats = await send(svc.url, get('stats', '/api/stats'), LOAD.timeoutMs);
    expect(stats.status).toBe(200);
    expect(await probe.exists(`${prefix}rc:stats`)).toBe(1);
    expect(await recovered()).toBe(true);
  }, 60_000);

  it('Postgres down: retryable 503s where the store is needed, then recovery; no stored position lost', async () => {
    const readyDuring: number[] = [];
    const { samples, during } = await underLoad(
      async () => {
        await pg.stop();
        readyDuring.push((await svc.get('/readyz')).status);
      },
      async () => {
        pg = await startEmbeddedPostgres({ dataDir, port: PG_PORT, logger: createLogger('silent') });
      },
    );
    expectWellFormed(samples);
    console.log(`faults/postgres: ${JSON.stringify(tally(samples))}`);
    expect(readyDuring).toEqual([503]);
    // The outage was seen where the store is needed…
    for (const name of ['strategies', 'prepare base', 'prepare arc', 'position']) {
      expect(during.filter((s) => s.name === name && s.status === 503).length, name).toBeGreaterThan(0);
    }
    // …and not where it is not: cached stats and the badge (which renders "unavailable") stay 200.
    for (const name of ['stats', 'badge']) {
      expect(
        during.filter((s) => s.name === name && s.status !== 200),
        name,
      ).toEqual([]);
    }
    await eventually('recovered after Postgres', recovered, 20_000);
    expect((await svc.get('/readyz')).status).toBe(200);
    await expectNoPositionLost();
  }, 60_000);

  it('RPC frozen: 504 UPSTREAM_TIMEOUT within the RPC timeout on that chain only; recovers', async () => {
    const pid = anvils.get('base')!.pid;
    const { samples, during, control } = await underLoad(
      async () => {
        process.kill(pid, 'SIGSTOP');
      },
      async () => {
        process.kill(pid, 'SIGCONT');
      },
    );
    expectWellFormed(samples);
    console.log(`faults/rpc-frozen: ${JSON.stringify(tally(samples))}`);
    const base = during.filter((s) => s.name === 'prepare base');
    expect(base.filter((s) => s.status === 504).length).toBeGreaterThan(0);
    // At the timeout (so the timeout fired), not after a second try (two timeouts): beyond the timeout,
    // a 504 takes no more than a healthy prepare on this chain took earlier in the phase (a control,
    // under the same load, times three), or half a timeout when that is less.
    const healthy = control.filter((s) => s.name === 'prepare base' && s.status === 200).map((s) => s.ms);
    expect(healthy.length, JSON.stringify(tally(control))).toBeGreaterThan(0);
    const beyond = Math.max(RPC_TIMEOUT_MS / 2, 3 * Math.max(...healthy));
    console.log(`faults/rpc-frozen: slowest healthy prepare base ${Math.max(...healthy)} ms`);
    for (const s of base.filter((x) => x.status === 504)) {
      expect(s.ms).toBeGreaterThanOrEqual(RPC_TIMEOUT_MS * 0.9);
      expect(s.ms - RPC_TIMEOUT_MS).toBeLessThan(beyond);
    }
    expect(during.filter((s) => s.name !== 'prepare base' && s.status !== 200)).toEqual([]);
    await eventually('recovered after the freeze', recovered, 20_000);
  }, 60_000);

  it('RPC killed and restarted on the same port (a new chain): 503 on that chain meanwhile, then answers again', async () => {
    const old = anvils.get('base')!;
    const { samples, during } = await underLoad(
      () => old.stop(),
      async () => {
        await startChain('base');
      },
    );
    expectWellFormed(samples);
    console.log(`faults/rpc-restart: ${JSON.stringify(tally(samples))}`);
    const base = during.filter((s) => s.name === 'prepare base');
    expect(base.length).toBeGreaterThan(0);
    expect(base.every((s) => s.status === 503)).toBe(true);
    expect(during.filter((s) => s.name !== 'prepare base' && s.status !== 200)).toEqual([]);
    await eventually('recovered after the RPC restart', recovered, 20_000);
    // The indexer follows the new chain: its checkpoint names the new genesis block.
    const genesis = (
      await createChainClient(chains[0]!, { rpcTimeoutMs: 2000 }).getBlock({ blockNumber: 0n })
    ).hash;
    await eventually(
      'indexer on the new chain',
      async () => {
        const { rows } = await svc.services.db.query<{ genesis_hash: string | null }>(
          'SELECT genesis_hash FROM indexer_checkpoints WHERE chain_key = $1',
          ['base'],
        );
        return rows[0]?.genesis_hash === genesis;
      },
      30_000,
    );
    await expectNoPositionLost();
  }, 90_000);
});
