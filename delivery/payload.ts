/**
 * The body of a webhook (Standard Webhooks' `{ type, timestamp, data }`): `data` is the position as
 * GET /v1/positions lists it (the observed fields of GET /v1/positions/{id} with its metadata), plus
 * `health` on position.health_changed. Built at a delivery's first attempt and sent unchanged after.
 */
import type { ChainRegistry } from '../chain/registry.js';
import type { ListedPosition } from '../resolvers/positions/list.js';
import { shapePosition } from '../resolvers/positions/status.js';
import type { Db } from '../store/db.js';
import { listPositionsOfKey } from '../store/positionList.js';
import { healthSeen } from '../store/webhooks.js';

export const WEBHOOK_EVENTS = [
  'position.shipped',
  'position.filled',
  'position.docked',
  'position.health_changed',
  'position.reverted',
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

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
