/**
 * The last health observed of each position (position_health_seen) and the position.health_changed
 * deliveries queued when it changes. Both run in the caller's transaction (domain/positionEvents.ts).
 */
import type pg from 'pg';
import type { Db } from './db.js';

/** The last health observed of a position, and the new one when it differs (in `client`'s transaction). */
export async function swapObservedHealth(
  client: pg.ClientBase,
  strategyHash: string,
  health: { status: string },
): Promise<string | null | undefined> {
  // The row is locked first, so two reads observing the same change queue it once.
  const { rows } = await client.query<{ status: string }>(
    'SELECT status FROM position_health_seen WHERE strategy_hash = $1 FOR UPDATE',
    [strategyHash],
  );
  const previous = rows[0]?.status;
  if (previous === health.status) return undefined;
  const { rowCount } = await client.query(
    `INSERT INTO position_health_seen AS h (strategy_hash, status, health, seen_at) VALUES ($1, $2, $3, now())
     ON CONFLICT (strategy_hash) DO UPDATE SET status = EXCLUDED.status, health = EXCLUDED.health, seen_at = now()
       WHERE h.status IS DISTINCT FROM EXCLUDED.status`,
    [strategyHash, health.status, JSON.stringify(health)],
  );
  // Unchanged: another read recorded the same status first. Else the previous status (null: first observation).
  return (rowCount ?? 0) === 0 ? undefined : (previous ?? null);
}

/**
 * Queues position.health_changed for the subscribed endpoints of the position's key (in `client`'s
 * transaction), coalesced: nothing while one is unsent, and at most one per `intervalMs` per endpoint.
 */
export async function enqueueHealthChanged(
  client: pg.ClientBase,
  chainKey: string,
  strategyHash: string,
  intervalMs: number,
) {
  await client.query(
    `SELECT webhook_enqueue_health($1::text, $2::text, make_interval(secs => $3::float8 / 1000))`,
    [chainKey, strategyHash, intervalMs],
  );
}

export async function healthSeen(db: Db, strategyHash: string): Promise<unknown> {
  const { rows } = await db.query<{ health: unknown }>(
    'SELECT health FROM position_health_seen WHERE strategy_hash = $1',
    [strategyHash],
  );
  return rows[0]?.health ?? null;
}
