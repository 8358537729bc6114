import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../store/migrate.js';
import { writeRollup } from '../../store/rollups.js';
import { fixtureChains } from '../helpers/catalogue.js';
import { createTestDatabase, MACHINE_REDIS, testPool } from '../helpers/postgres.js';
import { startTestService, type TestService } from '../helpers/service.js';

/**
 * The /api/stats response cache in Redis: two replicas on one Redis prefix and one database serve the
 * same cached response, and each keeps an in-process copy of the Redis entry for the rest of its TTL.
 */

const prefix = `test:${randomBytes(4).toString('hex')}:`;
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let a: TestService;
let b: TestService;
let redis: Redis;

beforeAll(async () => {
  database = await createTestDatabase();
  const db = testPool(database.url, 1);
  await migrate(db);
  await writeRollup(db, {
    totals: {
      strategies: 3,
      makers: 2,
      pairs: 1,
      chains: 1,
      volume_1d_usd: 1,
      volume_7d_usd: 2,
      volume_30d_usd: 3,
      last_activity: null,
    },
    chains: [
      {
        chain: 'base',
        chain_id: 8453,
        count: 3,
        makers: 2,
        pairs: 1,
        swaps_30d: 4,
        volume_1d_usd: 1,
        volume_7d_usd: 2,
        volume_30d_usd: 3,
        last_activity: null,
      },
    ],
    pairs: [],
  });
  await db.end();
  const env = { REDIS_URL: MACHINE_REDIS, REDIS_PREFIX: prefix, DATABASE_URL: database.url, INDEXER: 'off' };
  a = await startTestService({ chains: fixtureChains(), env });
  b = await startTestService({ chains: fixtureChains(), env });
  redis = new Redis(MACHINE_REDIS);
});
afterAll(async () => {
  await a?.stop();
  await b?.stop();
  if (redis) {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  }
  await database?.drop();
});

interface StatsBody {
  data: { totals: Record<string, unknown> };
  meta: { cached: boolean; requestId: string };
}

/** The keys under the service's prefix whose value holds this stats answer (its totals). */
async function entriesHolding(data: StatsBody['data']): Promise<string[]> {
  // The entry may hold the answer's JSON text inside JSON (escaped) or as JSON itself.
  const text = JSON.stringify(data.totals);
  const needles = [text, JSON.stringify(text).slice(1, -1)];
  const found: string[] = [];
  for (const key of await redis.keys(`${prefix}*`)) {
    if ((await redis.type(key)) !== 'string') continue;
    const value = (await redis.get(key)) ?? '';
    if (needles.some((n) => value.includes(n))) found.push(key);
  }
  return found;
}

describe('the stats response cache in Redis', () => {
  it('is filled by one replica and served by the other, under the configured prefix', async () => {
    const first = (await (await a.get('/api/stats')).json()) as StatsBody;
    expect(first.meta.cached).toBe(false);
    // What an operator sharing Redis sees: the answer stored once under the service's prefix, kept as
    // long as the documented cache (60 s), whatever the key is called.
    const entries = await entriesHolding(first.data);
    expect(entries).toHaveLength(1);
    const ttl = await redis.pttl(entries[0]!);
    expect(ttl).toBeGreaterThan(50_000);
    expect(ttl).toBeLessThanOrEqual(60_000);

    const other = (await (await b.get('/api/stats')).json()) as StatsBody;
    expect(other.meta.cached).toBe(true);
    expect(other.data).toEqual(first.data);
    expect(other.meta.requestId).not.toBe(first.meta.requestId);
  });

  it('keeps serving the in-process copy of the entry without asking Redis again', async () => {
    const [entry] = await entriesHolding(((await (await a.get('/api/stats')).json()) as StatsBody).data);
    await redis.del(entry!);
    let data: StatsBody['data'] | undefined;
    for (const replica of [a, b]) {
      const body = (await (await replica.get('/api/stats')).json()) as StatsBody;
      expect(body.meta.cached).toBe(true);
      expect(body.data.totals.strategies).toBe(3);
      data = body.data;
    }
    // Nothing was written back: the copies live out the entry's TTL, they do not refresh Redis.
    expect(await entriesHolding(data!)).toEqual([]);
  });
});
