/**
 * Reads of the makers leaderboard (maker_rankings, migration 027; written by indexer/makerRankings.ts):
 * one keyset page, highest first, from the indexes of the table.
 */
import { prepared } from './catalogue.js';
import type { Db } from './db.js';

export const RANKING_PERIODS = ['1d', '7d', '30d'] as const;
export type RankingPeriod = (typeof RANKING_PERIODS)[number];
export type RankingSort = 'apy' | 'volume' | 'fees' | 'tvl';

export interface RankingRow {
  period: RankingPeriod;
  chain_key: string;
  maker: string;
  volume_usd: number;
  swap_count: number;
  maker_fees_usd: number;
  protocol_fees_usd: number;
  tvl_usd: number;
  apy: number | null;
  ranked_at: Date;
  /** The value the page is ordered by (a null APY orders as -1, after every other). */
  sort_value: number;
}

/** Where a page starts: the sort value, chain and maker of the last row shown. */
export interface RankingPosition {
  value: number;
  chain: string;
  maker: string;
}

// The indexed expressions of migration 027: one per sort, the same with the chain first.
const SORT_EXPRESSION: Record<RankingSort, string> = {
  apy: 'coalesce(r.apy, -1)',
  volume: 'r.volume_usd',
  fees: 'r.maker_fees_usd',
  tvl: 'r.tvl_usd',
};

/** One page of `limit + 1` rows (so the caller knows whether another follows), highest first. */
export async function rankingPage(
  db: Db,
  params: {
    period: RankingPeriod;
    sort: RankingSort;
    chain: string | null;
    after: RankingPosition | null;
    limit: number;
  },
): Promise<RankingRow[]> {
  const value = SORT_EXPRESSION[params.sort];
  const values: unknown[] = [params.period];
  const where = ['r.period = $1'];
  if (params.chain !== null) {
    values.push(params.chain);
    where.push(`r.chain_key = $${values.length}`);
  }
  if (params.after) {
    values.push(params.after.value, params.after.chain, params.after.maker);
    const n = values.length;
    where.push(`(${value}, r.chain_key, r.maker) < ($${n - 2}::float8, $${n - 1}, $${n})`);
  }
  values.push(params.limit + 1);
  const { rows } = await prepared<RankingRow>(
    db,
    `maker_rankings_${params.sort}_${params.chain === null ? 'all' : 'chain'}_${params.after ? 'after' : 'first'}`,
    `SELECT r.period, r.chain_key, r.maker, r.volume_usd, r.swap_count, r.maker_fees_usd, r.protocol_fees_usd,
       r.tvl_usd, r.apy, r.ranked_at, ${value} AS sort_value
     FROM maker_rankings r WHERE ${where.join(' AND ')}
     ORDER BY ${value} DESC, r.chain_key DESC, r.maker DESC LIMIT $${values.length}`,
    values,
  );
  return rows;
}
