import { type Db, query } from './db.js';

/** Volumes of one scope (everything, a chain, or a pair) over the three windows. */
export interface VolumeWindows {
  volume_1d_usd: number;
  volume_7d_usd: number;
  volume_30d_usd: number;
}

/**
 * Total value locked: the live virtual balances of open strategies at the configured USD prices
 * (catalogue_pair_balances, migration 014), as of the refresh. Absent from roll-ups written before it.
 */
export interface Tvl {
  tvl_usd?: number;
}

/**
 * What the open strategies can really pay out: per maker and token the smaller of their virtual balances,
 * the wallet's balance and its allowance (pullable_balances, migration 026), as of the last wallet reads.
 * Absent from roll-ups written before it.
 */
export interface Pullable {
  pullable_usd?: number;
}

export interface ChainRollup extends VolumeWindows, Tvl, Pullable {
  chain: string;
  chain_id: number;
  /** Open (active) strategies. */
  count: number;
  makers: number;
  pairs: number;
  swaps_30d: number;
  last_activity: string | null;
}

export interface PairRollup extends VolumeWindows, Tvl {
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
  totals: VolumeWindows &
    Tvl &
    Pullable & {
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

export interface StoredRollup {
  payload: CatalogueRollup;
  refreshedAt: Date;
  /**
   * The time the roll-up's data is complete up to: the oldest of its chains' indexed times (migration
   * 013), never later than the refresh. During a backfill it is the time of the last indexed block.
   */
  dataAsOf: Date;
}

export async function readRollup(db: Db, name = CATALOGUE_ROLLUP): Promise<StoredRollup | null> {
  const { rows } = await query<{ payload: CatalogueRollup; refreshed_at: Date; data_as_of: Date }>(
    db,
    `SELECT payload, refreshed_at, least(refreshed_at, coalesce(data_as_of, refreshed_at)) AS data_as_of
     FROM rollups WHERE name = $1`,
    [name],
  );
  const row = rows[0];
  return row ? { payload: row.payload, refreshedAt: row.refreshed_at, dataAsOf: row.data_as_of } : null;
}

/** Writes the roll-up; `dataAsOf` is when its data is complete up to (null: as of the refresh). */
export async function writeRollup(
  db: Db,
  payload: CatalogueRollup,
  name = CATALOGUE_ROLLUP,
  dataAsOf: Date | null = null,
): Promise<Date> {
  const { rows } = await query<{ refreshed_at: Date }>(
    db,
    `INSERT INTO rollups (name, payload, refreshed_at, data_as_of) VALUES ($1, $2, now(), $3)
     ON CONFLICT (name) DO UPDATE
     SET payload = EXCLUDED.payload, refreshed_at = EXCLUDED.refreshed_at, data_as_of = EXCLUDED.data_as_of
     RETURNING refreshed_at`,
    [name, JSON.stringify(payload), dataAsOf],
  );
  return rows[0]!.refreshed_at;
}
