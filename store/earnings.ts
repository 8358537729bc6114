/**
 * Reads of the earnings buckets (migration 027): per window and token, the fees earned in base units
 * and the time-integral of the virtual balance over the window, from at most one row per (token,
 * hour) of the window; nothing scans `swaps` or `balance_changes`.
 */
import { prepared } from './catalogue.js';
import type { Db } from './db.js';

export interface EarningsRow {
  /** Index of the window in the `starts` given (0-based). */
  window: number;
  token: string;
  /** Base units of the token, as numeric text. */
  maker_fees: string;
  protocol_fees: string;
  /** ∫ balance dt over [start, now], in base unit·seconds (numeric text). */
  balance_seconds: string;
}

// ∫_s^now b dt = b_now·(now − s) − Σ_{hour ≥ s} (delta_seconds + (hour − s)·delta): the buckets hold the
// deltas of each hour and their moments about its start. `now` and the window starts are parameters,
// so the windows agree with each other and with the caller's clock.
const windowsOf = (buckets: string, owner: string, balances: string) => `
WITH w AS (SELECT s, i::int - 1 AS i FROM unnest($3::timestamptz[]) WITH ORDINALITY AS w(s, i)),
now_b AS (${balances}),
b AS (
  SELECT w.i, e.token, sum(e.maker_fees) AS mf, sum(e.protocol_fees) AS pf,
    sum(e.delta_seconds + extract(epoch FROM e.hour - w.s) * e.delta) AS moment
  FROM w
  JOIN ${buckets} e ON e.chain_key = $1 AND e.${owner} = $2
    AND e.hour >= date_trunc('hour', w.s AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'
  GROUP BY 1, 2
), tokens AS (SELECT token FROM now_b UNION SELECT token FROM b)
SELECT w.i AS window, t.token, coalesce(b.mf, 0)::text AS maker_fees, coalesce(b.pf, 0)::text AS protocol_fees,
  (coalesce(n.balance, 0) * extract(epoch FROM $4::timestamptz - w.s) - coalesce(b.moment, 0))::text
    AS balance_seconds
FROM w CROSS JOIN tokens t
LEFT JOIN b ON b.i = w.i AND b.token = t.token
LEFT JOIN now_b n ON n.token = t.token
ORDER BY 1, 2`;

const STRATEGY_EARNINGS = windowsOf(
  'strategy_earnings_hourly',
  'strategy_hash',
  `SELECT v.token, v.balance FROM strategies s
   CROSS JOIN LATERAL (VALUES (s.token_a, s.balance_a), (s.token_b, s.balance_b)) AS v(token, balance)
   WHERE s.chain_key = $1 AND s.strategy_hash = $2 AND v.token IS NOT NULL AND v.balance IS NOT NULL`,
);

const MAKER_EARNINGS = windowsOf(
  'maker_earnings_hourly',
  'maker',
  `SELECT token, sum(amount) AS balance FROM catalogue_balances WHERE chain_key = $1 AND maker = $2 GROUP BY token`,
);

/** A strategy's earnings over each window [start, now]. */
export async function strategyEarnings(
  db: Db,
  chain: string,
  hash: string,
  starts: readonly Date[],
  now: Date,
): Promise<EarningsRow[]> {
  const { rows } = await prepared<EarningsRow>(db, 'strategy_earnings', STRATEGY_EARNINGS, [
    chain,
    hash,
    starts,
    now,
  ]);
  return rows;
}

/** A maker's earnings over each window [start, now], over all its strategies on the chain. */
export async function makerEarnings(
  db: Db,
  chain: string,
  maker: string,
  starts: readonly Date[],
  now: Date,
): Promise<EarningsRow[]> {
  const { rows } = await prepared<EarningsRow>(db, 'maker_earnings', MAKER_EARNINGS, [
    chain,
    maker,
    starts,
    now,
  ]);
  return rows;
}

/**
 * The span of the maker's events on the chain: its first ship (the start of its lifetime window) and
 * its latest ship, dock or swap.
 */
export async function makerSpan(
  db: Db,
  chain: string,
  maker: string,
): Promise<{ first: Date | null; last: Date | null }> {
  const { rows } = await prepared<{ first: Date | null; last: Date | null }>(
    db,
    'maker_span',
    `SELECT min(shipped_at) AS first,
       max(greatest(shipped_at, coalesce(docked_at, shipped_at), coalesce(last_swap_at, shipped_at))) AS last
     FROM strategies WHERE maker = $2 AND chain_key = $1`,
    [chain, maker],
  );
  return rows[0] ?? { first: null, last: null };
}

/** The time up to which the chain's events are all stored (its checkpoint); null before the first. */
export async function chainIndexedThrough(db: Db, chain: string): Promise<Date | null> {
  const { rows } = await prepared<{ at: Date | null }>(
    db,
    'chain_indexed_through',
    'SELECT indexed_through_at AS at FROM indexer_checkpoints WHERE chain_key = $1',
    [chain],
  );
  return rows[0]?.at ?? null;
}
