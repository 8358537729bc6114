/**
 * The catalogue roll-up (store/rollups.ts `CatalogueRollup`), computed from the strategies' counts
 * (catalogue_pair_counts and catalogue_makers, which triggers on `strategies` keep: migration 004) and
 * `volume_hourly` (at most chains × pairs × hours rows); neither `swaps` nor the million rows of
 * `strategies` is scanned. All queries read one snapshot, so the chains, pairs and totals agree.
 */

import type { ChainConfig } from '../lib/config.js';
import { amountUsd, cents, type UsdPrices } from '../lib/usd.js';
import { windowStarts } from '../lib/windows.js';
import type { Db } from '../store/db.js';
import { pullableBalances } from '../store/makerWallets.js';
import {
  CATALOGUE_ROLLUP,
  type CatalogueRollup,
  type ChainRollup,
  type PairRollup,
  writeRollup,
} from '../store/rollups.js';
import { refreshMakerRankings } from './makerRankings.js';
import { refreshMakerTvl } from './makerTvl.js';
import { refreshStrategyEarningsSort } from './strategyEarningsSort.js';

/** Advisory-lock namespace of the roll-up refresh (one refresher at a time across replicas). */
export const ROLLUP_LOCK_SPACE = 7_420_011;

const latest = (...times: (Date | string | null | undefined)[]): string | null => {
  let best: number | null = null;
  for (const t of times) {
    if (t === null || t === undefined) continue;
    const ms = new Date(t).getTime();
    if (best === null || ms > best) best = ms;
  }
  return best === null ? null : new Date(best).toISOString();
};

interface Queryable {
  query: Db['query'];
}

// Strategies and the latest ship/dock per (status, chain, pair), as the triggers of 004 keep them.
const STRATEGY_GROUPS = `
SELECT status, chain_key, nullif(pair_key, '') AS pair_key, strategies AS n, last_shipped_at AS shipped,
  last_docked_at AS docked
FROM catalogue_pair_counts WHERE chain_key = ANY($1) AND strategies > 0`;

// Distinct makers of open strategies per chain, and over all chains (chain_key NULL).
const MAKERS = `
SELECT chain_key, count(*)::int AS makers FROM catalogue_makers
WHERE chain_key = ANY($1) AND open_strategies > 0 GROUP BY chain_key
UNION ALL
SELECT NULL, count(*)::int FROM (
  SELECT maker FROM catalogue_makers WHERE chain_key = ANY($1) AND open_strategies > 0 GROUP BY maker
) AS m`;

const VOLUMES = `
SELECT chain_key, pair_key,
  coalesce(sum(volume_usd) FILTER (WHERE hour >= $2), 0)::float8 AS v1,
  coalesce(sum(volume_usd) FILTER (WHERE hour >= $3), 0)::float8 AS v7,
  coalesce(sum(volume_usd) FILTER (WHERE hour >= $4), 0)::float8 AS v30,
  coalesce(sum(swap_count) FILTER (WHERE hour >= $4), 0)::int AS swaps30,
  max(last_swap_at) AS last_swap
FROM volume_hourly WHERE chain_key = ANY($1)
GROUP BY chain_key, pair_key`;

// Live balances per (chain, pair, token), kept by the triggers of migration 014.
const BALANCES = `
SELECT chain_key, nullif(pair_key, '') AS pair_key, symbol, decimals, amount::text AS amount
FROM catalogue_pair_balances WHERE chain_key = ANY($1) AND amount <> 0`;

interface BalanceRow {
  chain_key: string;
  pair_key: string | null;
  symbol: string | null;
  decimals: number | null;
  amount: string;
}

interface GroupRow {
  status: 'active' | 'docked';
  chain_key: string;
  pair_key: string | null;
  n: number;
  shipped: Date | null;
  docked: Date | null;
}

interface VolumeRow {
  chain_key: string;
  pair_key: string;
  v1: number;
  v7: number;
  v30: number;
  swaps30: number;
  last_swap: Date | null;
}

/**
 * Computes the roll-up of the given chains (every configured chain gets an entry, empty or not).
 * `db` should be a client inside a REPEATABLE READ transaction when a consistent snapshot matters.
 */
export async function computeRollup(
  db: Queryable,
  chains: readonly Pick<ChainConfig, 'key' | 'chainId'>[],
  now = new Date(),
  prices: UsdPrices = {},
): Promise<CatalogueRollup> {
  const keys = chains.map((c) => c.key);
  const w = windowStarts(now);
  const groups = (await db.query<GroupRow>(STRATEGY_GROUPS, [keys])).rows;
  const makers = (await db.query<{ chain_key: string | null; makers: number }>(MAKERS, [keys])).rows;
  const volumes = (await db.query<VolumeRow>(VOLUMES, [keys, w.d1, w.d7, w.d30])).rows;
  const balances = (await db.query<BalanceRow>(BALANCES, [keys])).rows;
  const pullable = await pullableBalances(db, keys);

  const chainRollups = new Map<string, ChainRollup & { pairSet: Set<string> }>();
  for (const c of chains) {
    chainRollups.set(c.key, {
      chain: c.key,
      chain_id: c.chainId,
      count: 0,
      makers: 0,
      pairs: 0,
      volume_1d_usd: 0,
      volume_7d_usd: 0,
      volume_30d_usd: 0,
      swaps_30d: 0,
      tvl_usd: 0,
      pullable_usd: 0,
      last_activity: null,
      pairSet: new Set(),
    });
  }
  const pairs = new Map<string, PairRollup & { chainSet: Set<string> }>();
  const pairOf = (pair: string) => {
    let p = pairs.get(pair);
    if (!p) {
      p = {
        pair,
        count: 0,
        chains: [],
        volume_1d_usd: 0,
        volume_7d_usd: 0,
        volume_30d_usd: 0,
        tvl_usd: 0,
        last_activity: null,
        chainSet: new Set(),
      };
      pairs.set(pair, p);
    }
    return p;
  };
  const openPairs = new Set<string>();

  for (const g of groups) {
    const c = chainRollups.get(g.chain_key);
    if (!c) continue;
    c.last_activity = latest(c.last_activity, g.shipped, g.docked);
    if (g.pair_key !== null) {
      const p = pairOf(g.pair_key);
      p.last_activity = latest(p.last_activity, g.shipped, g.docked);
    }
    if (g.status !== 'active') continue;
    c.count += g.n;
    if (g.pair_key === null) continue;
    c.pairSet.add(g.pair_key);
    openPairs.add(g.pair_key);
    const p = pairOf(g.pair_key);
    p.count += g.n;
    p.chainSet.add(g.chain_key);
  }
  let totalMakers = 0;
  for (const m of makers) {
    if (m.chain_key === null) totalMakers = m.makers;
    else {
      const c = chainRollups.get(m.chain_key);
      if (c) c.makers = m.makers;
    }
  }
  for (const v of volumes) {
    const c = chainRollups.get(v.chain_key);
    if (!c) continue;
    c.volume_1d_usd += v.v1;
    c.volume_7d_usd += v.v7;
    c.volume_30d_usd += v.v30;
    c.swaps_30d += v.swaps30;
    c.last_activity = latest(c.last_activity, v.last_swap);
    const p = pairOf(v.pair_key);
    p.volume_1d_usd += v.v1;
    p.volume_7d_usd += v.v7;
    p.volume_30d_usd += v.v30;
    p.last_activity = latest(p.last_activity, v.last_swap);
    if (v.v30 > 0) p.chainSet.add(v.chain_key);
  }

  for (const b of balances) {
    const usd = amountUsd(prices, b);
    const c = chainRollups.get(b.chain_key);
    if (!c) continue;
    c.tvl_usd = (c.tvl_usd ?? 0) + usd;
    // A pair's TVL is listed with the pair (open strategies or volume), not on its own.
    const p = b.pair_key === null ? undefined : pairs.get(b.pair_key);
    if (p) p.tvl_usd = (p.tvl_usd ?? 0) + usd;
  }

  for (const b of pullable) {
    const c = chainRollups.get(b.chain_key);
    if (c) c.pullable_usd = (c.pullable_usd ?? 0) + amountUsd(prices, b);
  }

  const chainList: ChainRollup[] = [...chainRollups.values()].map(({ pairSet, ...c }) => ({
    ...c,
    tvl_usd: cents(c.tvl_usd ?? 0),
    pullable_usd: cents(c.pullable_usd ?? 0),
    pairs: pairSet.size,
    volume_1d_usd: cents(c.volume_1d_usd),
    volume_7d_usd: cents(c.volume_7d_usd),
    volume_30d_usd: cents(c.volume_30d_usd),
  }));
  // A pair is listed while it has open strategies or volume in the 30-day window.
  const pairList: PairRollup[] = [...pairs.values()]
    .filter((p) => p.count > 0 || p.volume_30d_usd > 0)
    .map(({ chainSet, ...p }) => ({
      ...p,
      chains: [...chainSet].sort(),
      tvl_usd: cents(p.tvl_usd ?? 0),
      volume_1d_usd: cents(p.volume_1d_usd),
      volume_7d_usd: cents(p.volume_7d_usd),
      volume_30d_usd: cents(p.volume_30d_usd),
    }))
    .sort((a, b) => b.count - a.count || b.volume_30d_usd - a.volume_30d_usd || a.pair.localeCompare(b.pair));

  const sum = (pick: (c: ChainRollup) => number) => chainList.reduce((acc, c) => acc + pick(c), 0);
  return {
    totals: {
      strategies: sum((c) => c.count),
      makers: totalMakers,
      pairs: openPairs.size,
      chains: chainList.length,
      volume_1d_usd: cents(sum((c) => c.volume_1d_usd)),
      volume_7d_usd: cents(sum((c) => c.volume_7d_usd)),
      volume_30d_usd: cents(sum((c) => c.volume_30d_usd)),
      tvl_usd: cents(sum((c) => c.tvl_usd ?? 0)),
      pullable_usd: cents(sum((c) => c.pullable_usd ?? 0)),
      last_activity: latest(...chainList.map((c) => c.last_activity)),
    },
    chains: chainList,
    pairs: pairList,
  };
}

export interface RefreshResult {
  refreshed: boolean;
  /** Why nothing was written: another replica is refreshing, or the roll-up is fresh enough. */
  skipped?: 'locked' | 'fresh';
  ms: number;
  rollup?: CatalogueRollup;
  /** Makers whose TVL was priced again (their balances changed since): indexer/makerTvl.ts. */
  makersPriced?: number;
  /** Rows of the makers leaderboard whose figures changed, when it was due: indexer/makerRankings.ts. */
  makersRanked?: number;
  /** Strategies whose earnings sort keys changed, when they were due: indexer/strategyEarningsSort.ts. */
  strategiesEarningsSorted?: number;
}

/**
 * Computes and writes the roll-up. Replicas take turns: a refresh runs under a transaction-level
 * advisory lock, and with `minIntervalMs` it is skipped when another one wrote the roll-up less than
 * that long ago.
 */
export async function refreshRollup(
  db: Db,
  chains: readonly (Pick<ChainConfig, 'key' | 'chainId'> & Partial<Pick<ChainConfig, 'tokens'>>)[],
  options: {
    minIntervalMs?: number;
    prices?: UsdPrices;
    /** Also the leaderboard and the list's earnings keys now, whenever they last ran (after a rewind). */
    everything?: boolean;
  } = {},
): Promise<RefreshResult> {
  const started = performance.now();
  const client = await db.connect();
  const done = (result: Omit<RefreshResult, 'ms'>): RefreshResult => ({
    ...result,
    ms: Math.round(performance.now() - started),
  });
  let result: Omit<RefreshResult, 'ms'> = { refreshed: false };
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
    try {
      const { rows } = await client.query<{ locked: boolean }>(
        'SELECT pg_try_advisory_xact_lock($1, hashtext($2)) AS locked',
        [ROLLUP_LOCK_SPACE, CATALOGUE_ROLLUP],
      );
      if (!rows[0]?.locked) return done({ refreshed: false, skipped: 'locked' });
      if (options.minIntervalMs !== undefined) {
        const age = await client.query<{ age_ms: number }>(
          'SELECT (extract(epoch FROM clock_timestamp() - refreshed_at) * 1000)::float8 AS age_ms FROM rollups WHERE name = $1',
          [CATALOGUE_ROLLUP],
        );
        const ageMs = age.rows[0]?.age_ms;
        if (ageMs !== undefined && ageMs < options.minIntervalMs)
          return done({ refreshed: false, skipped: 'fresh' });
      }
      // The distinct makers over all chains are hashed: room for it in memory.
      await client.query("SET LOCAL work_mem = '64MB'");
      const rollup = await computeRollup(client, chains, new Date(), options.prices ?? {});
      // The chains' data is complete up to the oldest of their indexed times (a backfill: far back).
      const asOf = await client.query<{ at: Date | null }>(
        'SELECT min(indexed_through_at) AS at FROM indexer_checkpoints WHERE chain_key = ANY($1)',
        [chains.map((c) => c.key)],
      );
      // Written while the lock is held, so two replicas never interleave compute and write.
      await writeRollup(db, rollup, CATALOGUE_ROLLUP, asOf.rows[0]?.at ?? null);
      result = { refreshed: true, rollup };
    } finally {
      await client.query('COMMIT').catch(() => {});
    }
    // Outside the snapshot: it updates rows the indexer writes (READ COMMITTED retries nothing).
    if (result.refreshed) {
      result.makersPriced = await refreshMakerTvl(client, options.prices ?? {});
      const tokens = chains.flatMap((c) => (c.tokens ?? []).map((t) => ({ chain: c.key, ...t })));
      const due = options.everything ? { minIntervalMs: 0 } : {};
      const ranked = await refreshMakerRankings(client, tokens, options.prices ?? {}, due);
      if (ranked !== null) result.makersRanked = ranked;
      const sorted = await refreshStrategyEarningsSort(client, tokens, options.prices ?? {}, due);
      if (sorted !== null) result.strategiesEarningsSorted = sorted;
    }
    return done(result);
  } finally {
    client.release();
  }
}
