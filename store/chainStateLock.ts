/**
 * A chain's writes of what decides its strategies' `state` (migration 030), taken in turns: the
 * indexer's chunks and rewinds move balances and statuses (the list trigger computes the state from them
 * and the wallet rows it sees), the wallet reader stores wallets and sets the states they turn. Under
 * READ COMMITTED each would otherwise compute from the other's rows as they were before it committed,
 * and both commit a stale state. A transaction lock, taken first, before any row lock: the two cannot
 * deadlock on rows either.
 */
import type pg from 'pg';

/** Advisory-lock namespace (second key: hashtext(chain key)); beside indexer/writerLock.ts's. */
export const STATE_LOCK_SPACE = 7_420_030;

export async function lockChainStates(client: pg.ClientBase, chain: string): Promise<void> {
  await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [STATE_LOCK_SPACE, chain]);
}
