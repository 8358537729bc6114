/**
 * The sort keys of the strategy list by earnings (strategies.fees_7d_usd and apy_7d, migration 028):
 * per strategy with fees in the last 7 days, its maker fees in USD and its APY, computed from the
 * earnings buckets as resolvers/earnings.ts computes a strategy's 7-day window (ending, like it, at
 * the chain's checkpoint). At most every
 * EARNINGS_SORT_INTERVAL_MS (after a roll-up refresh): the values move with the clock, and each change
 * re-renders a strategy's list entry, so they are not rewritten at every refresh. Only rows whose
 * rounded values changed are written; a strategy whose fees left the window goes back to none.
 */
import type pg from 'pg';
import { windowStarts } from '../lib/windows.js';
import {
  chainEndsCte,
  pricedTokenParams,
  pricedTokensCte,
  type RankedToken,
  servedChainEnds,
} from './makerRankings.js';
import { isDue, markRun } from './refreshMarker.js';

export const EARNINGS_SORT_INTERVAL_MS = 15 * 60_000;
/** The `rollups` row whose refreshed_at says when the keys were last computed. */
const MARKER = 'strategy_earnings_sort';

// $1 the earliest window start of any chain (an index bound), $2 now, $3 and $4 the chains' checkpoints
// (keys and times), $5..$10 the priced tokens. A chain's window ends at its checkpoint, as the detail's
// `earnings` does, and starts 167 hours before that hour (a chain without one, whose rows no indexer
// wrote, ends now here, at the strategy's latest event there).
const SORT_KEYS = `
WITH ${pricedTokensCte(5)}, ${chainEndsCte(3, "interval '167 hours'")}, now_window AS (
  SELECT $2::timestamptz AS until,
    to_timestamp(floor(extract(epoch FROM $2::timestamptz) / 3600) * 3600) - interval '167 hours' AS start
), buckets AS (
  SELECT h.chain_key, h.strategy_hash, h.token, sum(h.maker_fees) AS mf,
    sum(h.delta_seconds + extract(epoch FROM h.hour - coalesce(e.start, n.start)) * h.delta) AS moment
  FROM strategy_earnings_hourly h CROSS JOIN now_window n LEFT JOIN ends e ON e.chain_key = h.chain_key
  WHERE h.hour >= $1::timestamptz AND h.hour >= coalesce(e.start, n.start)
  GROUP BY 1, 2, 3
), earning AS (
  SELECT chain_key, strategy_hash FROM buckets GROUP BY 1, 2 HAVING sum(mf) > 0
), per_token AS (
  SELECT s.chain_key, s.strategy_hash, v.token, coalesce(b.mf, 0) AS mf,
    v.balance * extract(epoch FROM coalesce(w.until, n.until) - coalesce(w.start, n.start)) - coalesce(b.moment, 0)
      AS balance_seconds
  FROM earning e
  JOIN strategies s ON s.chain_key = e.chain_key AND s.strategy_hash = e.strategy_hash
  CROSS JOIN now_window n LEFT JOIN ends w ON w.chain_key = s.chain_key
  CROSS JOIN LATERAL (VALUES (s.token_a, s.balance_a), (s.token_b, s.balance_b)) AS v(token, balance)
  LEFT JOIN buckets b ON b.chain_key = s.chain_key AND b.strategy_hash = s.strategy_hash AND b.token = v.token
  WHERE v.token IS NOT NULL AND v.balance IS NOT NULL
), valued AS (
  SELECT p.chain_key, p.strategy_hash,
    round(sum(p.mf::float8 * t.usd_per_unit)::numeric, 2)::float8 AS fees,
    sum(p.mf::float8 * t.usd_per_unit) AS fees_exact,
    sum(p.balance_seconds::float8 * t.usd_per_unit) AS liquidity_seconds
  FROM per_token p JOIN tokens t ON t.chain_key = p.chain_key AND t.token = p.token
  GROUP BY 1, 2
), keys AS (
  SELECT chain_key, strategy_hash, fees,
    CASE WHEN liquidity_seconds > 0 AND fees_exact > 0
      THEN round((fees_exact / liquidity_seconds * 365 * 86400 * 100)::numeric, 2)::float8 END AS apy
  FROM valued
  -- The strategies that had keys and have none now go back to none.
  UNION ALL
  SELECT s.chain_key, s.strategy_hash, 0, NULL
  FROM strategies s
  WHERE (s.apy_7d IS NOT NULL OR s.fees_7d_usd <> 0)
    AND NOT EXISTS (SELECT 1 FROM valued v WHERE v.chain_key = s.chain_key AND v.strategy_hash = s.strategy_hash)
)
UPDATE strategies s SET fees_7d_usd = k.fees, apy_7d = k.apy
FROM keys k
WHERE s.chain_key = k.chain_key AND s.strategy_hash = k.strategy_hash
  AND (s.fees_7d_usd, s.apy_7d) IS DISTINCT FROM (k.fees, k.apy)`;

/**
 * Computes the keys at `now` when the last computation is older than `minIntervalMs` (0: always);
 * returns the strategies written, or null when it was not due.
 */
export async function refreshStrategyEarningsSort(
  client: pg.ClientBase,
  tokens: readonly RankedToken[],
  prices: Readonly<Record<string, number>>,
  options: { minIntervalMs?: number; now?: Date } = {},
): Promise<number | null> {
  const now = options.now ?? new Date();
  const minIntervalMs = options.minIntervalMs ?? EARNINGS_SORT_INTERVAL_MS;
  if (!(await isDue(client, MARKER, now, minIntervalMs))) return null;
  const ends = await servedChainEnds(client, tokens);
  const earliest = Math.min(now.getTime(), ...ends.map((e) => e.until.getTime()));
  const { rowCount } = await client.query(SORT_KEYS, [
    windowStarts(new Date(earliest)).d7,
    now,
    ends.map((e) => e.chain_key),
    ends.map((e) => e.until),
    ...pricedTokenParams(tokens, prices),
  ]);
  await markRun(client, MARKER, now);
  return rowCount ?? 0;
}
