/**
 * The makers leaderboard (maker_rankings, migration 027): per period of 1, 7 and 30 days and per
 * maker, its volume (maker_hourly), the fees its strategies earned and the APY they give (the
 * earnings buckets, priced and computed as resolvers/earnings.ts does for one maker), and its TVL as
 * the makers list orders it (maker_activity.tvl_usd). Written after a roll-up refresh, at most every
 * RANKINGS_INTERVAL_MS: windows slide with the clock, so every maker is computed again (over 150,000
 * makers and 10M swaps: ~7 s a period, bench:earnings), and only rows whose figures changed are written.
 */
import type pg from 'pg';
import { windowStarts } from '../lib/windows.js';
import { RANKING_PERIODS, type RankingPeriod } from '../store/makerRankings.js';
import { isDue, markRun } from './refreshMarker.js';

export const RANKINGS_INTERVAL_MS = 5 * 60_000;
/** The `rollups` row whose refreshed_at says when the leaderboard was last computed. */
const MARKER = 'maker_rankings';

export interface RankedToken {
  chain: string;
  address: string;
  symbol: string;
  decimals: number;
}

/**
 * The CTE `tokens(chain_key, token, usd_per_unit)`: the listed tokens that have a price, from the six
 * parameters `pricedTokenParams` gives, starting at `$first`.
 */
export function pricedTokensCte(first: number): string {
  const $ = (i: number) => `$${first + i}`;
  return `tokens AS (
  SELECT t.chain_key, t.token, p.usd / power(10::float8, t.decimals) AS usd_per_unit
  FROM unnest(${$(0)}::text[], ${$(1)}::text[], ${$(2)}::text[], ${$(3)}::int[]) AS t(chain_key, token, symbol, decimals)
  JOIN unnest(${$(4)}::text[], ${$(5)}::float8[]) AS p(symbol, usd) ON p.symbol = upper(t.symbol)
)`;
}

/**
 * Where each served chain's windows end: its checkpoint (the block time up to which its events are all
 * stored). Only the chains the tokens list: a chain no longer served keeps its old checkpoint row, which
 * would widen every chain's scan. A chain without a checkpoint is absent (its windows end now).
 */
export async function servedChainEnds(
  client: pg.ClientBase,
  tokens: readonly RankedToken[],
): Promise<{ chain_key: string; until: Date }[]> {
  const { rows } = await client.query<{ chain_key: string; until: Date }>(
    'SELECT chain_key, indexed_through_at AS until FROM indexer_checkpoints WHERE indexed_through_at IS NOT NULL AND chain_key = ANY($1)',
    [[...new Set(tokens.map((t) => t.chain))]],
  );
  return rows;
}

/**
 * The CTE `ends(chain_key, until, start)`: per chain of `servedChainEnds` (keys at `$first`, times at the
 * next parameter) where its window ends, and where it starts, `hoursBefore` (an SQL interval) before the
 * hour of that end.
 */
export function chainEndsCte(first: number, hoursBefore: string): string {
  return `ends AS (
  SELECT chain_key, until, to_timestamp(floor(extract(epoch FROM until) / 3600) * 3600) - ${hoursBefore} AS start
  FROM unnest($${first}::text[], $${first + 1}::timestamptz[]) AS e(chain_key, until)
)`;
}

/** The six parameters of `pricedTokensCte`. */
export function pricedTokenParams(
  tokens: readonly RankedToken[],
  prices: Readonly<Record<string, number>>,
): unknown[] {
  return [
    tokens.map((t) => t.chain),
    tokens.map((t) => t.address.toLowerCase()),
    tokens.map((t) => t.symbol),
    tokens.map((t) => t.decimals),
    Object.keys(prices).map((s) => s.toUpperCase()),
    Object.values(prices),
  ];
}

// $1 period, $2 window start, $3 now, $4 and $5 the chains' checkpoints (keys and times), $6 the hours of the
// period before its last, $7 the earliest earnings window start of any chain (an index bound), $8..$13 the
// priced tokens. Volume counts over the window ending now, as the maker view's activity; fees and APY over
// the window ending at the chain's checkpoint, as the maker view's earnings (a chain without one, whose
// rows no indexer wrote, ends now here, at the maker's latest event there).
const RANK = `
WITH ${pricedTokensCte(8)}, ${chainEndsCte(4, 'make_interval(hours => $6)')}, buckets AS (
  SELECT h.chain_key, h.maker, h.token, sum(h.maker_fees) AS mf, sum(h.protocol_fees) AS pf,
    sum(h.delta_seconds + extract(epoch FROM h.hour - coalesce(e.start, $2::timestamptz)) * h.delta) AS moment
  FROM maker_earnings_hourly h LEFT JOIN ends e ON e.chain_key = h.chain_key
  WHERE h.hour >= $7::timestamptz AND h.hour >= coalesce(e.start, $2::timestamptz)
  GROUP BY 1, 2, 3
), balances AS (
  SELECT chain_key, maker, token, sum(amount) AS amount FROM catalogue_balances GROUP BY 1, 2, 3
), valued AS (
  SELECT coalesce(k.chain_key, n.chain_key) AS chain_key, coalesce(k.maker, n.maker) AS maker,
    sum(coalesce(k.mf, 0)::float8 * t.usd_per_unit) AS maker_fees,
    sum(coalesce(k.pf, 0)::float8 * t.usd_per_unit) AS protocol_fees,
    sum((coalesce(n.amount, 0) * extract(epoch FROM coalesce(e.until, $3::timestamptz) - coalesce(e.start, $2::timestamptz))
      - coalesce(k.moment, 0))::float8 * t.usd_per_unit) AS liquidity_seconds
  FROM buckets k
  FULL JOIN balances n ON n.chain_key = k.chain_key AND n.maker = k.maker AND n.token = k.token
  JOIN tokens t ON t.chain_key = coalesce(k.chain_key, n.chain_key) AND t.token = coalesce(k.token, n.token)
  LEFT JOIN ends e ON e.chain_key = coalesce(k.chain_key, n.chain_key)
  GROUP BY 1, 2
), volume AS (
  SELECT chain_key, maker, sum(volume_usd) AS volume, sum(swap_count)::int AS swaps
  FROM maker_hourly WHERE hour >= $2::timestamptz GROUP BY 1, 2
)
INSERT INTO maker_rankings AS r (period, chain_key, maker, volume_usd, swap_count, maker_fees_usd, protocol_fees_usd,
  tvl_usd, apy, ranked_at)
SELECT $1, a.chain_key, a.maker, round(coalesce(v.volume, 0)::numeric, 2)::float8, coalesce(v.swaps, 0),
  round(coalesce(x.maker_fees, 0)::numeric, 2)::float8, round(coalesce(x.protocol_fees, 0)::numeric, 2)::float8,
  a.tvl_usd,
  CASE WHEN x.liquidity_seconds > 0
    THEN round((x.maker_fees / x.liquidity_seconds * 365 * 86400 * 100)::numeric, 2)::float8 END,
  $3::timestamptz
FROM maker_activity a
LEFT JOIN volume v ON v.chain_key = a.chain_key AND v.maker = a.maker
LEFT JOIN valued x ON x.chain_key = a.chain_key AND x.maker = a.maker
ON CONFLICT (period, chain_key, maker) DO UPDATE
SET volume_usd = EXCLUDED.volume_usd, swap_count = EXCLUDED.swap_count, maker_fees_usd = EXCLUDED.maker_fees_usd,
  protocol_fees_usd = EXCLUDED.protocol_fees_usd, tvl_usd = EXCLUDED.tvl_usd, apy = EXCLUDED.apy,
  ranked_at = EXCLUDED.ranked_at
WHERE (r.volume_usd, r.swap_count, r.maker_fees_usd, r.protocol_fees_usd, r.tvl_usd, r.apy)
  IS DISTINCT FROM (EXCLUDED.volume_usd, EXCLUDED.swap_count, EXCLUDED.maker_fees_usd, EXCLUDED.protocol_fees_usd,
    EXCLUDED.tvl_usd, EXCLUDED.apy)`;

/**
 * Ranks every maker over each period at `now` when the last ranking is older than `minIntervalMs`
 * (0: always); returns the rows written (changed), or null when it was not due.
 */
export async function refreshMakerRankings(
  client: pg.ClientBase,
  tokens: readonly RankedToken[],
  prices: Readonly<Record<string, number>>,
  options: { minIntervalMs?: number; now?: Date } = {},
): Promise<number | null> {
  const now = options.now ?? new Date();
  if (!(await isDue(client, MARKER, now, options.minIntervalMs ?? RANKINGS_INTERVAL_MS))) return null;
  const ends = await servedChainEnds(client, tokens);
  const w = windowStarts(now);
  const earliest = windowStarts(new Date(Math.min(now.getTime(), ...ends.map((e) => e.until.getTime()))));
  const starts: Record<RankingPeriod, [Date, Date, number]> = {
    '1d': [w.d1, earliest.d1, 23],
    '7d': [w.d7, earliest.d7, 167],
    '30d': [w.d30, earliest.d30, 719],
  };
  let written = 0;
  for (const period of RANKING_PERIODS) {
    const [start, earliestStart, hours] = starts[period];
    const { rowCount } = await client.query(RANK, [
      period,
      start,
      now,
      ends.map((e) => e.chain_key),
      ends.map((e) => e.until),
      hours,
      earliestStart,
      ...pricedTokenParams(tokens, prices),
    ]);
    written += rowCount ?? 0;
  }
  await markRun(client, MARKER, now);
  return written;
}
