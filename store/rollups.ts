import { type Db, query } from './db.js';

/** Volumes of one scope (everything, a chain, or a pair) over the three windows. */
export interface VolumeWindows {
  volume_1d_usd: number;
  volume_7d_usd: number;
  volume_30d_usd: number;
}

export interface ChainRollup extends VolumeWindows {
  chain: string;
  chain_id: number;
  /** Open (active) strategies. */
  count: number;
  makers: number;
  pairs: number;
  swaps_30d: number;
  last_activity: string | null;
}

export interface PairRollup extends VolumeWindows {
  /** Symbols in alphabetical order, e.g. "USDC/USDT" (the strategies.pair_key). */
  pair: string;
  /** Open strategies of the pair across chains. */
  count: number;
  chains: string[];
  last_activity: string | null;
}

/**
 * The pre-aggregated catalogue roll-up: written by the indexer's refresh (rollups.name = 'catalogue'),
 * read by /api/stats, the badge and the strategies `stats`/`chains` resources. Totals are sums over
 * `chains` (makers and pairs are distinct counts over all chains).
 */
export interface CatalogueRollup {
  totals: VolumeWindows & {
    strategies: number;
    makers: number;
    pairs: number;
    chains: number;
    last_activity: string | null;
  };
  chains: ChainRollup[];
  pairs: PairRollup[];
}

export const CATALOGUE_ROLLUP = 'catalogue';

export async function readRollup(
  db: Db,
  name = CATALOGUE_ROLLUP,
): Promise<{ payload: CatalogueRollup; refreshedAt: Date } | null> {
  const { rows } = await query<{ payload: CatalogueRollup; refreshed_at: Date }>(
    db,
    'SELECT payload, refreshed_at FROM rollups WHERE name = $1',
    [name],
  );
  const row = rows[0];
  return row ? { payload: row.payload, refreshedAt: row.refreshed_at } : null;
}

export async function writeRollup(db: Db, payload: CatalogueRollup, name = CATALOGUE_ROLLUP): Promise<Date> {
  const { rows } = await query<{ refreshed_at: Date }>(
    db,
    `INSERT INTO rollups (name, payload, refreshed_at) VALUES ($1, $2, now())
     ON CONFLICT (name) DO UPDATE SET payload = EXCLUDED.payload, refreshed_at = EXCLUDED.refreshed_at
     RETURNING refreshed_at`,
    [name, JSON.stringify(payload)],
  );
  return rows[0]!.refreshed_at;
}
