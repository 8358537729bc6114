/**
 * Rewinds a chain's catalogue to a fork point: removes exactly what the blocks above it brought (the
 * orphaned blocks of a reorg) and puts back what they changed, so that the rows afterwards are the rows
 * an index of the chain up to the fork point would hold. One transaction, with the checkpoint moved to
 * the fork point; the follower then indexes the new blocks from there.
 *
 * What the orphaned blocks brought, and how it goes back:
 * - swaps: deleted; the volume, swap count and last swap of the strategies they counted for are
 *   recounted from the swaps that remain (first_volume_seen_at is cleared when none remains, as the
 *   observation it recorded is gone); the volume_hourly buckets they fell in are recounted likewise;
 * - Pulled/Pushed: deleted, and their deltas taken off the strategies' balances;
 * - docks: the strategy is active again (docked block, time and docked_seen_at cleared) with the
 *   balances its remaining Pulled/Pushed give;
 * - ships: the strategy row is deleted (first_seen_at goes with it; a ship in the new blocks is a new
 *   observation).
 * The analytics roll-ups (strategy_hourly, maker_hourly, maker_activity, and the fees of volume_hourly)
 * of the buckets those swaps fell in are recounted from the swaps that remain; the earnings buckets
 * (migration 027) of every strategy those blocks touched, and of their makers, from the events that remain.
 * The live stream's events of those blocks (catalogue_events) are deleted, and one `chain.rewound`
 * event tells its clients to refetch what they show of the chain.
 * The counts of the roll-up (catalogue_pair_counts, catalogue_makers) follow through the triggers on
 * `strategies`; the roll-up itself is recomputed by the follower right after (indexer/index.ts).
 * Positions whose ship or dock was undone are told to their webhooks (migration 019's triggers).
 *
 * `rewindToGenesis` does the same for a chain replaced under the catalogue: everything of the chain goes.
 */
import type pg from 'pg';
import { CATALOGUE_EVENTS_CHANNEL } from '../store/catalogueEvents.js';
import { lockChainStates } from '../store/chainStateLock.js';
import { EVENT_ORDER_LOCK } from './catalogueEvents.js';

export interface RewindResult {
  swaps: number;
  balanceChanges: number;
  strategies: number;
  docks: number;
}

// Swaps of the orphaned blocks, and the (strategy, hour) they counted in. Read before anything is
// deleted: a swap's strategy may itself be orphaned.
const DELETE_SWAPS = `
WITH gone AS (
  DELETE FROM swaps WHERE chain_key = $1 AND block_number > $2
  RETURNING strategy_hash, block_time
)
SELECT g.strategy_hash, s.pair_key, s.maker, date_trunc('hour', g.block_time AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS hour,
  count(*)::int AS n
FROM gone g LEFT JOIN strategies s ON s.chain_key = $1 AND s.strategy_hash = g.strategy_hash AND s.app = $3
GROUP BY 1, 2, 3, 4`;

// Balance deltas of the orphaned Pulled/Pushed, taken off the strategies they moved (the same
// maker/app match as the insert). Strategies whose dock is also undone are recounted below instead.
const DELETE_BALANCES = `
WITH gone AS (
  DELETE FROM balance_changes WHERE chain_key = $1 AND block_number > $2
  RETURNING strategy_hash, maker, app, token, kind, amount
), delta AS (
  SELECT s.strategy_hash,
    sum(CASE WHEN g.kind = 'push' THEN g.amount ELSE -g.amount END) FILTER (WHERE g.token = s.token_a) AS da,
    sum(CASE WHEN g.kind = 'push' THEN g.amount ELSE -g.amount END) FILTER (WHERE g.token = s.token_b) AS db
  FROM gone g
  JOIN strategies s ON s.chain_key = $1 AND s.strategy_hash = g.strategy_hash AND s.maker = g.maker AND s.app = g.app
  WHERE s.shipped_block <= $2 AND (s.docked_block IS NULL OR s.docked_block <= $2)
  GROUP BY s.strategy_hash
), updated AS (
  UPDATE strategies s
  SET balance_a = s.balance_a - coalesce(d.da, 0), balance_b = s.balance_b - coalesce(d.db, 0)
  FROM delta d
  WHERE s.chain_key = $1 AND s.strategy_hash = d.strategy_hash
)
SELECT count(*)::int AS n, coalesce(array_agg(DISTINCT strategy_hash), '{}') AS hashes FROM gone`;

// Docks of the orphaned blocks (of strategies shipped before the fork): active again, with the
// balances of every remaining Pulled/Pushed (a dock zeroed them; nothing before it did).
const UNDO_DOCKS = `
WITH undone AS (
  SELECT s.strategy_hash,
    (SELECT coalesce(sum(CASE WHEN b.kind = 'push' THEN b.amount ELSE -b.amount END), 0) FROM balance_changes b
     WHERE b.chain_key = $1 AND b.strategy_hash = s.strategy_hash AND b.maker = s.maker AND b.app = s.app
       AND b.token = s.token_a) AS a,
    (SELECT coalesce(sum(CASE WHEN b.kind = 'push' THEN b.amount ELSE -b.amount END), 0) FROM balance_changes b
     WHERE b.chain_key = $1 AND b.strategy_hash = s.strategy_hash AND b.maker = s.maker AND b.app = s.app
       AND b.token = s.token_b) AS b
  FROM strategies s
  WHERE s.chain_key = $1 AND s.docked_block > $2 AND s.shipped_block <= $2
)
UPDATE strategies s
SET status = 'active', docked_block = NULL, docked_at = NULL, docked_seen_at = NULL,
  balance_a = CASE WHEN s.token_a IS NULL THEN NULL ELSE u.a END,
  balance_b = CASE WHEN s.token_b IS NULL THEN NULL ELSE u.b END
FROM undone u
WHERE s.chain_key = $1 AND s.strategy_hash = u.strategy_hash
RETURNING coalesce(s.pair_key, '') AS pair_key, s.strategy_hash`;

const DELETE_STRATEGIES = `
DELETE FROM strategies WHERE chain_key = $1 AND shipped_block > $2
RETURNING coalesce(pair_key, '') AS pair_key, strategy_hash, maker`;

// The triggers keep counts exactly but the latest ship/dock times only as maxima: for the pairs whose
// strategies were deleted or undocked, they are taken again from the rows, as the triggers would have
// kept them over the chain that remains (what a fresh index of it holds). A dock moves a strategy out of
// the open group without lowering that group's latest ship, and every strategy was open once (a ship
// inserts it open; block times only go forward): the open group's latest ship is the latest ship of any
// strategy of the pair, docked ones included, not only of those open now. The docked group only loses
// rows in a rewind: its times are those of its rows. A group left without strategies keeps the NULLs the
// triggers gave it.
const RETIME_PAIRS = `
UPDATE catalogue_pair_counts c
SET last_shipped_at = CASE WHEN c.status = 'active' THEN x.shipped ELSE x.docked_shipped END,
  last_docked_at = CASE WHEN c.status = 'active' THEN x.active_docked ELSE x.docked END
FROM (
  SELECT coalesce(s.pair_key, '') AS pair_key, max(s.shipped_at) AS shipped,
    max(s.shipped_at) FILTER (WHERE s.status = 'docked') AS docked_shipped,
    max(s.docked_at) FILTER (WHERE s.status = 'active') AS active_docked,
    max(s.docked_at) FILTER (WHERE s.status = 'docked') AS docked
  FROM strategies s
  WHERE s.chain_key = $1 AND coalesce(s.pair_key, '') = ANY($2)
  GROUP BY 1
) x
WHERE c.chain_key = $1 AND c.pair_key = x.pair_key AND c.strategies > 0`;

// The counted volume of the strategies that lost swaps, from the swaps that remain.
const RECOUNT_STRATEGIES = `
UPDATE strategies s
SET volume_usd = coalesce(v.volume, 0), swap_count = v.swaps, last_swap_at = v.last,
  first_volume_seen_at = CASE WHEN v.swaps = 0 THEN NULL ELSE s.first_volume_seen_at END
FROM (
  SELECT h.hash, sum(w.volume_usd) AS volume, count(w.tx_hash)::int AS swaps, max(w.block_time) AS last
  FROM unnest($3::text[]) AS h(hash)
  LEFT JOIN swaps w ON w.chain_key = $1 AND w.strategy_hash = h.hash
  GROUP BY h.hash
) v
WHERE s.chain_key = $1 AND s.strategy_hash = v.hash AND s.app = $2`;

// A swap's fees as the indexer counts them when it stores the swap (indexer/write.ts INSERT_SWAPS).
const FEES = `sum(w.volume_usd * (1 - f.protocol_1e9 / 1e9::float8) * f.maker_1e9 / 1e9::float8),
  sum(w.volume_usd * f.protocol_1e9 / 1e9::float8)`;

// The volume_hourly buckets the orphaned swaps fell in, recounted from the swaps that remain in them
// (cleared first, then written again: a bucket left without swaps is not kept, as a fresh index has none).
const CLEAR_HOURS = `
DELETE FROM volume_hourly v USING unnest($2::text[], $3::timestamptz[]) AS t(pair_key, hour)
WHERE v.chain_key = $1 AND v.pair_key = t.pair_key AND v.hour = t.hour`;
const RECOUNT_HOURS = `
WITH touched AS (
  SELECT DISTINCT pair_key, hour FROM unnest($3::text[], $4::timestamptz[]) AS t(pair_key, hour)
)
INSERT INTO volume_hourly (chain_key, pair_key, hour, volume_usd, swap_count, last_swap_at, maker_fees_usd,
  protocol_fees_usd)
SELECT $1, t.pair_key, t.hour, sum(w.volume_usd), count(*)::int, max(w.block_time), ${FEES}
FROM touched t
JOIN swaps w ON w.chain_key = $1 AND w.block_time >= t.hour AND w.block_time < t.hour + interval '1 hour'
JOIN strategies s ON s.chain_key = $1 AND s.strategy_hash = w.strategy_hash AND s.app = $2 AND s.pair_key = t.pair_key
CROSS JOIN LATERAL program_fee_rates(s.program) AS f
GROUP BY t.pair_key, t.hour`;

// The analytics roll-ups of migration 014, recounted the same way for the (strategy, hour) and
// (maker, hour) buckets the orphaned swaps fell in, then each touched maker's totals from its hours.
const CLEAR_STRATEGY_HOURS = `
DELETE FROM strategy_hourly h USING unnest($2::text[], $3::timestamptz[]) AS t(hash, hour)
WHERE h.chain_key = $1 AND h.strategy_hash = t.hash AND h.hour = t.hour`;
const RECOUNT_STRATEGY_HOURS = `
WITH touched AS (
  SELECT DISTINCT hash, hour FROM unnest($3::text[], $4::timestamptz[]) AS t(hash, hour)
)
INSERT INTO strategy_hourly (strategy_hash, chain_key, hour, volume_usd, swap_count, maker_fees_usd,
  protocol_fees_usd)
SELECT t.hash, $1, t.hour, sum(w.volume_usd), count(*)::int, ${FEES}
FROM touched t
JOIN strategies s ON s.chain_key = $1 AND s.strategy_hash = t.hash AND s.app = $2
JOIN swaps w ON w.chain_key = $1 AND w.strategy_hash = t.hash
  AND w.block_time >= t.hour AND w.block_time < t.hour + interval '1 hour'
CROSS JOIN LATERAL program_fee_rates(s.program) AS f
GROUP BY t.hash, t.hour`;
const CLEAR_MAKER_HOURS = `
DELETE FROM maker_hourly h USING unnest($2::text[], $3::timestamptz[]) AS t(maker, hour)
WHERE h.chain_key = $1 AND h.maker = t.maker AND h.hour = t.hour`;
const RECOUNT_MAKER_HOURS = `
WITH touched AS (
  SELECT DISTINCT maker, hour FROM unnest($2::text[], $3::timestamptz[]) AS t(maker, hour)
)
INSERT INTO maker_hourly (maker, chain_key, hour, volume_usd, swap_count, maker_fees_usd, protocol_fees_usd)
SELECT t.maker, $1, t.hour, sum(h.volume_usd), sum(h.swap_count)::int, sum(h.maker_fees_usd),
  sum(h.protocol_fees_usd)
FROM touched t
JOIN strategies s ON s.chain_key = $1 AND s.maker = t.maker
JOIN strategy_hourly h ON h.chain_key = $1 AND h.strategy_hash = s.strategy_hash AND h.hour = t.hour
GROUP BY t.maker, t.hour`;
const RECOUNT_MAKERS = `
UPDATE maker_activity m
SET volume_usd = coalesce(x.volume, 0), swap_count = coalesce(x.swaps, 0),
  maker_fees_usd = coalesce(x.maker_fees, 0), protocol_fees_usd = coalesce(x.protocol_fees, 0),
  last_swap_at = (SELECT max(s.last_swap_at) FROM strategies s WHERE s.chain_key = $1 AND s.maker = m.maker)
FROM (
  SELECT t.maker, sum(h.volume_usd) AS volume, sum(h.swap_count)::int AS swaps,
    sum(h.maker_fees_usd) AS maker_fees, sum(h.protocol_fees_usd) AS protocol_fees
  FROM unnest($2::text[]) AS t(maker)
  LEFT JOIN maker_hourly h ON h.chain_key = $1 AND h.maker = t.maker
  GROUP BY t.maker
) AS x
WHERE m.chain_key = $1 AND m.maker = x.maker`;

/**
 * Rewinds `chain` to `fork` (the last block both histories share; its hash and time given), in one
 * transaction with the checkpoint.
 */
export async function rewindChain(
  client: pg.ClientBase,
  chain: { key: string; router: string; chainId: number },
  fork: { number: number; hash: string; timestamp: number },
): Promise<RewindResult> {
  const key = chain.key;
  const router = chain.router.toLowerCase();
  return inTransaction(client, async () => {
    // Before any row, as a chunk: the balances and statuses it restores decide states (chainStateLock.ts).
    await lockChainStates(client, key);
    const swaps = await client.query<{
      strategy_hash: string;
      pair_key: string | null;
      maker: string | null;
      hour: Date;
      n: number;
    }>(DELETE_SWAPS, [key, fork.number, router]);
    const balances = await client.query<{ n: number; hashes: string[] }>(DELETE_BALANCES, [key, fork.number]);
    const docks = await client.query<{ pair_key: string; strategy_hash: string }>(UNDO_DOCKS, [
      key,
      fork.number,
    ]);
    const strategies = await client.query<{ pair_key: string; strategy_hash: string; maker: string }>(
      DELETE_STRATEGIES,
      [key, fork.number],
    );
    const pairs = [...new Set([...docks.rows, ...strategies.rows].map((r) => r.pair_key))];
    if (pairs.length > 0) await client.query(RETIME_PAIRS, [key, pairs]);
    const touched = [...new Set(swaps.rows.map((r) => r.strategy_hash))];
    if (touched.length > 0) await client.query(RECOUNT_STRATEGIES, [key, router, touched]);
    const hours = swaps.rows.filter((r) => r.pair_key !== null);
    if (hours.length > 0) {
      await client.query(CLEAR_HOURS, [key, hours.map((r) => r.pair_key), hours.map((r) => r.hour)]);
      await client.query(RECOUNT_HOURS, [
        key,
        router,
        hours.map((r) => r.pair_key),
        hours.map((r) => r.hour),
      ]);
    }
    await recountAnalytics(client, key, router, swaps.rows);
    const earned = new Set([
      ...swaps.rows.map((r) => r.strategy_hash),
      ...(balances.rows[0]?.hashes ?? []),
      ...docks.rows.map((r) => r.strategy_hash),
      ...strategies.rows.map((r) => r.strategy_hash),
    ]);
    if (earned.size > 0)
      await client.query('SELECT earnings_recount($1, $2, $3)', [
        key,
        [...earned],
        [...new Set(strategies.rows.map((r) => r.maker))],
      ]);
    // The live stream's events of the orphaned blocks: a stream resumed from before them does not get
    // them (the new blocks' events follow with new ids; a client that saw them already refetches on
    // the swaps or docks that follow).
    await client.query(
      "DELETE FROM catalogue_events WHERE chain_key = $1 AND (data->>'block')::bigint > $2",
      [key, fork.number],
    );
    await client.query('DELETE FROM indexer_blocks WHERE chain_key = $1 AND block_number > $2', [
      key,
      fork.number,
    ]);
    const result = {
      swaps: swaps.rows.reduce((acc, r) => acc + r.n, 0),
      balanceChanges: balances.rows[0]?.n ?? 0,
      strategies: strategies.rowCount ?? 0,
      docks: docks.rowCount ?? 0,
    };
    await announceRewind(client, chain, { reason: 'reorg', forkBlock: fork.number, ...result });
    await client.query(
      `UPDATE indexer_checkpoints SET last_block = $2, last_block_hash = $3,
         indexed_through_at = to_timestamp($4), updated_at = now()
       WHERE chain_key = $1`,
      [key, fork.number, fork.hash, fork.timestamp],
    );
    return result;
  });
}

/** The analytics roll-ups of the buckets the orphaned swaps counted in, from the swaps that remain. */
async function recountAnalytics(
  client: pg.ClientBase,
  key: string,
  router: string,
  orphaned: readonly { strategy_hash: string; maker: string | null; hour: Date }[],
): Promise<void> {
  const counted = orphaned.filter((r) => r.maker !== null);
  if (counted.length === 0) return;
  const hashes = counted.map((r) => r.strategy_hash);
  const makers = counted.map((r) => r.maker!);
  const hours = counted.map((r) => r.hour);
  await client.query(CLEAR_STRATEGY_HOURS, [key, hashes, hours]);
  await client.query(RECOUNT_STRATEGY_HOURS, [key, router, hashes, hours]);
  await client.query(CLEAR_MAKER_HOURS, [key, makers, hours]);
  await client.query(RECOUNT_MAKER_HOURS, [key, makers, hours]);
  await client.query(RECOUNT_MAKERS, [key, [...new Set(makers)]]);
}

/**
 * Rewinds everything indexed of a chain (its history was replaced under the checkpoint), in one
 * transaction: it is then indexed again from its start block. The roll-ups of migration 014 go after
 * `strategies`, whose delete triggers move them to zero.
 */
export async function rewindToGenesis(
  client: pg.ClientBase,
  chain: { key: string; chainId: number },
): Promise<RewindResult> {
  const key = chain.key;
  return inTransaction(client, async () => {
    const counts: Record<string, number> = {};
    for (const table of [
      'swaps',
      'balance_changes',
      'volume_hourly',
      'strategy_hourly',
      'maker_hourly',
      'strategy_earnings_hourly',
      'maker_earnings_hourly',
      'maker_rankings',
      'strategies',
      'indexer_blocks',
      'maker_activity',
      'catalogue_balances',
      'catalogue_pair_balances',
      'catalogue_events',
      'indexer_checkpoints',
    ]) {
      // Table names are constants of this list; the chain key is a parameter.
      const deleted = await client.query(`DELETE FROM ${table} WHERE chain_key = $1`, [key]);
      counts[table] = deleted.rowCount ?? 0;
    }
    const result = {
      swaps: counts.swaps ?? 0,
      balanceChanges: counts.balance_changes ?? 0,
      strategies: counts.strategies ?? 0,
      docks: 0,
    };
    await announceRewind(client, chain, { reason: 'replaced', forkBlock: null, ...result });
    return result;
  });
}

/**
 * The `chain.rewound` event of the live stream (GET /api/events): strategies, swaps or docks of the
 * chain its clients saw may be gone, so they refetch what they show of it. Written in the rewind's
 * transaction, after its deletes, under the events' order lock (indexer/catalogueEvents.ts).
 */
async function announceRewind(
  client: pg.ClientBase,
  chain: { key: string; chainId: number },
  what: { reason: 'reorg' | 'replaced'; forkBlock: number | null } & RewindResult,
): Promise<void> {
  await client.query('SELECT pg_advisory_xact_lock($1)', [EVENT_ORDER_LOCK]);
  await client.query(
    `INSERT INTO catalogue_events (kind, chain_key, source, data)
     SELECT 'chain.rewound', $1, $3 || ':' || txid_current(),
       json_build_object('chain', $1::text, 'chainId', $2::int, 'reason', $3::text, 'forkBlock', $4::bigint,
         'strategies', $5::int, 'swaps', $6::int, 'docks', $7::int, 'time', now())`,
    [chain.key, chain.chainId, what.reason, what.forkBlock, what.strategies, what.swaps, what.docks],
  );
  await client.query(`NOTIFY ${CATALOGUE_EVENTS_CHANNEL}`);
}

/** Runs `work` in one transaction on `client`: committed when it returns, rolled back when it throws. */
async function inTransaction<T>(client: pg.ClientBase, work: () => Promise<T>): Promise<T> {
  await client.query('BEGIN');
  try {
    const result = await work();
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
}
