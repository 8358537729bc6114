/**
 * The events a position emits to its key's webhook endpoints, and where each one arises:
 * - `position.shipped`, `position.filled`, `position.docked`: queued by triggers on `strategies`
 *   (store/migrations/009_webhooks.sql) in the indexer's own transaction, when it stores the strategy,
 *   its first volume or its dock, so no observed transition can be lost between the two;
 * - `position.reverted`: queued by the trigger on the delete of a shipped strategy that a reorg's
 *   rewind makes (store/migrations/019_recovery.sql, indexer/rewind.ts);
 * - `position.health_changed`: `recordHealth` below, called by the indexer's health check
 *   (indexer/healthCheck.ts), the one place that observes health for events. A read of a position
 *   (GET /v1/positions/{id}) reports live health but never records it: a GET writes nothing.
 * The body of every event is `buildPayload`'s, built at a delivery's first attempt and sent unchanged.
 */
import type { ChainRegistry } from '../chain/registry.js';
import { type Db, inTransaction } from '../store/db.js';
import { enqueueHealthChanged, healthSeen, swapObservedHealth } from '../store/positionHealthSeen.js';
import { listPositionsOfKey } from '../store/positionList.js';
import { type ListedPosition, shapePosition } from './positions.js';

export const WEBHOOK_EVENTS = [
  'position.shipped',
  'position.filled',
  'position.docked',
  'position.health_changed',
  'position.reverted',
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

export const isWebhookEvent = (value: string): value is WebhookEvent =>
  (WEBHOOK_EVENTS as readonly string[]).includes(value);

/** A stored event type: the store holds only what registration and the triggers wrote, so any other is a bug. */
export function storedWebhookEvent(value: string): WebhookEvent {
  if (!isWebhookEvent(value)) throw new Error(`unknown webhook event stored: ${value.slice(0, 64)}`);
  return value;
}

/** Standard Webhooks' `{ type, timestamp, data }`: `data` is the listed position, plus `health` on a health change. */
export interface WebhookPayload {
  type: string;
  /** When the service observed the event (RFC 3339). */
  timestamp: string;
  data: ListedPosition & { health?: unknown };
}

export async function buildPayload(
  db: Db,
  registry: ChainRegistry,
  d: { key_id: string; strategy_hash: string; event_type: string; occurred_at: Date },
): Promise<string | null> {
  const [row] = await listPositionsOfKey(db, d.key_id, { hash: d.strategy_hash, limit: 1 });
  if (!row) return null;
  const data: WebhookPayload['data'] = { ...shapePosition(registry, row), metadata: row.metadata };
  if (d.event_type === 'position.health_changed') data.health = await healthSeen(db, d.strategy_hash);
  const payload: WebhookPayload = { type: d.event_type, timestamp: d.occurred_at.toISOString(), data };
  return JSON.stringify(payload);
}

/**
 * Records an observed health against the last one (position_health_seen) and, when it changed, queues
 * position.health_changed in the same transaction; true when it did. The first observation of a
 * position records a baseline and queues nothing. Events are coalesced per position and endpoint
 * (`coalesceMs`, WEBHOOK_HEALTH_COALESCE_MS).
 */
export async function recordHealth(
  db: Db,
  position: { chain_key: string; strategy_hash: string },
  health: { status: string },
  coalesceMs: number,
): Promise<boolean> {
  return inTransaction(db, async (client) => {
    const previous = await swapObservedHealth(client, position.strategy_hash, health);
    if (typeof previous !== 'string') return false;
    await enqueueHealthChanged(client, position.chain_key, position.strategy_hash, coalesceMs);
    return true;
  });
}
