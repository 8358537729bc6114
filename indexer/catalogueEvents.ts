/**
 * The catalogue events of one indexed chunk (GET /api/events): a strategy shipped, a swap, a
 * dock. Written by `writeChunk` (indexer/write.ts) in the chunk's own transaction, after the catalogue
 * rows, so an event exists exactly when the rows it describes do. Each event joins the stored strategy:
 * what the catalogue does not keep (a Shipped that is not a strategy, a swap of another router, a dock
 * of a strategy not active) makes no event, and the data carries the pair and the tokens' symbols.
 */
import type pg from 'pg';
import { CATALOGUE_EVENTS_CHANNEL } from '../store/catalogueEvents.js';
import type { ChunkBatch } from './batch.js';

/**
 * Transaction-level advisory lock taken before the insert: the chains' followers write concurrently,
 * and without it a transaction holding smaller ids could commit after one holding larger ids, which a
 * reader that already moved past them would never see. Held from the insert to the commit.
 */
export const EVENT_ORDER_LOCK = 7_420_019;

const token = (symbol: string, address: string, amount: string, decimals: string) =>
  `json_build_object('symbol', ${symbol}, 'address', ${address}, 'amount', ${amount}, 'decimals', ${decimals})`;

// The symbol and decimals of `address`, one of the strategy's two tokens (null for any other).
const symbolOf = (address: string) =>
  `CASE ${address} WHEN s.token_a THEN s.symbol_a WHEN s.token_b THEN s.symbol_b END`;
const decimalsOf = (address: string) =>
  `CASE ${address} WHEN s.token_a THEN s.decimals_a WHEN s.token_b THEN s.decimals_b END`;

// One statement for the chunk, in chain order: by block, then shipped before swapped before docked (a
// strategy is swapped only once shipped and never after it is docked), swaps by log index. `source`
// names the on-chain fact, so a chunk indexed again inserts nothing twice.
const INSERT_EVENTS = `
WITH events AS (
  SELECT 'strategy.shipped' AS kind, t.tx || ':' || t.hash AS source, t.block, 0 AS rank, 0 AS log_index,
    json_build_object('chain', $1::text, 'chainId', $2::int, 'hash', s.strategy_hash, 'maker', s.maker,
      'app', s.app, 'pair', s.pair_key,
      'tokenA', CASE WHEN s.token_a IS NULL THEN NULL
        ELSE ${token('s.symbol_a', 's.token_a', 's.initial_a::text', 's.decimals_a')} END,
      'tokenB', CASE WHEN s.token_b IS NULL THEN NULL
        ELSE ${token('s.symbol_b', 's.token_b', 's.initial_b::text', 's.decimals_b')} END,
      'block', t.block, 'txHash', t.tx, 'time', t.time) AS data
  FROM unnest($4::text[], $5::text[], $6::bigint[], $7::text[]) AS t(hash, tx, block, time)
  JOIN strategies s ON s.chain_key = $1 AND s.strategy_hash = t.hash AND s.shipped_tx = t.tx
  UNION ALL
  SELECT 'strategy.swapped', w.tx || ':' || w.log_index, w.block, 1, w.log_index,
    json_build_object('chain', $1::text, 'chainId', $2::int, 'hash', s.strategy_hash, 'maker', s.maker,
      'taker', w.taker, 'pair', s.pair_key,
      'tokenIn', ${token(symbolOf('w.token_in'), 'w.token_in', 'w.amount_in', decimalsOf('w.token_in'))},
      'tokenOut', ${token(symbolOf('w.token_out'), 'w.token_out', 'w.amount_out', decimalsOf('w.token_out'))},
      'volumeUsd', w.volume_usd, 'block', w.block, 'txHash', w.tx, 'logIndex', w.log_index, 'time', w.time)
  FROM unnest($8::text[], $9::int[], $10::bigint[], $11::text[], $12::text[], $13::text[], $14::text[],
    $15::text[], $16::text[], $17::text[], $18::float8[])
    AS w(tx, log_index, block, time, hash, taker, token_in, token_out, amount_in, amount_out, volume_usd)
  JOIN strategies s ON s.chain_key = $1 AND s.strategy_hash = w.hash AND s.app = $3
  UNION ALL
  SELECT 'strategy.docked', d.block || ':' || d.hash, d.block, 2, 0,
    json_build_object('chain', $1::text, 'chainId', $2::int, 'hash', s.strategy_hash, 'maker', s.maker,
      'app', s.app, 'pair', s.pair_key, 'block', d.block, 'txHash', d.tx, 'time', d.time)
  FROM unnest($19::text[], $20::text[], $21::text[], $22::bigint[], $23::text[], $24::text[])
    AS d(hash, maker, app, block, tx, time)
  JOIN strategies s ON s.chain_key = $1 AND s.strategy_hash = d.hash AND s.maker = d.maker AND s.app = d.app
    AND s.status = 'docked' AND s.docked_block = d.block
)
INSERT INTO catalogue_events (kind, chain_key, source, data)
SELECT kind, $1, source, data FROM events ORDER BY block, rank, log_index
ON CONFLICT (chain_key, kind, source) DO NOTHING`;

/**
 * Inserts the chunk's events and notifies the gateways (NOTIFY is delivered at commit, and only then).
 * Call inside the chunk's transaction, after its catalogue rows are written.
 */
export async function writeCatalogueEvents(
  client: pg.ClientBase,
  chain: { key: string; chainId: number; router: string },
  batch: ChunkBatch,
): Promise<void> {
  const { strategies, swaps, docks } = batch;
  if (strategies.length === 0 && swaps.length === 0 && docks.length === 0) return;
  await client.query('SELECT pg_advisory_xact_lock($1)', [EVENT_ORDER_LOCK]);
  const inserted = await client.query(INSERT_EVENTS, [
    chain.key,
    chain.chainId,
    chain.router.toLowerCase(),
    strategies.map((r) => r.hash),
    strategies.map((r) => r.tx),
    strategies.map((r) => r.block),
    strategies.map((r) => r.time),
    swaps.map((r) => r.tx),
    swaps.map((r) => r.logIndex),
    swaps.map((r) => r.block),
    swaps.map((r) => r.time),
    swaps.map((r) => r.hash),
    swaps.map((r) => r.taker),
    swaps.map((r) => r.tokenIn),
    swaps.map((r) => r.tokenOut),
    swaps.map((r) => r.amountIn),
    swaps.map((r) => r.amountOut),
    swaps.map((r) => r.volumeUsd),
    docks.map((r) => r.hash),
    docks.map((r) => r.maker),
    docks.map((r) => r.app),
    docks.map((r) => r.block),
    docks.map((r) => r.tx),
    docks.map((r) => r.time),
  ]);
  if ((inserted.rowCount ?? 0) > 0) await client.query(`NOTIFY ${CATALOGUE_EVENTS_CHANNEL}`);
}
