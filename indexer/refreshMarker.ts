/**
 * A periodic computation that may run less often than the roll-up refresh that triggers it (the
 * leaderboard, the strategy list's earnings keys): its last run is a row of `rollups`, shared by the
 * replicas, so whichever refreshes next sees it.
 */
import type pg from 'pg';

/** True when `name` last ran more than `intervalMs` before `now` (or never). */
export async function isDue(
  client: pg.ClientBase,
  name: string,
  now: Date,
  intervalMs: number,
): Promise<boolean> {
  const { rows } = await client.query<{ due: boolean }>(
    `SELECT coalesce((SELECT refreshed_at FROM rollups WHERE name = $1) < $2::timestamptz - make_interval(secs => $3),
       true) AS due`,
    [name, now, intervalMs / 1000],
  );
  return rows[0]?.due ?? true;
}

/** Records that `name` ran at `now`. */
export async function markRun(client: pg.ClientBase, name: string, now: Date): Promise<void> {
  await client.query(
    `INSERT INTO rollups (name, payload, refreshed_at) VALUES ($1, '{}', $2)
     ON CONFLICT (name) DO UPDATE SET refreshed_at = EXCLUDED.refreshed_at`,
    [name, now],
  );
}
