/**
 * Where each chain's indexing stands, as every process can read it (the writer may be another replica
 * or the indexer process): from the checkpoint row, its last successful sync (`synced_at`, migration
 * 019) and the head that sync saw. A chain is degraded when
 *   - it has no checkpoint (not indexed yet, or rewound to genesis and not re-indexed),
 *   - no sync has ended well for `stallSeconds` (its node failing, the writer stuck or gone), or
 *   - it is more than `behindBlocks` blocks below the confirmed head it aims at (re-syncing from far
 *     behind: its rows are incomplete).
 * A quiet chain (no new blocks) stays healthy: each sync that finds nothing to do still records itself.
 */
import type { Db } from './db.js';

export interface ChainIndexing {
  chain: string;
  /** Why the chain's catalogue cannot be trusted to be current; null when it can. */
  degraded: string | null;
  /** Seconds since its last completed sync (null: none recorded). */
  sinceSyncSeconds: number | null;
}

export async function chainIndexing(
  db: Db,
  chains: ReadonlyArray<{ key: string; confirmations: number }>,
  bounds: { stallSeconds: number; behindBlocks: number },
): Promise<ChainIndexing[]> {
  const { rows } = await db.query<{
    chain_key: string;
    last_block: string;
    head_block: string | null;
    stalled_for: number | null;
  }>(
    `SELECT chain_key, last_block, head_block, extract(epoch FROM now() - synced_at)::float8 AS stalled_for
     FROM indexer_checkpoints WHERE chain_key = ANY($1)`,
    [chains.map((c) => c.key)],
  );
  const byKey = new Map(rows.map((r) => [r.chain_key, r]));
  return chains.map(({ key, confirmations }) => {
    const row = byKey.get(key);
    if (!row) return { chain: key, degraded: 'not indexed yet', sinceSyncSeconds: null };
    const sinceSyncSeconds = row.stalled_for;
    if (sinceSyncSeconds === null || sinceSyncSeconds > bounds.stallSeconds)
      return {
        chain: key,
        sinceSyncSeconds,
        degraded:
          sinceSyncSeconds === null
            ? 'no sync has completed yet'
            : `no indexer progress for ${Math.round(sinceSyncSeconds)} s`,
      };
    const behind =
      row.head_block === null ? 0 : Number(row.head_block) - confirmations - Number(row.last_block);
    if (behind > bounds.behindBlocks)
      return {
        chain: key,
        sinceSyncSeconds,
        degraded: `re-syncing: ${behind} blocks behind the confirmed head`,
      };
    return { chain: key, sinceSyncSeconds, degraded: null };
  });
}
