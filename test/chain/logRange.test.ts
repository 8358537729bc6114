/**
 * eth_getLogs ranges as real providers constrain them: an anvil behind the test
 * proxy, which refuses every eth_getLogs over 8 blocks in the words of geth/Infura (-32005 "query
 * returned more than 10000 results"), of range-limited endpoints ("block range is too large"), of
 * Alchemy (a suggested range) or with an HTTP 413. The indexer narrows its ranges until they are
 * answered, indexes exactly what a direct index stores, and widens them again once the provider
 * serves wide ranges. Ports 19970 (anvil) and 19971 (proxy).
 */
import type { Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chainParts } from '../../chain/parts.js';
import { ChainRegistry } from '../../chain/registry.js';
import { type Anvil, startAnvil } from '../../devnet/anvil.js';
import { DEVNET_CHAINS } from '../../devnet/chains.js';
import { type SeededChain, seedChain } from '../../devnet/seed.js';
import { startIndexer } from '../../indexer/index.js';
import { GROW_AFTER } from '../../indexer/logRange.js';
import { type ChainConfig, loadConfig } from '../../lib/config.js';
import { createLogger } from '../../lib/logger.js';
import { Metrics } from '../../lib/metrics.js';
import type { Services } from '../../lib/services.js';
import type { Db } from '../../store/db.js';
import { migrate } from '../../store/migrate.js';
import { catalogueSnapshot } from '../helpers/indexerSnapshot.js';
import { testPort } from '../helpers/ports.js';
import { createTestDatabase, testPool } from '../helpers/postgres.js';
import { type RangeRefusal, type RpcProxy, startRpcProxy } from '../helpers/rpcProxy.js';

const spec = DEVNET_CHAINS.find((c) => c.key === 'base')!;
const LIMIT = 8;
const CHUNK = 200;

let anvil: Anvil;
let seeded: SeededChain;
let proxy: RpcProxy;
const databases: { db: Db; drop(): Promise<void> }[] = [];

async function freshDb(): Promise<{ url: string; db: Db }> {
  const database = await createTestDatabase();
  const db = testPool(database.url, 4);
  await migrate(db);
  databases.push({ db, drop: database.drop });
  return { url: database.url, db };
}

function servicesFor(t: { url: string; db: Db }, chain: ChainConfig, metrics: Metrics): Services {
  const registry = new ChainRegistry([chain]);
  const config = loadConfig({
    LOG_LEVEL: 'silent',
    DATABASE_URL: t.url,
    INDEXER_CHUNK_BLOCKS: String(CHUNK),
  });
  const parts = chainParts(registry, { rpcTimeoutMs: 5000 }, config);
  return { config, logger: createLogger('silent'), db: t.db, redis: undefined, ...parts, metrics };
}

async function logRangeGauge(metrics: Metrics): Promise<number | undefined> {
  const metric = await metrics.registry.getSingleMetric('gateway_indexer_log_range_blocks')?.get();
  return metric?.values.find((v) => v.labels.chain === 'base')?.value;
}

/** Indexes the chain into a fresh database, through `rpcUrl`. */
async function indexThrough(rpcUrl: string) {
  const t = await freshDb();
  const metrics = new Metrics();
  const indexer = await startIndexer(servicesFor(t, { ...seeded.config, rpcUrl }, metrics), {
    background: false,
  });
  const [result] = await indexer.syncNow();
  return { t, metrics, indexer, result: result! };
}

/**
 * The chain indexed straight from the anvil, which every refusal style is compared with: the chain does
 * not move between those tests, so one direct index serves them all.
 */
let directIndex: Promise<Awaited<ReturnType<typeof indexThrough>>> | undefined;
function indexedDirectly() {
  directIndex ??= indexThrough(anvil.rpcUrl).then(async (indexed) => {
    await indexed.indexer.stop();
    return indexed;
  });
  return directIndex;
}

beforeAll(async () => {
  anvil = await startAnvil({ port: testPort(19970), chainId: spec.chainId });
  seeded = await seedChain(spec, anvil.rpcUrl);
  // Empty blocks after the seed, so a range of 8 blocks is a small share of the history.
  await seeded.rpc.request({ method: 'anvil_mine', params: ['0x190'] } as never);
  proxy = await startRpcProxy({ port: testPort(19971), mode: 'forward', target: anvil.rpcUrl });
}, 120_000);

afterAll(async () => {
  await proxy?.stop();
  for (const t of databases) {
    await t.db.end().catch(() => {});
    await t.drop().catch(() => {});
  }
  await anvil?.stop();
});

describe('eth_getLogs ranges a provider refuses', () => {
  it.each<RangeRefusal>(['results', 'range', 'alchemy', 'http413'])(
    'narrow until answered (%s) and index what a direct index does',
    async (style) => {
      const direct = await indexedDirectly();
      proxy.reset();
      proxy.limitLogRange({ blocks: LIMIT, style });
      const limited = await indexThrough(proxy.url);
      await limited.indexer.stop();
      proxy.limitLogRange(null);

      expect(limited.result.to).toBe(direct.result.to);
      expect(limited.result.logs).toBe(direct.result.logs);
      expect(await catalogueSnapshot(limited.t)).toEqual(await catalogueSnapshot(direct.t));
      const ranges = proxy.logRanges();
      expect(ranges.filter((r) => r.refused).length).toBeGreaterThan(0);
      // After the first refusals, ranges stay near the limit: a refused range is at most one doubling over.
      expect(ranges.every((r) => r.refused || r.blocks <= LIMIT)).toBe(true);
      const refusals = ranges.filter((r) => r.refused).length;
      expect(refusals).toBeLessThan(ranges.length / 2);
      if (style === 'alchemy') {
        // The suggested range is taken at once, not found by halving.
        const first = ranges.findIndex((r) => r.refused);
        expect(ranges[first + 1]).toEqual({ blocks: LIMIT, refused: false });
      }
      // Where it ended: at the limit, or one doubling over it (grown back after answers, not yet refused).
      expect(await logRangeGauge(limited.metrics)).toBeLessThanOrEqual(2 * LIMIT);
    },
    60_000,
  );

  it('widen again once the provider serves wide ranges', async () => {
    const t = await freshDb();
    const metrics = new Metrics();
    const indexer = await startIndexer(servicesFor(t, { ...seeded.config, rpcUrl: proxy.url }, metrics), {
      background: false,
    });
    try {
      proxy.limitLogRange({ blocks: LIMIT, style: 'results' });
      await indexer.syncNow();
      // Narrowed: at the limit, or one doubling over it (grown back after answers, not yet refused
      // again). Which of the two depends on how many ranges the seeded history takes.
      expect(await logRangeGauge(metrics)).toBeLessThanOrEqual(2 * LIMIT);
      proxy.limitLogRange(null);
      proxy.reset();
      // New blocks until a range of the whole chunk has been asked: GROW_AFTER answers at full span per
      // doubling, about 1,600 blocks from the limit; at most three times what the doublings take. Mined
      // and indexed a chunk at a time, stopping once widened: a block costs anvil a few milliseconds, and
      // one anvil_mine of thousands of blocks can outlast a request's timeout on a busy box.
      const widened = () => proxy.logRanges().some((r) => r.blocks === CHUNK);
      let result: Awaited<ReturnType<typeof indexer.syncNow>>[number] | undefined;
      for (let mined = 0; mined < CHUNK * GROW_AFTER * 3 && !widened(); mined += CHUNK) {
        await seeded.rpc.request({ method: 'anvil_mine', params: [`0x${CHUNK.toString(16)}`] } as never);
        [result] = await indexer.syncNow();
      }
      const head = Number((await seeded.rpc.request({ method: 'eth_blockNumber' } as never)) as Hex);
      expect(result!.to).toBe(head);
      expect(await logRangeGauge(metrics)).toBe(CHUNK);
      const spans = proxy.logRanges().map((r) => r.blocks);
      expect(Math.max(...spans)).toBe(CHUNK);
      // It grew step by step: no span asked is more than twice the widest before it.
      let widest = spans[0]!;
      for (const span of spans) {
        expect(span).toBeLessThanOrEqual(widest * 2);
        widest = Math.max(widest, span);
      }
      expect(spans[0]).toBeLessThanOrEqual(2 * LIMIT);
    } finally {
      proxy.limitLogRange(null);
      await indexer.stop();
    }
  }, 60_000);
});
