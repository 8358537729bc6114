/**
 * Volume time series from the hourly roll-ups (migration 014), never from `swaps`: the filters pick
 * the smallest table that answers them. A series over N buckets reads at most N hours × (chains ×
 * pairs) rows of volume_hourly, or N hours of one maker or strategy.
 */
import { createHash } from 'node:crypto';
import { prepared } from './catalogue.js';
import type { Db } from './db.js';

export type Granularity = 'hour' | 'day';

export interface SeriesFilter {
  chain: string | null;
  /** Stored pair keys ("USDC/USDT"), any of them; null for every pair. */
  pairs: readonly string[] | null;
  /** Lower-case address. */
  maker: string | null;
  /** Lower-case strategy hash. */
  strategy: string | null;
}

export interface BucketRow {
  start: Date;
  volume_usd: number;
  swap_count: number;
  maker_fees_usd: number;
  protocol_fees_usd: number;
}

const BUCKET: Record<Granularity, string> = {
  hour: 'h.hour',
  day: `date_trunc('day', h.hour AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'`,
};

/**
 * The non-empty buckets of [from, to) (both on bucket boundaries), oldest first. Which table:
 * a strategy → strategy_hourly (pair and maker, when given too, must be the strategy's own); a maker
 * and a pair → the maker's strategies of that pair in strategy_hourly; a maker → maker_hourly;
 * otherwise volume_hourly (chain, pair).
 */
export async function volumeBuckets(
  db: Db,
  granularity: Granularity,
  from: Date,
  to: Date,
  filter: SeriesFilter,
): Promise<BucketRow[]> {
  const values: unknown[] = [from, to];
  const where = ['h.hour >= $1', 'h.hour < $2'];
  const add = (sql: (n: string) => string, value: unknown) => {
    values.push(value);
    where.push(sql(`$${values.length}`));
  };
  let from_: string;
  if (filter.strategy !== null) {
    from_ = 'strategy_hourly h';
    add((n) => `h.strategy_hash = ${n}`, filter.strategy);
    if (filter.chain !== null) add((n) => `h.chain_key = ${n}`, filter.chain);
    if (filter.pairs !== null || filter.maker !== null) {
      const match: string[] = [];
      if (filter.pairs !== null) {
        values.push(filter.pairs);
        match.push(`s.pair_key = ANY($${values.length}::text[])`);
      }
      if (filter.maker !== null) {
        values.push(filter.maker);
        match.push(`s.maker = $${values.length}`);
      }
      where.push(
        `EXISTS (SELECT 1 FROM strategies s WHERE s.chain_key = h.chain_key AND s.strategy_hash = h.strategy_hash AND ${match.join(' AND ')})`,
      );
    }
  } else if (filter.maker !== null && filter.pairs !== null) {
    from_ =
      'strategies s JOIN strategy_hourly h ON h.strategy_hash = s.strategy_hash AND h.chain_key = s.chain_key';
    add((n) => `s.maker = ${n}`, filter.maker);
    add((n) => `s.pair_key = ANY(${n}::text[])`, filter.pairs);
    if (filter.chain !== null) add((n) => `s.chain_key = ${n}`, filter.chain);
  } else if (filter.maker !== null) {
    from_ = 'maker_hourly h';
    add((n) => `h.maker = ${n}`, filter.maker);
    if (filter.chain !== null) add((n) => `h.chain_key = ${n}`, filter.chain);
  } else {
    from_ = 'volume_hourly h';
    if (filter.chain !== null) add((n) => `h.chain_key = ${n}`, filter.chain);
    if (filter.pairs !== null) add((n) => `h.pair_key = ANY(${n}::text[])`, filter.pairs);
  }
  const text = `SELECT ${BUCKET[granularity]} AS start, sum(h.volume_usd)::float8 AS volume_usd,
       sum(h.swap_count)::int AS swap_count, sum(h.maker_fees_usd)::float8 AS maker_fees_usd,
       sum(h.protocol_fees_usd)::float8 AS protocol_fees_usd
     FROM ${from_} WHERE ${where.join(' AND ')}
     GROUP BY 1 ORDER BY 1`;
  // One named statement per shape (a few dozen at most: granularity × which filters are given).
  const name = `series_${createHash('sha1').update(text).digest('hex').slice(0, 16)}`;
  const { rows } = await prepared<BucketRow>(db, name, text, values);
  return rows;
}

/** A bucket of one strategy's series (strategyBuckets). */
export interface StrategyBucketRow extends BucketRow {
  chain_key: string;
  strategy_hash: string;
}

/**
 * The non-empty buckets of [from, to) of each of `strategies` at once, from strategy_hourly (its
 * primary key per strategy): `Strategy.activity` over a page of strategies is one statement, not one
 * per strategy.
 */
export async function strategyBuckets(
  db: Db,
  granularity: Granularity,
  from: Date,
  to: Date,
  strategies: ReadonlyArray<{ chain: string; hash: string }>,
): Promise<StrategyBucketRow[]> {
  const text = `SELECT h.chain_key, h.strategy_hash, ${BUCKET[granularity]} AS start,
       sum(h.volume_usd)::float8 AS volume_usd, sum(h.swap_count)::int AS swap_count,
       sum(h.maker_fees_usd)::float8 AS maker_fees_usd, sum(h.protocol_fees_usd)::float8 AS protocol_fees_usd
     FROM unnest($3::text[], $4::text[]) AS k(chain_key, strategy_hash)
     JOIN strategy_hourly h ON h.strategy_hash = k.strategy_hash AND h.chain_key = k.chain_key
    WHERE h.hour >= $1 AND h.hour < $2
    GROUP BY 1, 2, 3 ORDER BY 3`;
  const { rows } = await prepared<StrategyBucketRow>(db, `strategy_buckets_${granularity}`, text, [
    from,
    to,
    strategies.map((s) => s.chain),
    strategies.map((s) => s.hash),
  ]);
  return rows;
}
