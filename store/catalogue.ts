import type pg from 'pg';
import { type Db, storeError } from './db.js';

/**
 * Reads of the catalogue tables (002_catalogue.sql) for the read endpoints: the row shapes, one strategy
 * by hash, its swaps and the checkpoints (the list pages: store/strategyList.ts). The indexer writes
 * these tables; nothing here writes.
 */

/** The columns of a strategy every read shows (list and detail). */
export interface StrategyRow {
  chain_key: string;
  strategy_hash: string;
  maker: string;
  app: string;
  token_a: string | null;
  token_b: string | null;
  symbol_a: string | null;
  symbol_b: string | null;
  decimals_a: number | null;
  decimals_b: number | null;
  pair_key: string | null;
  /** The token list of strategies that are not two-token (null otherwise: the columns say it all). */
  tokens: unknown;
  initial_a: string | null;
  initial_b: string | null;
  balance_a: string | null;
  balance_b: string | null;
  status: 'active' | 'docked';
  shipped_block: string;
  shipped_tx: string;
  /** Timestamps come as ISO 8601 UTC text with milliseconds ("…T…Z"), ready to show. */
  shipped_at: string;
  docked_block: string | null;
  docked_at: string | null;
  volume_usd: number;
  swap_count: number;
  last_swap_at: string | null;
  /** The curve its program runs: xyc, concentrated, pegged or other (migration 023). */
  kind: 'xyc' | 'concentrated' | 'pegged' | 'other';
  /**
   * The decoded program (instructions as stored) of a concentrated strategy, whose range the list shows
   * in prices; null for every other kind (migration 024).
   */
  range_program: unknown;
  /** The maker's fees of the last 7 days in USD and their APY, as of the last refresh (migration 028). */
  fees_7d_usd: number;
  apy_7d: number | null;
  /** Whether it can trade now: kept by the store from its balances and its maker's last wallet read (migration 030). */
  state: 'active' | 'inactive';
}

/** A strategy with what only the detail shows: the shipped bytes, traits and the decoded program. */
export interface StrategyDetailRow extends StrategyRow {
  first_seen_at: string;
  first_volume_seen_at: string | null;
  strategy: string;
  traits: string | null;
  program: unknown;
}

export interface SwapRow {
  tx_hash: string;
  log_index: number;
  block_number: string;
  block_time: Date;
  taker: string;
  token_in: string;
  token_out: string;
  amount_in: string;
  amount_out: string;
  volume_usd: number;
}

export interface CheckpointRow {
  chain_key: string;
  chain_id: number;
  last_block: string;
  updated_at: Date;
}

/** A timestamptz as the API shows it (Date#toISOString's form): Postgres formats it, node parses nothing. */
const isoText = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const iso = (column: string) => `${isoText(column)} AS ${column}`;

// A page is read often: only what a list shows, and `tokens` (JSON) only where the columns do not say it.
// [output name, expression]: the SQL select list and the row mapper of the list both come from here.
export const LIST_FIELDS: readonly (readonly [keyof StrategyRow, string])[] = [
  ['chain_key', 'chain_key'],
  ['strategy_hash', 'strategy_hash'],
  ['maker', 'maker'],
  ['app', 'app'],
  ['token_a', 'token_a'],
  ['token_b', 'token_b'],
  ['symbol_a', 'symbol_a'],
  ['symbol_b', 'symbol_b'],
  ['decimals_a', 'decimals_a'],
  ['decimals_b', 'decimals_b'],
  ['pair_key', 'pair_key'],
  ['tokens', 'CASE WHEN token_a IS NULL THEN tokens END'],
  ['initial_a', 'initial_a::text'],
  ['initial_b', 'initial_b::text'],
  ['balance_a', 'balance_a::text'],
  ['balance_b', 'balance_b::text'],
  ['status', 'status'],
  ['shipped_block', 'shipped_block::text'],
  ['shipped_tx', 'shipped_tx'],
  ['shipped_at', isoText('shipped_at')],
  ['docked_block', 'docked_block::text'],
  ['docked_at', isoText('docked_at')],
  ['volume_usd', 'volume_usd'],
  ['swap_count', 'swap_count'],
  ['last_swap_at', isoText('last_swap_at')],
  ['kind', 'kind'],
  ['range_program', "CASE WHEN kind = 'concentrated' THEN program END"],
  ['fees_7d_usd', 'fees_7d_usd'],
  ['apy_7d', 'apy_7d'],
  ['state', 'state'],
];

export const LIST_COLUMNS = LIST_FIELDS.map(([name, expression]) =>
  name === expression ? name : `${expression} AS ${name}`,
).join(', ');
const DETAIL_COLUMNS = `${LIST_COLUMNS}, ${iso('first_seen_at')}, ${iso('first_volume_seen_at')}, strategy,
  traits::text AS traits, program`;

/**
 * A named (prepared) statement: Postgres plans each shape once per connection, which is most of the
 * cost of a short indexed read. An unreachable store maps to 503 like `query()`.
 */
export async function prepared<R extends pg.QueryResultRow>(
  db: Db,
  name: string,
  text: string,
  values: unknown[],
): Promise<pg.QueryResult<R>> {
  try {
    return await db.query<R>({ name, text, values });
  } catch (error) {
    throw storeError(error);
  }
}

/** Every stored strategy (open or docked) with one of these hashes, on any chain. */
export async function strategiesByHashes(db: Db, hashes: readonly string[]): Promise<StrategyDetailRow[]> {
  const { rows } = await prepared<StrategyDetailRow>(
    db,
    'catalogue_by_hashes',
    `SELECT ${DETAIL_COLUMNS} FROM strategies WHERE strategy_hash = ANY($1::text[])`,
    [hashes],
  );
  return rows;
}

/** The latest swaps of one strategy, newest first. */
export async function recentSwaps(db: Db, chain: string, hash: string, limit: number): Promise<SwapRow[]> {
  const { rows } = await prepared<SwapRow>(
    db,
    'catalogue_recent_swaps',
    `SELECT tx_hash, log_index, block_number::text AS block_number, block_time, taker, token_in, token_out,
            amount_in::text AS amount_in, amount_out::text AS amount_out, volume_usd
       FROM swaps WHERE chain_key = $1 AND strategy_hash = $2
      ORDER BY block_number DESC, log_index DESC LIMIT $3`,
    [chain, hash, limit],
  );
  return rows;
}

/** Where the indexer is on each chain. */
export async function readCheckpoints(db: Db): Promise<CheckpointRow[]> {
  const { rows } = await prepared<CheckpointRow>(
    db,
    'catalogue_checkpoints',
    'SELECT chain_key, chain_id, last_block::text AS last_block, updated_at FROM indexer_checkpoints',
    [],
  );
  return rows;
}
