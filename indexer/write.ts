/**
 * The indexer's writes. One chunk of blocks is one transaction: its rows and the checkpoint advance
 * commit together, so a restart resumes after the last stored block with no gap and no duplicate.
 * Every insert is idempotent on the (chain, tx, log index) keys and the derived counters (strategy
 * balances, volume, swap count, volume_hourly) move only for rows this transaction actually inserted,
 * so replaying a range changes nothing. Rows go in as arrays (`unnest`): a handful of statements per
 * chunk, whatever its size.
 */
import type pg from 'pg';
import { lockChainStates } from '../store/chainStateLock.js';
import type { ChunkBatch } from './batch.js';
import { storeBlocks } from './blocks.js';
import { writeCatalogueEvents } from './catalogueEvents.js';
import type { BlockHeader } from './rpc.js';

export interface Checkpoint {
  lastBlock: number;
  lastBlockHash: string | null;
  genesisHash: string | null;
}

export async function readCheckpoint(client: pg.ClientBase, chainKey: string): Promise<Checkpoint | null> {
  const { rows } = await client.query<{
    last_block: string;
    last_block_hash: string | null;
    genesis_hash: string | null;
  }>('SELECT last_block, last_block_hash, genesis_hash FROM indexer_checkpoints WHERE chain_key = $1', [
    chainKey,
  ]);
  const row = rows[0];
  return row
    ? { lastBlock: Number(row.last_block), lastBlockHash: row.last_block_hash, genesisHash: row.genesis_hash }
    : null;
}

const INSERT_STRATEGIES = `
INSERT INTO strategies (chain_key, strategy_hash, maker, app, strategy, traits, program, token_a, token_b,
  symbol_a, symbol_b, decimals_a, decimals_b, pair_key, tokens, initial_a, initial_b, balance_a, balance_b,
  shipped_block, shipped_tx, shipped_at)
SELECT $1, t.hash, t.maker, t.app, t.strategy, t.traits, t.program, t.token_a, t.token_b, t.symbol_a, t.symbol_b,
  t.decimals_a, t.decimals_b, t.pair_key, t.tokens, t.initial_a, t.initial_b,
  -- Balances start at 0 and follow every Pushed/Pulled, the ship's own Pushed logs included.
  CASE WHEN t.token_a IS NULL THEN NULL ELSE 0 END, CASE WHEN t.token_b IS NULL THEN NULL ELSE 0 END,
  t.block, t.tx, t.time
FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::numeric[], $7::jsonb[], $8::text[], $9::text[],
  $10::text[], $11::text[], $12::int[], $13::int[], $14::text[], $15::jsonb[], $16::numeric[], $17::numeric[],
  $18::bigint[], $19::text[], $20::timestamptz[])
  AS t(hash, maker, app, strategy, traits, program, token_a, token_b, symbol_a, symbol_b, decimals_a, decimals_b,
    pair_key, tokens, initial_a, initial_b, block, tx, time)
ON CONFLICT (chain_key, strategy_hash) DO NOTHING`;

// A strategy's balance is keyed by (maker, app, hash) in Aqua: a delta applies only to that row.
// Deltas come from the rows RETURNING gives back, i.e. only from the rows this statement inserted.
// The same deltas move the earnings buckets of the strategy and its maker (migration 027): the sum
// and the sum of δ·(seconds into the hour) of each (token, hour).
const HOUR = `date_trunc('hour', block_time AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'`;
const INSERT_BALANCES = `
WITH inserted AS (
  INSERT INTO balance_changes (chain_key, tx_hash, log_index, block_number, strategy_hash, maker, app, token, kind,
    amount, block_time)
  SELECT $1, t.* FROM unnest($2::text[], $3::int[], $4::bigint[], $5::text[], $6::text[], $7::text[], $8::text[],
    $9::text[], $10::numeric[], $11::timestamptz[]) AS t
  ON CONFLICT (chain_key, tx_hash, log_index) DO NOTHING
  RETURNING strategy_hash, maker, app, token, kind, amount, block_time
), matched AS (
  SELECT s.strategy_hash, s.maker, i.token, i.token = s.token_a AS is_a,
    CASE WHEN i.kind = 'push' THEN i.amount ELSE -i.amount END AS d,
    ${HOUR} AS hour, i.block_time
  FROM inserted i
  JOIN strategies s ON s.chain_key = $1 AND s.strategy_hash = i.strategy_hash AND s.maker = i.maker AND s.app = i.app
  WHERE i.token IN (s.token_a, s.token_b)
), delta AS (
  SELECT strategy_hash, sum(d) FILTER (WHERE is_a) AS da, sum(d) FILTER (WHERE NOT is_a) AS db
  FROM matched GROUP BY strategy_hash
), updated AS (
  UPDATE strategies s
  SET balance_a = s.balance_a + coalesce(d.da, 0), balance_b = s.balance_b + coalesce(d.db, 0)
  FROM delta d
  WHERE s.chain_key = $1 AND s.strategy_hash = d.strategy_hash
), ${earningsDeltas('matched')}`;

/**
 * The two inserts that add signed balance deltas (`d`, at `block_time`, in `hour`) of a CTE to the
 * earnings buckets of their strategies and makers.
 */
function earningsDeltas(from: string): string {
  const seconds = 'sum(d * floor(extract(epoch FROM block_time - hour)))';
  return `strategy_deltas AS (
  INSERT INTO strategy_earnings_hourly AS e (chain_key, strategy_hash, token, hour, delta, delta_seconds)
  SELECT $1, strategy_hash, token, hour, sum(d), ${seconds} FROM ${from} GROUP BY 2, 3, 4
  ON CONFLICT (chain_key, strategy_hash, token, hour) DO UPDATE
  SET delta = e.delta + EXCLUDED.delta, delta_seconds = e.delta_seconds + EXCLUDED.delta_seconds
)
INSERT INTO maker_earnings_hourly AS e (chain_key, maker, token, hour, delta, delta_seconds)
SELECT $1, maker, token, hour, sum(d), ${seconds} FROM ${from} GROUP BY 2, 3, 4
ON CONFLICT (chain_key, maker, token, hour) DO UPDATE
SET delta = e.delta + EXCLUDED.delta, delta_seconds = e.delta_seconds + EXCLUDED.delta_seconds`;
}

// Volume counts only swaps of a stored strategy attached to this router (PROTOCOL: "Swapped logs of
// the router whose orderHash is a shipped strategy hash"), bucketed by the strategy's pair and the
// block's UTC hour. A strategy without a pair key (not two tokens) has no volume_hourly bucket.
// The analytics roll-ups of migration 014 move in the same statement, from the same counted rows:
// per strategy and hour, per maker and hour, the maker's lifetime totals, and the fees of each bucket
// (the USD volume times the fee rates of the strategy's program, program_fee_rates).
const INSERT_SWAPS = `
WITH inserted AS (
  INSERT INTO swaps (chain_key, tx_hash, log_index, block_number, block_time, strategy_hash, maker, taker,
    token_in, token_out, amount_in, amount_out, volume_usd)
  SELECT $1, t.* FROM unnest($3::text[], $4::int[], $5::bigint[], $6::timestamptz[], $7::text[], $8::text[],
    $9::text[], $10::text[], $11::text[], $12::numeric[], $13::numeric[], $14::float8[]) AS t
  ON CONFLICT (chain_key, tx_hash, log_index) DO NOTHING
  RETURNING strategy_hash, block_time, volume_usd, token_in, amount_in
), counted AS (
  SELECT i.*, date_trunc('hour', i.block_time AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS hour, s.pair_key, s.maker,
    i.volume_usd * (1 - f.protocol_1e9 / 1e9::float8) * f.maker_1e9 / 1e9::float8 AS maker_fee,
    i.volume_usd * f.protocol_1e9 / 1e9::float8 AS protocol_fee,
    -- In base units of tokenIn, by the router's exactIn arithmetic (migration 027).
    div(i.amount_in * f.protocol_1e9, 1000000000) AS protocol_units,
    div((i.amount_in - div(i.amount_in * f.protocol_1e9, 1000000000)) * f.maker_1e9 + 999999999, 1000000000)
      AS maker_units
  FROM inserted i
  JOIN strategies s ON s.chain_key = $1 AND s.strategy_hash = i.strategy_hash AND s.app = $2
  CROSS JOIN LATERAL program_fee_rates(s.program) AS f
), per_strategy AS (
  SELECT strategy_hash, sum(volume_usd) AS volume, count(*)::int AS swaps, max(block_time) AS last
  FROM counted GROUP BY strategy_hash
), updated AS (
  UPDATE strategies s
  SET volume_usd = s.volume_usd + p.volume, swap_count = s.swap_count + p.swaps,
    last_swap_at = greatest(s.last_swap_at, p.last), first_volume_seen_at = coalesce(s.first_volume_seen_at, now())
  FROM per_strategy p
  WHERE s.chain_key = $1 AND s.strategy_hash = p.strategy_hash
), strategy_hours AS (
  INSERT INTO strategy_hourly AS h (strategy_hash, chain_key, hour, volume_usd, swap_count, maker_fees_usd,
    protocol_fees_usd)
  SELECT strategy_hash, $1, hour, sum(volume_usd), count(*)::int, sum(maker_fee), sum(protocol_fee)
  FROM counted GROUP BY strategy_hash, hour
  ON CONFLICT (strategy_hash, chain_key, hour) DO UPDATE
  SET volume_usd = h.volume_usd + EXCLUDED.volume_usd, swap_count = h.swap_count + EXCLUDED.swap_count,
    maker_fees_usd = h.maker_fees_usd + EXCLUDED.maker_fees_usd,
    protocol_fees_usd = h.protocol_fees_usd + EXCLUDED.protocol_fees_usd
), maker_hours AS (
  INSERT INTO maker_hourly AS h (maker, chain_key, hour, volume_usd, swap_count, maker_fees_usd, protocol_fees_usd)
  SELECT maker, $1, hour, sum(volume_usd), count(*)::int, sum(maker_fee), sum(protocol_fee)
  FROM counted GROUP BY maker, hour
  ON CONFLICT (maker, chain_key, hour) DO UPDATE
  SET volume_usd = h.volume_usd + EXCLUDED.volume_usd, swap_count = h.swap_count + EXCLUDED.swap_count,
    maker_fees_usd = h.maker_fees_usd + EXCLUDED.maker_fees_usd,
    protocol_fees_usd = h.protocol_fees_usd + EXCLUDED.protocol_fees_usd
), strategy_fees AS (
  INSERT INTO strategy_earnings_hourly AS e (chain_key, strategy_hash, token, hour, maker_fees, protocol_fees)
  SELECT $1, strategy_hash, token_in, hour, sum(maker_units), sum(protocol_units)
  FROM counted GROUP BY 2, 3, 4
  ON CONFLICT (chain_key, strategy_hash, token, hour) DO UPDATE
  SET maker_fees = e.maker_fees + EXCLUDED.maker_fees, protocol_fees = e.protocol_fees + EXCLUDED.protocol_fees
), maker_fees AS (
  INSERT INTO maker_earnings_hourly AS e (chain_key, maker, token, hour, maker_fees, protocol_fees)
  SELECT $1, maker, token_in, hour, sum(maker_units), sum(protocol_units)
  FROM counted GROUP BY 2, 3, 4
  ON CONFLICT (chain_key, maker, token, hour) DO UPDATE
  SET maker_fees = e.maker_fees + EXCLUDED.maker_fees, protocol_fees = e.protocol_fees + EXCLUDED.protocol_fees
), makers AS (
  UPDATE maker_activity m
  SET volume_usd = m.volume_usd + c.volume, swap_count = m.swap_count + c.swaps,
    maker_fees_usd = m.maker_fees_usd + c.maker_fees, protocol_fees_usd = m.protocol_fees_usd + c.protocol_fees,
    last_swap_at = greatest(m.last_swap_at, c.last)
  FROM (
    SELECT maker, sum(volume_usd) AS volume, count(*)::int AS swaps, sum(maker_fee) AS maker_fees,
      sum(protocol_fee) AS protocol_fees, max(block_time) AS last
    FROM counted GROUP BY maker
  ) AS c
  WHERE m.chain_key = $1 AND m.maker = c.maker
)
INSERT INTO volume_hourly AS v (chain_key, pair_key, hour, volume_usd, swap_count, last_swap_at, maker_fees_usd,
  protocol_fees_usd)
SELECT $1, pair_key, hour, sum(volume_usd), count(*)::int, max(block_time), sum(maker_fee), sum(protocol_fee)
FROM counted WHERE pair_key IS NOT NULL
GROUP BY 2, 3
ON CONFLICT (chain_key, pair_key, hour) DO UPDATE
SET volume_usd = v.volume_usd + EXCLUDED.volume_usd, swap_count = v.swap_count + EXCLUDED.swap_count,
  last_swap_at = greatest(v.last_swap_at, EXCLUDED.last_swap_at),
  maker_fees_usd = v.maker_fees_usd + EXCLUDED.maker_fees_usd,
  protocol_fees_usd = v.protocol_fees_usd + EXCLUDED.protocol_fees_usd`;

// Docking zeroes the strategy's balances in Aqua; only the first Docked counts (replays change nothing).
// The zeroing is a delta of the earnings buckets at the dock's time, as a Pulled would be.
const APPLY_DOCKS = `
WITH docked AS (
  SELECT DISTINCT ON (s.strategy_hash) s.strategy_hash, s.maker, s.token_a, s.token_b, s.balance_a, s.balance_b,
    d.block, d.time AS block_time
  FROM strategies s
  JOIN unnest($2::text[], $3::text[], $4::text[], $5::bigint[], $6::timestamptz[]) AS d(hash, maker, app, block, time)
    ON s.chain_key = $1 AND s.strategy_hash = d.hash AND s.maker = d.maker AND s.app = d.app
  WHERE s.status = 'active'
  ORDER BY s.strategy_hash, d.block
), updated AS (
  UPDATE strategies s
  SET status = 'docked', docked_block = x.block, docked_at = x.block_time,
    balance_a = CASE WHEN s.balance_a IS NULL THEN NULL ELSE 0 END,
    balance_b = CASE WHEN s.balance_b IS NULL THEN NULL ELSE 0 END
  FROM docked x
  WHERE s.chain_key = $1 AND s.strategy_hash = x.strategy_hash AND s.status = 'active'
), zeroed AS (
  SELECT x.strategy_hash, x.maker, v.token, -v.balance AS d, x.block_time, ${HOUR} AS hour
  FROM docked x
  CROSS JOIN LATERAL (VALUES (x.token_a, x.balance_a), (x.token_b, x.balance_b)) AS v(token, balance)
  WHERE v.token IS NOT NULL AND v.balance IS NOT NULL AND v.balance <> 0
), ${earningsDeltas('zeroed')}`;

const ADVANCE_CHECKPOINT = `
INSERT INTO indexer_checkpoints (chain_key, chain_id, last_block, last_block_hash, genesis_hash, indexed_through_at,
  updated_at)
VALUES ($1, $2, $3, $4, $5, $6, now())
ON CONFLICT (chain_key) DO UPDATE
SET chain_id = EXCLUDED.chain_id, last_block = EXCLUDED.last_block, last_block_hash = EXCLUDED.last_block_hash,
  genesis_hash = EXCLUDED.genesis_hash, indexed_through_at = EXCLUDED.indexed_through_at, updated_at = now()`;

const col = <T, K>(rows: readonly T[], pick: (row: T) => K): K[] => rows.map(pick);

/** Stores one chunk and advances the checkpoint to its last block, in one transaction. */
export async function writeChunk(
  client: pg.ClientBase,
  chain: { key: string; chainId: number; router: string },
  batch: ChunkBatch,
  checkpoint: {
    lastBlock: number;
    lastBlockHash: string;
    genesisHash: string;
    /** Every event of the chain up to this time is stored once the chunk commits. */
    indexedThroughAt: Date;
    /** Headers of the chunk's blocks near the head, and how many blocks of them to keep (blocks.ts). */
    headers: readonly BlockHeader[];
    reorgWindow: number;
  },
): Promise<void> {
  const key = chain.key;
  await client.query('BEGIN');
  try {
    // Before any row: the wallet reader's states of this chain wait for this chunk, or it for them.
    await lockChainStates(client, key);
    // The chain is the source of truth: a crash may lose the last commits, checkpoint included, and
    // they are indexed again. Not waiting for the WAL flush at each chunk is safe for that reason.
    await client.query('SET LOCAL synchronous_commit = off');
    const { strategies, balances, swaps, docks } = batch;
    if (strategies.length > 0) {
      await client.query(INSERT_STRATEGIES, [
        key,
        col(strategies, (r) => r.hash),
        col(strategies, (r) => r.maker),
        col(strategies, (r) => r.app),
        col(strategies, (r) => r.strategy),
        col(strategies, (r) => r.traits),
        col(strategies, (r) => r.program),
        col(strategies, (r) => r.tokenA),
        col(strategies, (r) => r.tokenB),
        col(strategies, (r) => r.symbolA),
        col(strategies, (r) => r.symbolB),
        col(strategies, (r) => r.decimalsA),
        col(strategies, (r) => r.decimalsB),
        col(strategies, (r) => r.pairKey),
        col(strategies, (r) => r.tokens),
        col(strategies, (r) => r.initialA),
        col(strategies, (r) => r.initialB),
        col(strategies, (r) => r.block),
        col(strategies, (r) => r.tx),
        col(strategies, (r) => r.time),
      ]);
    }
    if (balances.length > 0) {
      await client.query(INSERT_BALANCES, [
        key,
        col(balances, (r) => r.tx),
        col(balances, (r) => r.logIndex),
        col(balances, (r) => r.block),
        col(balances, (r) => r.hash),
        col(balances, (r) => r.maker),
        col(balances, (r) => r.app),
        col(balances, (r) => r.token),
        col(balances, (r) => r.kind),
        col(balances, (r) => r.amount),
        col(balances, (r) => r.time),
      ]);
    }
    if (swaps.length > 0) {
      await client.query(INSERT_SWAPS, [
        key,
        chain.router.toLowerCase(),
        col(swaps, (r) => r.tx),
        col(swaps, (r) => r.logIndex),
        col(swaps, (r) => r.block),
        col(swaps, (r) => r.time),
        col(swaps, (r) => r.hash),
        col(swaps, (r) => r.maker),
        col(swaps, (r) => r.taker),
        col(swaps, (r) => r.tokenIn),
        col(swaps, (r) => r.tokenOut),
        col(swaps, (r) => r.amountIn),
        col(swaps, (r) => r.amountOut),
        col(swaps, (r) => r.volumeUsd),
      ]);
    }
    if (docks.length > 0) {
      await client.query(APPLY_DOCKS, [
        key,
        col(docks, (r) => r.hash),
        col(docks, (r) => r.maker),
        col(docks, (r) => r.app),
        col(docks, (r) => r.block),
        col(docks, (r) => r.time),
      ]);
    }
    await storeBlocks(client, key, checkpoint.headers, checkpoint.reorgWindow);
    // The live stream's events (GET /api/events) commit with the rows they describe.
    await writeCatalogueEvents(client, chain, batch);
    await client.query(ADVANCE_CHECKPOINT, [
      key,
      chain.chainId,
      checkpoint.lastBlock,
      checkpoint.lastBlockHash,
      checkpoint.genesisHash,
      checkpoint.indexedThroughAt,
    ]);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
}

/**
 * A sync of the chain ended well, having seen `head`: readiness and /metrics of every process read it
 * (store/indexerHealth.ts) to tell a stuck or far-behind chain from a quiet one.
 */
export async function markSynced(client: pg.ClientBase, chainKey: string, head: number): Promise<void> {
  await client.query(
    'UPDATE indexer_checkpoints SET synced_at = now(), head_block = $2 WHERE chain_key = $1',
    [chainKey, head],
  );
}
