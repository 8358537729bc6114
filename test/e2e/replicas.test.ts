/**
 * Two replicas: two gateway PROCESSES (`main.ts`, spawned twice) on one Postgres (a fresh
 * database on the machine's server) and one Redis (the machine's, a prefix of this run), both with the
 * embedded indexer, over the chains of a devnet of the suite's own (its activity bot keeps writing).
 *   - every bucket is shared exactly: the limit+1-th request of a window is 429 on either replica, for
 *     a read bucket (per client) and for the prepare bucket (per key);
 *   - idempotency holds across them: one key + one Idempotency-Key sent to both at once → one
 *     position, one strategyHash;
 *   - one indexer writes per chain: exactly one backend holds each chain's advisory lock (pg_locks,
 *     and the "indexer leads this chain" log lines), the catalogue has exactly the chain's strategies
 *     and no duplicate swap; when the lock holder is killed (SIGKILL), the other takes every chain over.
 * Ports: devnet 19720-19722, replicas 19730-19731.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServiceProcess, spawnService } from '../../bench/processes.js';
import { aquaAbi, routerAbi } from '../../chain/abi.js';
import { createChainClient } from '../../chain/clients.js';
import type { Devnet } from '../../devnet/devnet.js';
import { CHAIN_LOCK_SPACE } from '../../indexer/writerLock.js';
import { startSeededDevnet } from '../helpers/devnetSnapshot.js';
import { eventually } from '../helpers/load.js';
import { testPort } from '../helpers/ports.js';
import { createTestDatabase, MACHINE_REDIS } from '../helpers/postgres.js';
import { INTERNAL_TOKEN } from '../helpers/service.js';

const DEVNET_PORT = testPort(19720);
const REPLICA_PORTS = { a: testPort(19730), b: testPort(19731) } as const;
type Name = keyof typeof REPLICA_PORTS;
const WALLET = '0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc';

let dataDir: string;
let devnet: Devnet;
let database: { url: string; drop(): Promise<void> };
let db: pg.Pool;
const replicas = {} as Record<Name, ServiceProcess>;
const prefix = `replicas:${randomBytes(4).toString('hex')}:`;

/** The replica's name rides on its connections (application_name), so pg_stat_activity tells them apart. */
function urlFor(name: Name): string {
  const url = new URL(database.url);
  url.searchParams.set('application_name', `replica-${name}`);
  return url.toString();
}

function start(name: Name): Promise<ServiceProcess> {
  return spawnService({
    PORT: String(REPLICA_PORTS[name]),
    HOST: '127.0.0.1',
    DATABASE_URL: urlFor(name),
    REDIS_URL: MACHINE_REDIS,
    REDIS_PREFIX: prefix,
    // Shared windows are exact only while Redis answers: a busy box's slow reply must not fall back.
    REDIS_COMMAND_TIMEOUT_MS: '5000',
    CHAINS_FILE: devnet.manifestPath,
    INDEXER: 'embedded',
    INDEXER_POLL_MS: '200',
    ROLLUP_REFRESH_MS: '1000',
    INTERNAL_TOKEN,
    TRUST_PROXY: '1',
    LOG_LEVEL: 'info',
  });
}

const call = (name: Name, path: string, init: RequestInit = {}) =>
  fetch(`${replicas[name].url}${path}`, init);

async function createKey(input: Record<string, unknown>): Promise<string> {
  const res = await call('a', '/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${INTERNAL_TOKEN}` },
    body: JSON.stringify({
      query: 'mutation($input: CreateApiKeyInput!) { createApiKey(input: $input) { key } }',
      variables: { input },
    }),
  });
  const body = (await res.json()) as { data: { createApiKey: { key: string } } };
  return body.data.createApiKey.key;
}

function prepare(name: Name, key: string, idempotencyKey?: string) {
  return call(name, '/v1/positions', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${key}`,
      ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}),
    },
    body: JSON.stringify({
      chain: 'base',
      wallet: WALLET,
      deposits: [
        { symbol: 'USDC', amount: '1000000' },
        { symbol: 'USDT', amount: '1000000' },
      ],
    }),
  });
}

interface LockRow {
  chain: string;
  holder: string;
  holders: number;
}

/** Who holds each chain's writer lock now, from pg_locks (granted advisory locks of this database). */
async function lockHolders(): Promise<LockRow[]> {
  const keys = devnet.chains.map((c) => c.key);
  const { rows } = await db.query<LockRow>(
    `SELECT k.chain, min(a.application_name) AS holder, count(l.pid)::int AS holders
       FROM unnest($2::text[]) AS k(chain)
       LEFT JOIN pg_locks l
         ON l.locktype = 'advisory' AND l.granted AND l.objsubid = 2
        AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
        AND l.classid::text::bigint = $1::bigint
        AND l.objid::text::bigint = (hashtext(k.chain)::bigint & 4294967295)
       LEFT JOIN pg_stat_activity a ON a.pid = l.pid
      GROUP BY k.chain ORDER BY k.chain`,
    [CHAIN_LOCK_SPACE, keys],
  );
  return rows;
}

const leadLines = (name: Name) =>
  replicas[name].logs.filter((l) => l.msg === 'indexer leads this chain').map((l) => String(l.chain));

/** Swaps in the catalogue per chain. */
async function swapCounts(): Promise<Map<string, number>> {
  const { rows } = await db.query<{ chain_key: string; n: number }>(
    'SELECT chain_key, count(*)::int AS n FROM swaps GROUP BY chain_key',
  );
  return new Map(rows.map((r) => [r.chain_key, r.n]));
}

/** The catalogue against the chain itself, up to each chain's checkpoint. */
async function expectCatalogueMatchesChains(): Promise<void> {
  for (const chain of devnet.chains) {
    const { rows } = await db.query<{
      last_block: string;
      strategies: number;
      swaps: number;
      distinct_swaps: number;
    }>(
      `SELECT c.last_block::text AS last_block,
              (SELECT count(*)::int FROM strategies WHERE chain_key = $1) AS strategies,
              (SELECT count(*)::int FROM swaps WHERE chain_key = $1) AS swaps,
              (SELECT count(DISTINCT (tx_hash, log_index))::int FROM swaps WHERE chain_key = $1) AS distinct_swaps
         FROM indexer_checkpoints c WHERE c.chain_key = $1`,
      [chain.key],
    );
    const row = rows[0]!;
    // Counted under one snapshot per statement; the chain read goes to the same checkpoint block.
    const client = createChainClient(chain, { rpcTimeoutMs: 5000 });
    const range = { fromBlock: 0n, toBlock: BigInt(row.last_block) };
    const [shipped, swapped] = await Promise.all([
      client.getContractEvents({
        address: chain.aqua as `0x${string}`,
        abi: aquaAbi,
        eventName: 'Shipped',
        ...range,
      }),
      client.getContractEvents({
        address: chain.router as `0x${string}`,
        abi: routerAbi,
        eventName: 'Swapped',
        ...range,
      }),
    ]);
    expect(row.distinct_swaps, chain.key).toBe(row.swaps);
    expect({ chain: chain.key, strategies: row.strategies, swaps: row.swaps }).toEqual({
      chain: chain.key,
      strategies: shipped.length,
      swaps: swapped.length,
    });
  }
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'gw-replicas-'));
  [devnet, database] = await Promise.all([
    startSeededDevnet({ basePort: DEVNET_PORT, dataDir, activityMs: 1500 }),
    // Empty: the two replicas below migrate it.
    createTestDatabase({ empty: true }),
  ]);
  db = new pg.Pool({ connectionString: database.url, max: 2 });
  // Both at once: they race for the migrations and for every chain's lock.
  const [a, b] = await Promise.all([start('a'), start('b')]);
  replicas.a = a;
  replicas.b = b;
}, 180_000);

afterAll(async () => {
  await Promise.all(Object.values(replicas).map((r) => r.stop()));
  await db?.end();
  await devnet?.stop();
  await database?.drop();
  await rm(dataDir, { recursive: true, force: true });
}, 60_000);

describe('two replicas on one Postgres and one Redis', () => {
  it('both are ready and serve the same catalogue', async () => {
    for (const name of ['a', 'b'] as const) {
      expect((await call(name, '/readyz')).status).toBe(200);
      expect((await call(name, '/api/stats')).status).toBe(200);
    }
  });

  it('a read bucket is one window across both: the 21st /api/strategies of a client is 429 on either', async () => {
    const headers = { 'x-forwarded-for': '198.51.100.7' };
    const remaining: number[] = [];
    for (let i = 0; i < 20; i++) {
      const res = await call(i % 2 === 0 ? 'a' : 'b', '/api/strategies?chain=base', { headers });
      expect(res.status).toBe(200);
      remaining.push(Number(res.headers.get('ratelimit-remaining')));
      await res.arrayBuffer();
    }
    expect(remaining).toEqual(Array.from({ length: 20 }, (_, i) => 19 - i));
    for (const name of ['a', 'b'] as const) {
      const res = await call(name, '/api/strategies?chain=base', { headers });
      expect(res.status).toBe(429);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(res.headers.get('ratelimit-policy')).toBe('strategies;w=60;limit=20');
    }
  });

  it('the per-key prepare bucket is one window across both: the limit+1-th prepare is 429 on either', async () => {
    const key = await createKey({ environment: 'LIVE', prepareLimitPerMinute: 5 });
    // Fired at once, split over the replicas: exactly the limit gets through.
    const first = await Promise.all(
      Array.from({ length: 5 }, (_, i) => prepare(i % 2 === 0 ? 'a' : 'b', key)),
    );
    expect(first.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    for (const name of ['a', 'b'] as const) {
      const res = await prepare(name, key);
      expect(res.status).toBe(429);
      expect(res.headers.get('ratelimit-policy')).toBe('prepare;w=60;limit=5');
      expect(res.headers.get('ratelimit-remaining')).toBe('0');
    }
  });

  it('one key + one Idempotency-Key sent to both at once: one position, one strategyHash', async () => {
    const key = await createKey({ environment: 'LIVE', prepareLimitPerMinute: 1000 });
    const keyId = key.split('_')[2]!;
    for (let round = 0; round < 5; round++) {
      const idempotencyKey = randomUUID();
      const answers = await Promise.all([
        prepare('a', key, idempotencyKey),
        prepare('b', key, idempotencyKey),
      ]);
      expect(answers.map((r) => r.status)).toEqual([200, 200]);
      const hashes = await Promise.all(
        answers.map(async (r) => ((await r.json()) as { data: { strategyHash: string } }).data.strategyHash),
      );
      expect(hashes[0]).toBe(hashes[1]);
      const { rows } = await db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM positions WHERE key_id = $1 AND idempotency_key = $2',
        [keyId, idempotencyKey],
      );
      expect(rows[0]!.n).toBe(1);
    }
  });

  it('exactly one indexer holds each chain; the catalogue has no duplicate; the other takes over when it is killed', async () => {
    const chains = devnet.chains.map((c) => c.key).sort();
    const holders = await lockHolders();
    expect(holders.map((h) => h.holders)).toEqual(chains.map(() => 1));
    // The log lines agree: each chain was led once, by the process pg_locks names.
    await eventually(
      'the lead lines of both replicas name every chain',
      async () => [...leadLines('a'), ...leadLines('b')].length >= chains.length,
      20_000,
    );
    expect([...leadLines('a'), ...leadLines('b')].sort()).toEqual(chains);
    for (const h of holders) expect(leadLines(h.holder.replace('replica-', '') as Name)).toContain(h.chain);
    console.log(`replicas: locks ${JSON.stringify(holders)}`);

    // The activity bot adds swaps while both run: once the catalogue of every chain holds more swaps
    // than now (written by whichever replica leads it), compare with the chains. The deadline only ends
    // a hung test.
    const swapsNow = await swapCounts();
    await eventually(
      'the catalogue of every chain has new swaps',
      async () => {
        const counts = await swapCounts();
        return devnet.chains.every((c) => (counts.get(c.key) ?? 0) > (swapsNow.get(c.key) ?? 0));
      },
      30_000,
    );
    await expectCatalogueMatchesChains();

    // Kill the process that leads the most chains (SIGKILL: no clean release); the survivor takes all.
    const count = (n: Name) => holders.filter((h) => h.holder === `replica-${n}`).length;
    const victim: Name = count('a') >= count('b') ? 'a' : 'b';
    const survivor: Name = victim === 'a' ? 'b' : 'a';
    const { rows: before } = await db.query<{ chain_key: string; last_block: string }>(
      'SELECT chain_key, last_block::text AS last_block FROM indexer_checkpoints',
    );
    await replicas[victim].kill();
    const tookMs = await eventually(
      'the survivor leads every chain',
      async () => (await lockHolders()).every((h) => h.holders === 1 && h.holder === `replica-${survivor}`),
      30_000,
    );
    // Its log says so too (the line of the last lock taken can arrive a moment after pg_locks shows it).
    await eventually(
      'the survivor logs leading every chain',
      async () => JSON.stringify(leadLines(survivor).sort()) === JSON.stringify(chains),
      20_000,
    );
    expect(leadLines(survivor).sort()).toEqual(chains);
    console.log(`replicas: ${survivor} took over every chain ${tookMs} ms after ${victim} was killed`);
    // It writes: every chain's checkpoint moves on (the bot keeps swapping), still without duplicates.
    await eventually(
      'checkpoints advance',
      async () => {
        const { rows } = await db.query<{ chain_key: string; last_block: string }>(
          'SELECT chain_key, last_block::text AS last_block FROM indexer_checkpoints',
        );
        return rows.every(
          (r) => BigInt(r.last_block) > BigInt(before.find((b) => b.chain_key === r.chain_key)!.last_block),
        );
      },
      20_000,
    );
    await expectCatalogueMatchesChains();
    expect((await call(survivor, '/api/stats')).status).toBe(200);
  }, 60_000);
});
