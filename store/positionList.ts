import { type Db, query } from './db.js';
import type { PositionStatusRow } from './positions.js';

/** The lifecycle states a list can filter on (domain/positions.ts `observedState`). */
export type PositionState = 'prepared' | 'shipped' | 'filled' | 'docked';

/** A listed position: its status row, its metadata and its keyset position (created_at as Postgres text). */
export interface ListedPositionRow extends PositionStatusRow {
  metadata: Record<string, string> | null;
  cursor_at: string;
}

export interface PositionListFilter {
  status?: PositionState;
  chain?: string;
  /** Lower-case 0x address. */
  wallet?: string;
  /** The (created_at text, strategy_hash) of the last row already shown. */
  after?: { at: string; hash: string };
  /** One position by its strategy hash (a webhook's payload). */
  hash?: string;
  limit: number;
}

/**
 * `observedState` in SQL, so a status filter selects exactly the rows whose shaped `status` is that
 * value (test/integration/positions-list.test.ts checks each state against the shaped body).
 */
const STATE_SQL = `CASE
    WHEN s.strategy_hash IS NULL THEN 'prepared'
    WHEN s.status = 'docked' THEN 'docked'
    WHEN s.first_volume_seen_at IS NOT NULL OR COALESCE(s.volume_usd, 0) > 0 THEN 'filled'
    ELSE 'shipped' END`;

/**
 * One page of the positions of a key, newest first (created_at, then strategy_hash, both descending):
 * an index range scan on positions_key_created_hash (migration 008). Every value is a parameter.
 */
export async function listPositionsOfKey(
  db: Db,
  keyId: string,
  filter: PositionListFilter,
): Promise<ListedPositionRow[]> {
  const params: unknown[] = [keyId];
  const where = ['p.key_id = $1'];
  const add = (sql: (n: string) => string, value: unknown) => {
    params.push(value);
    where.push(sql(`$${params.length}`));
  };
  if (filter.chain !== undefined) add((n) => `p.chain_key = ${n}`, filter.chain);
  if (filter.wallet !== undefined) add((n) => `p.wallet = ${n}`, filter.wallet);
  if (filter.status !== undefined) add((n) => `(${STATE_SQL}) = ${n}`, filter.status);
  if (filter.hash !== undefined) add((n) => `p.strategy_hash = ${n}`, filter.hash);
  if (filter.after !== undefined) {
    params.push(filter.after.at, filter.after.hash);
    where.push(`(p.created_at, p.strategy_hash) < ($${params.length - 1}::timestamptz, $${params.length})`);
  }
  params.push(filter.limit);
  const { rows } = await query<ListedPositionRow>(
    db,
    `SELECT p.strategy_hash, p.chain_key, p.chain_id, p.wallet, p.token_a, p.token_b,
            p.amount_a::text AS amount_a, p.amount_b::text AS amount_b, p.maker_fee_bps, p.protocol_fee_bps,
            p.created_at, p.created_at::text AS cursor_at, p.payload->'position' AS position, p.metadata,
            s.strategy_hash IS NOT NULL AS observed, s.first_seen_at, s.first_volume_seen_at,
            s.volume_usd, s.swap_count, s.status AS strategy_status, s.app, s.tokens AS shipped_tokens,
            s.docked_seen_at, p.replaces
       FROM positions p
       LEFT JOIN strategies s ON s.chain_key = p.chain_key AND s.strategy_hash = p.strategy_hash
      WHERE ${where.join(' AND ')}
      ORDER BY p.created_at DESC, p.strategy_hash DESC
      LIMIT $${params.length}`,
    params,
  );
  return rows;
}
