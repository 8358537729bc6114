import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Address, type Hex, maxUint256 } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aquaAbi } from '../../chain/abi.js';
import { dockCalldata, shipCalldata, swapCalldata } from '../../chain/calldata.js';
import { AQUA_TRAITS, decodeStrategy, encodeStrategy, strategyHashOf } from '../../chain/order.js';
import { type ChainParts, chainParts } from '../../chain/parts.js';
import { buildProgram, salt, xycSwap } from '../../chain/program.js';
import { ChainRegistry } from '../../chain/registry.js';
import { exactInTakerTraits } from '../../chain/takerTraits.js';
import type { Devnet } from '../../devnet/devnet.js';
import { devnetRpc, sendAndWait } from '../../devnet/wallet.js';
import { type Indexer, startIndexer } from '../../indexer/index.js';
import { CHAIN_LOCK_SPACE } from '../../indexer/writerLock.js';
import { type ChainConfig, loadConfig } from '../../lib/config.js';
import { createLogger } from '../../lib/logger.js';
import type { Services } from '../../lib/services.js';
import { windowStarts } from '../../lib/windows.js';
import { startService } from '../../service.js';
import type { Db } from '../../store/db.js';
import { migrate } from '../../store/migrate.js';
import { type CatalogueRollup, readRollup } from '../../store/rollups.js';
import { startSeededDevnet } from '../helpers/devnetSnapshot.js';
import { catalogueSnapshot } from '../helpers/indexerSnapshot.js';
import { testPort } from '../helpers/ports.js';
import { createTestDatabase, testPool } from '../helpers/postgres.js';

// Devnet ports of the indexer suites (19000-19010 are this suite's; the bench uses 19004-19006).
const BASE_PORT = testPort(19000);

interface TestDb {
  url: string;
  db: Db;
  drop(): Promise<void>;
}

let devnet: Devnet;
let dataDir: string;
let registry: ChainRegistry;
let parts: ChainParts;
let main: TestDb;
const databases: TestDb[] = [];
const indexers: Indexer[] = [];

async function freshDb(): Promise<TestDb> {
  const database = await createTestDatabase();
  const db = testPool(database.url, 4);
  await migrate(db);
  const t = { url: database.url, db, drop: database.drop };
  databases.push(t);
  return t;
}

function servicesFor(t: TestDb, env: Record<string, string> = {}): Services {
  const config = loadConfig({
    LOG_LEVEL: 'silent',
    DATABASE_URL: t.url,
    INDEXER_POLL_MS: '50',
    ROLLUP_REFRESH_MS: '200',
    ...env,
  });
  return { config, logger: createLogger('silent'), db: t.db, redis: undefined, ...parts };
}

async function indexerFor(
  t: TestDb,
  env: Record<string, string> = {},
  options: { background?: boolean; logTimestamps?: boolean } = {},
): Promise<Indexer> {
  const indexer = await startIndexer(servicesFor(t, env), {
    background: options.background ?? false,
    awaitFirstSync: false,
    logTimestamps: options.logTimestamps ?? true,
  });
  indexers.push(indexer);
  return indexer;
}

async function rollupOf(t: TestDb): Promise<CatalogueRollup> {
  const found = await readRollup(t.db);
  expect(found).not.toBeNull();
  return found!.payload;
}

const chainOf = (key: string): ChainConfig => registry.get(key)!;

async function accounts(chain: ChainConfig): Promise<Address[]> {
  return (await devnetRpc(chain.rpcUrl).request({ method: 'eth_accounts' })) as Address[];
}

interface StoredStrategy {
  strategy_hash: Hex;
  maker: Address;
  strategy: Hex;
  tokens: { address: Address; symbol: string }[];
  token_a: Address;
  token_b: Address;
  symbol_a: string;
}

async function activeStrategy(t: TestDb, chainKey: string, pair: string): Promise<StoredStrategy> {
  const { rows } = await t.db.query<StoredStrategy>(
    `SELECT strategy_hash, maker, strategy, tokens, token_a, token_b, symbol_a FROM strategies
     WHERE chain_key = $1 AND pair_key = $2 AND status = 'active' AND app = $3
     ORDER BY shipped_block, strategy_hash LIMIT 1`,
    [chainKey, pair, chainOf(chainKey).router.toLowerCase()],
  );
  expect(rows[0]).toBeDefined();
  return rows[0]!;
}

/** The taker (anvil's account 4, which the devnet approved for the router) swaps `amount` of token_a. */
async function swap(chainKey: string, s: StoredStrategy, amount: bigint, aToB = true): Promise<void> {
  const chain = chainOf(chainKey);
  const taker = (await accounts(chain))[4]!;
  const order = decodeStrategy(s.strategy)!;
  await sendAndWait(
    devnetRpc(chain.rpcUrl),
    taker,
    chain.router as Address,
    swapCalldata({
      order,
      tokenIn: aToB ? s.token_a : s.token_b,
      tokenOut: aToB ? s.token_b : s.token_a,
      amount,
      takerTraits: exactInTakerTraits(),
    }),
  );
}

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'indexer-test-'));
  // No activity bot ticks during the suite: the history is the seed plus what the tests do.
  devnet = await startSeededDevnet({ basePort: BASE_PORT, dataDir, activityMs: 3_600_000 });
  registry = new ChainRegistry(devnet.chains);
  parts = chainParts(registry, { rpcTimeoutMs: 5000 }, loadConfig({}));
  main = await freshDb();
});

afterAll(async () => {
  for (const indexer of indexers) await indexer.stop().catch(() => {});
  for (const t of databases) {
    await t.db.end().catch(() => {});
    await t.drop().catch(() => {});
  }
  await devnet?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('indexer over the devnet', () => {
  let indexer: Indexer;

  it('indexes every chain and rolls up totals equal to the per-chain sums', async () => {
    indexer = await indexerFor(main);
    const results = await indexer.syncNow();
    expect(results.map((r) => r.led)).toEqual([true, true, true]);
    for (const r of results) expect(r.logs).toBeGreaterThan(0);
    const refresh = await indexer.refreshNow();
    expect(refresh.refreshed).toBe(true);

    const rollup = await rollupOf(main);
    expect(rollup.chains.map((c) => c.chain)).toEqual(registry.keys());
    for (const c of rollup.chains) {
      expect(c.count, c.chain).toBeGreaterThan(0);
      expect(c.makers, c.chain).toBeGreaterThan(0);
      expect(c.pairs, c.chain).toBeGreaterThan(0);
      expect(c.swaps_30d, c.chain).toBeGreaterThan(0);
      expect(c.volume_1d_usd, c.chain).toBeGreaterThan(0);
      expect(c.last_activity).not.toBeNull();
    }
    const sum = (pick: (c: CatalogueRollup['chains'][number]) => number) =>
      rollup.chains.reduce((acc, c) => acc + pick(c), 0);
    expect(rollup.totals.strategies).toBe(sum((c) => c.count));
    expect(rollup.totals.chains).toBe(3);
    expect(rollup.totals.volume_1d_usd).toBeCloseTo(
      sum((c) => c.volume_1d_usd),
      6,
    );
    expect(rollup.totals.volume_7d_usd).toBeCloseTo(
      sum((c) => c.volume_7d_usd),
      6,
    );
    expect(rollup.totals.volume_30d_usd).toBeCloseTo(
      sum((c) => c.volume_30d_usd),
      6,
    );
    for (const scope of [rollup.totals, ...rollup.chains, ...rollup.pairs]) {
      expect(scope.volume_1d_usd).toBeLessThanOrEqual(scope.volume_7d_usd);
      expect(scope.volume_7d_usd).toBeLessThanOrEqual(scope.volume_30d_usd);
    }
    // Distinct counts over all chains: at most the sum, at least the largest chain's.
    expect(rollup.totals.makers).toBeLessThanOrEqual(sum((c) => c.makers));
    expect(rollup.totals.makers).toBeGreaterThanOrEqual(Math.max(...rollup.chains.map((c) => c.makers)));
    expect(rollup.pairs.map((p) => p.pair).sort()).toEqual(['EURC/USDC', 'EURC/USDT', 'USDC/USDT']);
    expect(rollup.pairs.reduce((acc, p) => acc + p.count, 0)).toBe(rollup.totals.strategies);
    expect(rollup.totals.pairs).toBe(3);

    // The roll-up agrees with the rows it summarises.
    const { rows } = await main.db.query<{ chain_key: string; open: number; swaps: number; docked: number }>(
      `SELECT chain_key, count(*) FILTER (WHERE status = 'active')::int AS open,
         count(*) FILTER (WHERE status = 'docked')::int AS docked, sum(swap_count)::int AS swaps
       FROM strategies GROUP BY chain_key`,
    );
    for (const row of rows) {
      const c = rollup.chains.find((x) => x.chain === row.chain_key)!;
      expect(c.count).toBe(row.open);
      expect(c.swaps_30d).toBe(row.swaps);
      // The seed docks some strategies on every chain.
      expect(row.docked, row.chain_key).toBeGreaterThan(0);
    }
    const makers = await main.db.query<{ chain_key: string | null; n: number }>(
      `SELECT chain_key, count(DISTINCT maker)::int AS n FROM strategies WHERE status = 'active'
       GROUP BY ROLLUP (chain_key)`,
    );
    for (const m of makers.rows) {
      const expected =
        m.chain_key === null
          ? rollup.totals.makers
          : rollup.chains.find((c) => c.chain === m.chain_key)!.makers;
      expect(expected, m.chain_key ?? 'total').toBe(m.n);
    }
    // The counts the triggers keep equal a recount from the rows.
    const kept = await catalogueSnapshot(main);
    await main.db.query('SELECT catalogue_counts_rebuild()');
    const recounted = await catalogueSnapshot(main);
    expect(kept.pairCounts).toEqual(recounted.pairCounts);
    expect(kept.makers).toEqual(recounted.makers);
  });

  it('stores strategies as the chain holds them: pairs, token order, balances', async () => {
    const { rows } = await main.db.query<{
      chain_key: string;
      strategy_hash: Hex;
      maker: Address;
      app: Address;
      strategy: Hex;
      token_a: Address;
      token_b: Address;
      symbol_a: string;
      symbol_b: string;
      pair_key: string;
      balance_a: string;
      balance_b: string;
      status: string;
      program: { name: string }[];
      decimals_a: number;
    }>(`SELECT chain_key, strategy_hash, maker, app, strategy, token_a, token_b, symbol_a, symbol_b, pair_key,
          balance_a::text, balance_b::text, status, program, decimals_a FROM strategies ORDER BY chain_key, strategy_hash`);
    expect(rows.length).toBeGreaterThan(10);
    // The stable pair's concentrated and pegged pools are indexed as their kinds.
    const kinds = await main.db.query<{ kind: string }>('SELECT DISTINCT kind FROM strategies');
    expect(kinds.rows.map((r) => r.kind)).toEqual(expect.arrayContaining(['concentrated', 'pegged', 'xyc']));
    for (const row of rows) {
      expect(strategyHashOf(row.strategy)).toBe(row.strategy_hash);
      expect(row.token_a < row.token_b).toBe(true);
      expect(row.pair_key).toBe([row.symbol_a, row.symbol_b].sort().join('/'));
      expect(row.decimals_a).toBe(6);
      // Every program the devnet ships has a curve: x·y=k (plain or concentrated) or the pegged one.
      expect(
        row.program.map((i) => i.name).some((n) => n === 'XYCSwap' || n === 'PeggedSwapGrowPriceRange2D'),
      ).toBe(true);
      if (row.status === 'docked') expect([row.balance_a, row.balance_b]).toEqual(['0', '0']);
    }
    // Live balances follow Pulled/Pushed exactly: compare with Aqua's rawBalances.
    for (const chain of registry.list()) {
      const active = rows.filter((r) => r.chain_key === chain.key && r.status === 'active');
      const results = await parts.clients.get(chain.key).multicall({
        allowFailure: false,
        contracts: active.flatMap((r) =>
          [r.token_a, r.token_b].map(
            (token) =>
              ({
                address: chain.aqua as Address,
                abi: aquaAbi,
                functionName: 'rawBalances',
                args: [r.maker, r.app, r.strategy_hash, token],
              }) as const,
          ),
        ),
      });
      active.forEach((r, i) => {
        expect([String(results[2 * i]![0]), String(results[2 * i + 1]![0])], r.strategy_hash).toEqual([
          r.balance_a,
          r.balance_b,
        ]);
      });
    }
  });

  it('counts a swap made on a devnet chain in the volume after the next sync and refresh', async () => {
    const before = await rollupOf(main);
    const s = await activeStrategy(main, 'base', 'USDC/USDT');
    const stored = await main.db.query<{ volume_usd: number; swap_count: number }>(
      "SELECT volume_usd, swap_count FROM strategies WHERE chain_key = 'base' AND strategy_hash = $1",
      [s.strategy_hash],
    );
    await swap('base', s, 1_234_560_000n); // 1,234.56 of token_a (6 decimals, priced 1 USD)
    await indexer.syncNow();
    await indexer.refreshNow();
    const after = await rollupOf(main);
    const base = (r: CatalogueRollup) => r.chains.find((c) => c.chain === 'base')!;
    expect(base(after).volume_1d_usd - base(before).volume_1d_usd).toBeCloseTo(1234.56, 2);
    expect(base(after).swaps_30d).toBe(base(before).swaps_30d + 1);
    expect(after.totals.volume_30d_usd - before.totals.volume_30d_usd).toBeCloseTo(1234.56, 2);
    const pair = (r: CatalogueRollup) => r.pairs.find((p) => p.pair === 'USDC/USDT')!;
    expect(pair(after).volume_1d_usd - pair(before).volume_1d_usd).toBeCloseTo(1234.56, 2);
    const { rows } = await main.db.query<{ volume_usd: number; swap_count: number; first: Date | null }>(
      `SELECT volume_usd, swap_count, first_volume_seen_at AS first FROM strategies
       WHERE chain_key = 'base' AND strategy_hash = $1`,
      [s.strategy_hash],
    );
    expect(rows[0]!.swap_count).toBe(stored.rows[0]!.swap_count + 1);
    expect(rows[0]!.volume_usd - stored.rows[0]!.volume_usd).toBeCloseTo(1234.56, 6);
    expect(rows[0]!.first).not.toBeNull();
    const swapRow = await main.db.query<{ volume_usd: number; amount_in: string }>(
      `SELECT volume_usd, amount_in::text FROM swaps WHERE chain_key = 'base' AND strategy_hash = $1
       ORDER BY block_number DESC LIMIT 1`,
      [s.strategy_hash],
    );
    expect(swapRow.rows[0]).toEqual({ volume_usd: 1234.56, amount_in: '1234560000' });
  });

  it('moves a docked strategy out of the open ones', async () => {
    const before = await rollupOf(main);
    const s = await activeStrategy(main, 'arc', 'EURC/USDC');
    const chain = chainOf('arc');
    await sendAndWait(
      devnetRpc(chain.rpcUrl),
      s.maker,
      chain.aqua as Address,
      dockCalldata({
        app: chain.router as Address,
        strategyHash: s.strategy_hash,
        tokens: s.tokens.map((t) => t.address),
      }),
    );
    await indexer.syncNow();
    await indexer.refreshNow();
    const { rows } = await main.db.query<{ status: string; docked_at: Date | null; balance_a: string }>(
      "SELECT status, docked_at, balance_a::text FROM strategies WHERE chain_key = 'arc' AND strategy_hash = $1",
      [s.strategy_hash],
    );
    expect(rows[0]!.status).toBe('docked');
    expect(rows[0]!.docked_at).toBeInstanceOf(Date);
    expect(rows[0]!.balance_a).toBe('0');
    const after = await rollupOf(main);
    const arc = (r: CatalogueRollup) => r.chains.find((c) => c.chain === 'arc')!;
    expect(arc(after).count).toBe(arc(before).count - 1);
    expect(after.totals.strategies).toBe(before.totals.strategies - 1);
  });

  it('keeps strategies of other apps and tokens outside the registry, under their own names', async () => {
    const chain = chainOf('baseSepolia');
    const maker = (await accounts(chain))[1]!;
    const stranger = '0x00000000000000000000000000000000000dead1' as Address;
    const app = '0x0000000000000000000000000000000000a11ce0' as Address;
    const strategy = encodeStrategy({
      maker,
      traits: AQUA_TRAITS,
      data: buildProgram([xycSwap(), salt(987_654_321n)]),
    });
    const usdc = registry.token('baseSepolia', 'USDC')!.address as Address;
    await sendAndWait(
      devnetRpc(chain.rpcUrl),
      maker,
      chain.aqua as Address,
      shipCalldata({ app, strategy, tokens: [usdc, stranger], amounts: [5_000_000n, maxUint256 >> 200n] }),
    );
    await indexer.syncNow();
    const { rows } = await main.db.query(
      `SELECT app, token_a, symbol_a, decimals_a, symbol_b, pair_key, initial_a::text, status FROM strategies
       WHERE chain_key = 'baseSepolia' AND strategy_hash = $1`,
      [strategyHashOf(strategy)],
    );
    expect(rows[0]).toEqual({
      app: app.toLowerCase(),
      token_a: stranger.toLowerCase(),
      symbol_a: '0x0000...ead1',
      decimals_a: null,
      symbol_b: 'USDC',
      pair_key: '0x0000...ead1/USDC',
      initial_a: (maxUint256 >> 200n).toString(),
      status: 'active',
    });
  });

  it('loses and duplicates nothing when stopped mid-history, restarted, and replayed', async () => {
    // More history: swaps on every chain, both directions.
    for (const chain of registry.list()) {
      const s = await activeStrategy(main, chain.key, 'USDC/USDT');
      for (let i = 0; i < 6; i++) await swap(chain.key, s, BigInt(10_000_000 + i * 1_000_001), i % 2 === 0);
    }
    const heads = new Map<string, number>();
    for (const chain of registry.list())
      heads.set(chain.key, Number(await parts.clients.get(chain.key).getBlockNumber()));
    const minHead = Math.min(...heads.values());

    // The reference: one clean run.
    const clean = await freshDb();
    await (await indexerFor(clean)).syncNow();
    const reference = await catalogueSnapshot(clean);
    expect(Object.fromEntries(reference.checkpoints.map((c) => [c.chain_key, c.last_block]))).toEqual(
      Object.fromEntries(heads),
    );

    // 1. An indexer indexes half the history and stops.
    const broken = await freshDb();
    // (This one reads block headers for the times, as with nodes whose logs carry no blockTimestamp.)
    const first = await indexerFor(broken, { INDEXER_CHUNK_BLOCKS: '3' }, { logTimestamps: false });
    const half = Math.floor(minHead / 2);
    const partial = await first.syncNow({ toBlock: half });
    expect(partial.map((r) => r.to)).toEqual([half, half, half]);
    await first.stop();
    // 2. A background indexer is stopped while it runs.
    const second = await indexerFor(
      broken,
      { INDEXER_CHUNK_BLOCKS: '2', INDEXER_POLL_MS: '20' },
      { background: true, logTimestamps: false },
    );
    for (let i = 0; i < 400; i++) {
      const { rows } = await broken.db.query<{ m: number }>(
        'SELECT min(last_block)::int AS m FROM indexer_checkpoints',
      );
      if ((rows[0]?.m ?? 0) > half + 2) break;
      await new Promise((r) => setTimeout(r, 2));
    }
    await second.stop();
    const stoppedAt = (await catalogueSnapshot(broken)).checkpoints;
    expect(stoppedAt.some((c) => c.last_block < heads.get(c.chain_key)!)).toBe(true);
    // 3. A third one finishes.
    const third = await indexerFor(broken, { INDEXER_CHUNK_BLOCKS: '7' });
    await third.syncNow();
    expect(await catalogueSnapshot(broken)).toEqual(reference);

    // 4. Replays: checkpoints moved back (to a block with its right hash), then removed altogether.
    const block = await parts.clients.get('base').getBlock({ blockNumber: BigInt(half) });
    await broken.db.query(
      "UPDATE indexer_checkpoints SET last_block = $1, last_block_hash = $2 WHERE chain_key = 'base'",
      [half, block.hash],
    );
    await broken.db.query("DELETE FROM indexer_checkpoints WHERE chain_key <> 'base'");
    const replay = await third.syncNow();
    expect(replay.find((r) => r.chain === 'base')!.from).toBe(half + 1);
    expect(replay.find((r) => r.chain === 'arc')!.from).toBe(0);
    expect(await catalogueSnapshot(broken)).toEqual(reference);
    await third.refreshNow();
    await (await indexerFor(clean)).refreshNow();
    const a = await rollupOf(broken);
    const b = await rollupOf(clean);
    expect(a.totals).toEqual(b.totals);
    expect(a.chains).toEqual(b.chains);
  });

  it('lets one process write a chain at a time', async () => {
    const t = await freshDb();
    const a = await indexerFor(t);
    const b = await indexerFor(t);
    expect((await a.syncNow()).every((r) => r.led)).toBe(true);
    expect((await b.syncNow()).some((r) => r.led)).toBe(false);
    const { rows } = await t.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND classid = $1::int::oid
         AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
      [CHAIN_LOCK_SPACE],
    );
    expect(rows[0]!.n).toBe(3);
    await a.stop();
    expect((await b.syncNow()).every((r) => r.led)).toBe(true);
  });

  it('re-indexes a chain whose genesis changed (a devnet started afresh against a kept database)', async () => {
    const t = await freshDb();
    const indexer = await indexerFor(t);
    await indexer.syncNow();
    const before = await catalogueSnapshot(t);
    await t.db.query("UPDATE indexer_checkpoints SET genesis_hash = '0xfeed' WHERE chain_key = 'arc'");
    await t.db.query("UPDATE strategies SET volume_usd = -1 WHERE chain_key = 'arc'");
    const again = await startIndexer(servicesFor(t), { background: false });
    indexers.push(again);
    await indexer.stop();
    const results = await again.syncNow();
    expect(results.find((r) => r.chain === 'arc')!.from).toBe(0);
    expect(await catalogueSnapshot(t)).toEqual(before);
  });
});

describe('the service with its embedded indexer', () => {
  it('is ready with the devnet catalogue rolled up when startService returns', async () => {
    const t = await freshDb();
    const config = loadConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      INTERNAL_TOKEN: 'test-internal-token-0123456789',
      DATABASE_URL: t.url,
      INDEXER: 'embedded',
    });
    const service = await startService(config, { chains: devnet.chains, logger: createLogger('silent') });
    try {
      const rollup = await rollupOf(t);
      expect(rollup.totals.strategies).toBeGreaterThan(0);
      expect(rollup.totals.volume_1d_usd).toBeGreaterThan(0);
      expect(rollup.chains.every((c) => c.count > 0)).toBe(true);
      const ready = await fetch(`${service.url}/readyz`);
      expect(ready.status, await ready.clone().text()).toBe(200);
    } finally {
      await service.stop();
    }
  });

  it('windows nest by construction', () => {
    const w = windowStarts(new Date('2026-01-31T10:20:00Z'));
    expect(w.d1.toISOString()).toBe('2026-01-30T11:00:00.000Z');
    expect(w.d7.getTime()).toBeLessThan(w.d1.getTime());
    expect(w.d30.getTime()).toBeLessThan(w.d7.getTime());
  });
});
