import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureChains, insertStrategy } from '../helpers/catalogue.js';
import { startTestService, type TestService } from '../helpers/service.js';

/**
 * /api/chains and /api/strategy-detail are served from the response cache for one indexer poll
 * (INDEXER_POLL_MS, here 1.5 s; the indexer is off and the test writes the rows itself): within the poll
 * a change of the store is not yet shown and `meta.cached` says the answer came from the cache; after it
 * the change is shown, freshly read. A 404 is never cached.
 */

const POLL_MS = 1500;
const chains = fixtureChains();
let svc: TestService;

interface Read {
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are JSON checked field by field by the assertions.
  data: Record<string, any>;
  meta: { cached: boolean; freshnessSeconds: number | null };
}

async function read(path: string): Promise<Read> {
  const res = await svc.get(path);
  expect(res.status).toBe(200);
  return (await res.json()) as Read;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  svc = await startTestService({ chains, env: { INDEXER: 'off', INDEXER_POLL_MS: String(POLL_MS) } });
}, 60_000);
afterAll(async () => {
  await svc?.stop();
});

describe('live reads cached for one indexer poll', () => {
  it('serves a strategy detail from the cache within the poll, the stored change after it', async () => {
    const { hash } = await insertStrategy(svc.services.db, {
      chain: chains[0]!,
      symbols: ['USDC', 'USDT'],
      shippedAt: new Date(),
      salt: 11n,
    });
    const first = await read(`/api/strategy-detail?hash=${hash}`);
    expect(first.meta).toMatchObject({ cached: false, freshnessSeconds: null });
    expect(first.data.status).toBe('active');

    await svc.services.db.query(
      `UPDATE strategies SET status = 'docked', docked_at = now(), docked_block = 99 WHERE strategy_hash = $1`,
      [hash],
    );
    const within = await read(`/api/strategy-detail?hash=${hash}`);
    expect(within.meta).toMatchObject({ cached: true, freshnessSeconds: null });
    expect(within.data).toEqual(first.data);
    // Another spelling of the read (with its chain) is another entry: read now, it shows the dock.
    const named = await read(`/api/strategy-detail?hash=${hash}&chain=${chains[0]!.key}`);
    expect(named.meta.cached).toBe(false);
    expect(named.data.status).toBe('docked');

    await sleep(POLL_MS + 100);
    const after = await read(`/api/strategy-detail?hash=${hash}`);
    expect(after.meta.cached).toBe(false);
    expect(after.data).toMatchObject({ status: 'docked', docked: { block: 99 } });
  }, 30_000);

  it('never caches a 404: a strategy stored after one is found at once', async () => {
    const fixture = {
      chain: chains[1]!,
      symbols: ['USDC', 'EURC'] as [string, string],
      shippedAt: new Date(),
      salt: 12n,
    };
    const { hash } = await insertStrategy(svc.services.db, fixture);
    await svc.services.db.query('DELETE FROM strategies WHERE strategy_hash = $1', [hash]);
    expect((await svc.get(`/api/strategy-detail?hash=${hash}`)).status).toBe(404);
    await insertStrategy(svc.services.db, fixture);
    const found = await read(`/api/strategy-detail?hash=${hash}`);
    expect(found.meta.cached).toBe(false);
    expect(found.data.hash).toBe(hash);
  }, 30_000);

  it('serves the chains from the cache within the poll, the indexer checkpoint after it', async () => {
    const fresh = await read('/api/chains');
    expect(fresh.meta.cached).toBe(false);
    expect(fresh.data.chains[0].indexer).toBeNull();

    await svc.services.db.query(
      'INSERT INTO indexer_checkpoints (chain_key, chain_id, last_block) VALUES ($1, $2, 1234)',
      [chains[0]!.key, chains[0]!.chainId],
    );
    const within = await read('/api/chains');
    expect(within.meta.cached).toBe(true);
    expect(within.data).toEqual(fresh.data);
    // resource=chains of /api/strategies is the same cached entry.
    const resource = await read('/api/strategies?resource=chains');
    expect(resource.meta.cached).toBe(true);
    expect(resource.data).toEqual({ resource: 'chains', ...fresh.data });

    await sleep(POLL_MS + 100);
    const after = await read('/api/chains');
    expect(after.meta.cached).toBe(false);
    expect(after.data.chains[0].indexer).toMatchObject({ lastBlock: 1234 });
  }, 30_000);
});
