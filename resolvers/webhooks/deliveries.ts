/**
 * The deliveries of an endpoint with every attempt (GET /v1/webhooks/{id}/deliveries), newest first,
 * keyset-paginated with an opaque cursor, and the replay of one delivery.
 */

import { storedWebhookEvent } from '../../domain/positionEvents.js';
import { ApiError } from '../../lib/errors.js';
import {
  type AttemptRow,
  attemptsOf,
  type DeliveryRow,
  listDeliveries,
  replayDelivery,
} from '../../store/webhookDeliveries.js';
import { timeKeysetCursor } from '../catalogue/cursor.js';
import { type Connection, pageConnection } from '../connection.js';
import type { GraphQLContext } from '../context.js';
import { webhookOfKey } from './endpoints.js';
import type { WebhookAttempt, WebhookDelivery } from './types.js';

export const DELIVERIES_MAX_LIMIT = 100;
export const DELIVERIES_DEFAULT_LIMIT = 20;
export const DELIVERY_ID_PATTERN = /^msg_[0-9a-f]{32}$/;
export const DELIVERY_NOT_FOUND = 'No delivery with this id for this webhook.';
const CURSOR_CODE = 'd';

const { encode: encodeCursor, decode: decodeCursor } = timeKeysetCursor(CURSOR_CODE, DELIVERY_ID_PATTERN);

const attemptOf = (a: AttemptRow): WebhookAttempt => ({
  attempt: a.attempt,
  generation: a.generation,
  attemptedAt: a.attempted_at,
  statusCode: a.status_code,
  durationMs: a.duration_ms,
  error: a.error,
  nextAttemptAt: a.next_attempt_at,
});

function deliveryOf(row: DeliveryRow, attempts: WebhookAttempt[]): WebhookDelivery {
  return {
    id: row.delivery_id,
    event: storedWebhookEvent(row.event_type),
    positionId: row.strategy_hash,
    occurredAt: row.occurred_at,
    status: row.status,
    nextAttemptAt: row.status === 'pending' ? row.next_attempt_at : null,
    completedAt: row.completed_at,
    attempts,
  };
}

export async function deliveriesOf(
  ctx: GraphQLContext,
  args: { webhookId: string; limit?: number | null; cursor?: string | null },
): Promise<Connection<WebhookDelivery>> {
  const limit = args.limit ?? DELIVERIES_DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > DELIVERIES_MAX_LIMIT)
    throw ApiError.invalid('limit', `limit must be an integer from 1 to ${DELIVERIES_MAX_LIMIT}.`);
  const after = args.cursor === undefined || args.cursor === null ? undefined : decodeCursor(args.cursor);
  const webhook = await webhookOfKey(ctx, args.webhookId);
  const rows = await listDeliveries(ctx.services.db, webhook.webhook_id, { after, limit: limit + 1 });
  const page = rows.slice(0, limit);
  const attempts = await attemptsOf(
    ctx.services.db,
    page.map((r) => r.delivery_id),
  );
  const byDelivery = new Map<string, WebhookAttempt[]>();
  for (const a of attempts) {
    const list = byDelivery.get(a.delivery_id) ?? [];
    list.push(attemptOf(a));
    byDelivery.set(a.delivery_id, list);
  }
  return pageConnection(
    rows,
    limit,
    (r) => encodeCursor(r.cursor_at, r.delivery_id),
    (r) => deliveryOf(r, byDelivery.get(r.delivery_id) ?? []),
  );
}

export async function replay(
  ctx: GraphQLContext,
  args: { webhookId: string; deliveryId: string },
): Promise<WebhookDelivery> {
  if (!DELIVERY_ID_PATTERN.test(args.deliveryId))
    throw ApiError.invalid('deliveryId', 'deliveryId must match ^msg_[0-9a-f]{32}$.');
  const webhook = await webhookOfKey(ctx, args.webhookId);
  const row = await replayDelivery(ctx.services.db, webhook.webhook_id, args.deliveryId);
  if (!row) throw ApiError.notFound(DELIVERY_NOT_FOUND, 'deliveryId');
  const attempts = await attemptsOf(ctx.services.db, [row.delivery_id]);
  return deliveryOf(row, attempts.map(attemptOf));
}
