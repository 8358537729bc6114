/**
 * The hashes of the blocks indexed near the chain's head (migration 013 `indexer_blocks`): what a
 * reorg is detected and located with. Written in the chunk's own transaction (write.ts), so a stored
 * hash always describes rows that are stored.
 */
import type pg from 'pg';
import type { BlockHeader } from './rpc.js';

/** Stores the headers of a chunk and forgets those more than `window` blocks below its last block. */
export async function storeBlocks(
  client: pg.ClientBase,
  chainKey: string,
  headers: readonly BlockHeader[],
  window: number,
): Promise<void> {
  if (headers.length === 0) return;
  await client.query(
    `INSERT INTO indexer_blocks (chain_key, block_number, block_hash, parent_hash)
     SELECT $1, n, h, p FROM unnest($2::bigint[], $3::text[], $4::text[]) AS t(n, h, p)
     ON CONFLICT (chain_key, block_number) DO UPDATE
     SET block_hash = EXCLUDED.block_hash, parent_hash = EXCLUDED.parent_hash`,
    [chainKey, headers.map((h) => h.number), headers.map((h) => h.hash), headers.map((h) => h.parentHash)],
  );
  const last = Math.max(...headers.map((h) => h.number));
  await client.query('DELETE FROM indexer_blocks WHERE chain_key = $1 AND block_number < $2', [
    chainKey,
    last - window,
  ]);
}

/** The stored hashes at or below `upTo`, highest first: where a fork point is looked for. */
export async function storedHashes(
  client: pg.ClientBase,
  chainKey: string,
  upTo: number,
  limit: number,
): Promise<{ number: number; hash: string }[]> {
  const { rows } = await client.query<{ block_number: string; block_hash: string }>(
    `SELECT block_number, block_hash FROM indexer_blocks
     WHERE chain_key = $1 AND block_number <= $2 ORDER BY block_number DESC LIMIT $3`,
    [chainKey, upTo, limit],
  );
  return rows.map((r) => ({ number: Number(r.block_number), hash: r.block_hash }));
}

/** A sync found the chain's head already indexed: the catalogue holds every event up to now. */
export async function markIndexedThrough(client: pg.ClientBase, chainKey: string, at: Date): Promise<void> {
  await client.query('UPDATE indexer_checkpoints SET indexed_through_at = $2 WHERE chain_key = $1', [
    chainKey,
    at,
  ]);
}
