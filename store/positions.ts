import { type Db, query } from './db.js';

/** A prepared position as stored (migration 003). `payload` is the response `data` without metadata. */
export interface PositionRow {
  strategy_hash: string;
  key_id: string;
  idempotency_key: string | null;
  chain_key: string;
  chain_id: number;
  wallet: string;
  token_a: string;
  token_b: string;
  amount_a: string;
  amount_b: string;
  maker_fee_bps: number;
  protocol_fee_bps: number;
  request_fingerprint: string;
  payload: unknown;
  metadata: Record<string, string> | null;
  created_at: Date;
  /** The position a rebalance prepared this one to replace (migration 025); null otherwise. */
  replaces: string | null;
}

export type NewPosition = Omit<PositionRow, 'created_at'> & { created_at: Date };

const COLUMNS = `strategy_hash, key_id, idempotency_key, chain_key, chain_id, wallet, token_a, token_b,
  amount_a::text AS amount_a, amount_b::text AS amount_b, maker_fee_bps, protocol_fee_bps,
  request_fingerprint, payload, metadata, created_at, replaces`;

/**
 * Inserts a position unless one with the same (key_id, idempotency_key) — or the same strategy hash —
 * exists. Returns whether this call wrote it; when another insert won, the caller reads that one back.
 * One statement, so concurrent duplicates cannot both write. Only the key comes back: the caller has
 * the row it wrote (returning it all sent its ~5 KB payload back to be parsed again).
 */
export async function insertPosition(db: Db, row: NewPosition): Promise<boolean> {
  const { rows } = await query<{ strategy_hash: string }>(
    db,
    `INSERT INTO positions (strategy_hash, key_id, idempotency_key, chain_key, chain_id, wallet, token_a, token_b,
       amount_a, amount_b, maker_fee_bps, protocol_fee_bps, request_fingerprint, payload, metadata, created_at,
       replaces)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)
     ON CONFLICT DO NOTHING
     RETURNING strategy_hash`,
    [
      row.strategy_hash,
      row.key_id,
      row.idempotency_key,
      row.chain_key,
      row.chain_id,
      row.wallet,
      row.token_a,
      row.token_b,
      row.amount_a,
      row.amount_b,
      row.maker_fee_bps,
      row.protocol_fee_bps,
      row.request_fingerprint,
      JSON.stringify(row.payload),
      row.metadata === null ? null : JSON.stringify(row.metadata),
      row.created_at,
      row.replaces,
    ],
  );
  return rows.length > 0;
}

export async function findPositionByIdempotencyKey(
  db: Db,
  keyId: string,
  idempotencyKey: string,
): Promise<PositionRow | undefined> {
  const { rows } = await query<PositionRow>(
    db,
    `SELECT ${COLUMNS} FROM positions WHERE key_id = $1 AND idempotency_key = $2`,
    [keyId, idempotencyKey],
  );
  return rows[0];
}

/** A position of one key with what the indexer has observed of its strategy (null columns: not seen). */
export interface PositionStatusRow
  extends Pick<
    PositionRow,
    | 'strategy_hash'
    | 'chain_key'
    | 'chain_id'
    | 'wallet'
    | 'token_a'
    | 'token_b'
    | 'amount_a'
    | 'amount_b'
    | 'maker_fee_bps'
    | 'protocol_fee_bps'
    | 'created_at'
    | 'replaces'
  > {
  /** The prepared `position` object (symbols and decimals as prepared). */
  position: {
    tokenA?: { symbol?: string; decimals?: number };
    tokenB?: { symbol?: string; decimals?: number };
  } | null;
  observed: boolean;
  first_seen_at: Date | null;
  first_volume_seen_at: Date | null;
  volume_usd: number | null;
  swap_count: number | null;
  /** The catalogue's view of the strategy (null: not seen): open, or closed by its maker. */
  strategy_status: 'active' | 'docked' | null;
  /** The app it was shipped to, and its tokens in the order shipped (Pushed order). */
  app: string | null;
  shipped_tokens: { address: string }[] | null;
  /** When the service first observed it docked (migration 007). */
  docked_seen_at: Date | null;
}

/** The columns of a PositionStatusRow, over `positions p LEFT JOIN strategies s`. */
export const STATUS_COLUMNS = `p.strategy_hash, p.chain_key, p.chain_id, p.wallet, p.token_a, p.token_b,
            p.amount_a::text AS amount_a, p.amount_b::text AS amount_b, p.maker_fee_bps, p.protocol_fee_bps,
            p.created_at, p.payload->'position' AS position, s.strategy_hash IS NOT NULL AS observed, s.first_seen_at, s.first_volume_seen_at,
            s.volume_usd, s.swap_count, s.status AS strategy_status, s.app, s.tokens AS shipped_tokens,
            s.docked_seen_at, p.replaces`;

/**
 * One query whatever the outcome: a position of another key and a missing one cost the same and both
 * come back `undefined`, so nothing (body or timing) tells them apart.
 */
export async function findPositionStatus(
  db: Db,
  keyId: string,
  strategyHash: string,
): Promise<PositionStatusRow | undefined> {
  const { rows } = await query<PositionStatusRow>(
    db,
    `SELECT ${STATUS_COLUMNS}
       FROM positions p
       LEFT JOIN strategies s ON s.chain_key = p.chain_key AND s.strategy_hash = p.strategy_hash
      WHERE p.strategy_hash = $1 AND p.key_id = $2`,
    [strategyHash, keyId],
  );
  return rows[0];
}
