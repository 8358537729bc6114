/**
 * Reads and pruning of the catalogue events (table of migration 010, written by the indexer in
 * indexer/catalogueEvents.ts). The gateways read them to serve GET /api/events.
 */
import { type Db, query } from './db.js';

/** The NOTIFY channel the indexer signals new events on (an identifier: no quoting needed). */
export const CATALOGUE_EVENTS_CHANNEL = 'catalogue_events';

export interface CatalogueEvent {
  id: number;
  /** `strategy.shipped`, `strategy.swapped`, `strategy.docked` or `chain.rewound` (indexer/rewind.ts). */
  kind: string;
  /** The event's JSON data, as the indexer wrote it (one line). */
  data: string;
}

/** The events after `afterId`, oldest first, at most `limit`. */
export async function readCatalogueEventsAfter(
  db: Db,
  afterId: number,
  limit: number,
): Promise<CatalogueEvent[]> {
  const { rows } = await query<{ id: string; kind: string; data: string }>(
    db,
    'SELECT id, kind, data::text AS data FROM catalogue_events WHERE id > $1 ORDER BY id LIMIT $2',
    [afterId, limit],
  );
  return rows.map((r) => ({ id: Number(r.id), kind: r.kind, data: r.data }));
}

export interface EventWindow {
  /** Every event up to this id may have been pruned. */
  prunedThrough: number;
  /** The newest event id (at least `prunedThrough`). */
  head: number;
}

/** What a client can resume from: any id from `prunedThrough` to `head`. */
export async function readEventWindow(db: Db): Promise<EventWindow> {
  const { rows } = await query<{ pruned_through: string; head: string }>(
    db,
    `SELECT p.pruned_through, greatest(p.pruned_through, (SELECT max(id) FROM catalogue_events)) AS head
     FROM catalogue_events_pruned p`,
  );
  const row = rows[0];
  return { prunedThrough: Number(row?.pruned_through ?? 0), head: Number(row?.head ?? 0) };
}

// The bound is the newer of: the newest event older than the age limit, and the newest event beyond the
// count limit. Everything up to it goes, and the window's start moves to it.
const PRUNE = `
WITH bound AS (
  SELECT greatest(
    (SELECT max(id) FROM catalogue_events WHERE created_at < now() - $1 * interval '1 hour'),
    (SELECT id FROM catalogue_events ORDER BY id DESC OFFSET $2 LIMIT 1)
  ) AS id
), deleted AS (
  DELETE FROM catalogue_events WHERE id <= (SELECT id FROM bound) RETURNING id
)
UPDATE catalogue_events_pruned
SET pruned_through = greatest(pruned_through, (SELECT id FROM bound))
WHERE (SELECT id FROM bound) IS NOT NULL
RETURNING (SELECT count(*) FROM deleted) AS deleted`;

/** Drops the events older than `retainHours` and beyond the newest `retainCount`; returns how many. */
export async function pruneCatalogueEvents(
  db: Db,
  retention: { retainHours: number; retainCount: number },
): Promise<number> {
  const { rows } = await query<{ deleted: string }>(db, PRUNE, [
    retention.retainHours,
    retention.retainCount,
  ]);
  return Number(rows[0]?.deleted ?? 0);
}
