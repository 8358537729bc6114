/** The stats roll-up of the catalogue and the orderings of its pairs. */

import type { CatalogueRollup, ChainRollup, PairRollup } from '../../store/rollups.js';
import type { GraphQLContext } from '../context.js';

/** What `stats.source` says the numbers are. */
export const STATS_SOURCE = 'indexer:aqua-swapvm-events';

export interface StatsView {
  source: string;
  rollupUpdatedAt: Date | null;
  /** When the data is complete up to (store/rollups.ts `dataAsOf`); null before the first roll-up. */
  dataAsOf: Date | null;
  totals: CatalogueRollup['totals'];
  chains: ChainRollup[];
  pairs: PairRollup[];
}

export const EMPTY_TOTALS: CatalogueRollup['totals'] = {
  strategies: 0,
  makers: 0,
  pairs: 0,
  chains: 0,
  volume_1d_usd: 0,
  volume_7d_usd: 0,
  volume_30d_usd: 0,
  tvl_usd: 0,
  last_activity: null,
};

/** The catalogue roll-up; before the first refresh, zeros and a null `rollupUpdatedAt`. */
export async function getStats(ctx: GraphQLContext): Promise<StatsView> {
  const rollup = await ctx.loaders.rollup.load('catalogue');
  if (!rollup)
    return {
      source: STATS_SOURCE,
      rollupUpdatedAt: null,
      dataAsOf: null,
      totals: EMPTY_TOTALS,
      chains: [],
      pairs: [],
    };
  const { payload, refreshedAt, dataAsOf } = rollup;
  return {
    source: STATS_SOURCE,
    rollupUpdatedAt: refreshedAt,
    dataAsOf,
    totals: { ...EMPTY_TOTALS, ...payload.totals },
    chains: payload.chains ?? [],
    pairs: payload.pairs ?? [],
  };
}

/** Whole seconds since `at` (the roll-up's data time; never negative: clocks of two hosts may differ). */
export function freshnessSeconds(refreshedAt: Date | string | null, now = Date.now()): number | null {
  if (refreshedAt === null) return null;
  const at = typeof refreshedAt === 'string' ? Date.parse(refreshedAt) : refreshedAt.getTime();
  return Number.isNaN(at) ? null : Math.max(0, Math.floor((now - at) / 1000));
}

export function topPairsByVolume(pairs: readonly PairRollup[], limit: number): PairRollup[] {
  return [...pairs]
    .sort((a, b) => b.volume_30d_usd - a.volume_30d_usd || b.count - a.count || a.pair.localeCompare(b.pair))
    .slice(0, limit);
}

export function topPairsByPositions(pairs: readonly PairRollup[], limit: number): PairRollup[] {
  return [...pairs]
    .sort((a, b) => b.count - a.count || b.volume_30d_usd - a.volume_30d_usd || a.pair.localeCompare(b.pair))
    .slice(0, limit);
}
