/** The background health check's reads (indexer/healthCheck.ts): positions whose key listens to position.health_changed. */
import { type Db, query } from './db.js';
import { type PositionStatusRow, STATUS_COLUMNS } from './positions.js';

/** Shipped, not docked, on one of `chains`, of a key with an enabled endpoint subscribed to the event. */
const SUBSCRIBED = `s.status = 'active' AND p.chain_key = ANY ($1::text[])
       AND EXISTS (SELECT 1 FROM webhooks w WHERE w.key_id = p.key_id AND w.disabled_at IS NULL
                     AND 'position.health_changed' = ANY (w.events))`;

export interface WalletRef {
  chain_key: string;
  wallet: string;
}

/** The (chain, wallet) pairs holding a subscribed position. */
export async function subscribedWallets(db: Db, chains: readonly string[]): Promise<WalletRef[]> {
  const { rows } = await query<WalletRef>(
    db,
    `SELECT DISTINCT p.chain_key, p.wallet
       FROM positions p
       JOIN strategies s ON s.chain_key = p.chain_key AND s.strategy_hash = p.strategy_hash
      WHERE ${SUBSCRIBED}`,
    [chains],
  );
  return rows;
}

/** The subscribed positions of one wallet on one chain. */
export async function subscribedPositionsOf(db: Db, ref: WalletRef): Promise<PositionStatusRow[]> {
  const { rows } = await query<PositionStatusRow>(
    db,
    `SELECT ${STATUS_COLUMNS}
       FROM positions p
       JOIN strategies s ON s.chain_key = p.chain_key AND s.strategy_hash = p.strategy_hash
      WHERE ${SUBSCRIBED} AND p.wallet = $2
      ORDER BY p.created_at, p.strategy_hash`,
    [[ref.chain_key], ref.wallet],
  );
  return rows;
}

/**
 * The makers of the catalogue events (ship, swap, dock) after `afterId` on `chains`, and the last id
 * (`afterId` when there is none): the wallets whose allowances and balances the indexed logs changed.
 */
export async function makersSince(
  db: Db,
  chains: readonly string[],
  afterId: string | null,
): Promise<{ lastId: string | null; makers: WalletRef[] }> {
  const last = await query<{ id: string | null }>(db, 'SELECT max(id)::text AS id FROM catalogue_events');
  const lastId = last.rows[0]?.id ?? afterId;
  if (afterId === null || lastId === null) return { lastId, makers: [] };
  const { rows } = await query<WalletRef>(
    db,
    `SELECT DISTINCT chain_key, lower(data->>'maker') AS wallet
       FROM catalogue_events
      WHERE id > $1::bigint AND id <= $2::bigint AND chain_key = ANY ($3::text[]) AND data->>'maker' IS NOT NULL`,
    [afterId, lastId, chains],
  );
  return { lastId, makers: rows };
}
