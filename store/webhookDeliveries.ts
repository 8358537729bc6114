/**
 * Webhook deliveries and their attempts (migration 009). The queue itself is graphile-worker's (its SQL
 * API `graphile_worker.add_job`, called in the transaction that records what the job is for).
 */
import { type Db, inTransaction, query } from './db.js';

export interface DeliveryRow {
  delivery_id: string;
  webhook_id: string;
  /** Written only by the service (registration validates, the triggers name them). */
  event_type: string;
  strategy_hash: string;
  occurred_at: Date;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  generation: number;
  next_attempt_at: Date | null;
  completed_at: Date | null;
  cursor_at: string;
}

export interface AttemptRow {
  delivery_id: string;
  generation: number;
  attempt: number;
  attempted_at: Date;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  next_attempt_at: Date | null;
}

/** The job of one attempt of a delivery's `generation` (a replay starts the next generation). */
export const ADD_DELIVERY_JOB = 'SELECT webhook_add_job($1::text, $2::int, $3::timestamptz)';

const DELIVERY_COLUMNS = `delivery_id, webhook_id, event_type, strategy_hash, occurred_at, status, attempts,
  generation, next_attempt_at, completed_at, occurred_at::text AS cursor_at`;

/** A page of an endpoint's deliveries, newest first, keyset after (occurred_at text, delivery_id). */
export async function listDeliveries(
  db: Db,
  webhookId: string,
  page: { after?: { at: string; id: string }; limit: number },
): Promise<DeliveryRow[]> {
  const params: unknown[] = [webhookId, page.limit];
  let after = '';
  if (page.after) {
    params.push(page.after.at, page.after.id);
    after = 'AND (occurred_at, delivery_id) < ($3::timestamptz, $4)';
  }
  const { rows } = await query<DeliveryRow>(
    db,
    `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE webhook_id = $1 ${after}
      ORDER BY occurred_at DESC, delivery_id DESC LIMIT $2`,
    params,
  );
  return rows;
}

export async function attemptsOf(db: Db, deliveryIds: readonly string[]): Promise<AttemptRow[]> {
  if (deliveryIds.length === 0) return [];
  const { rows } = await query<AttemptRow>(
    db,
    `SELECT delivery_id, generation, attempt, attempted_at, status_code, duration_ms, error, next_attempt_at
       FROM webhook_attempts WHERE delivery_id = ANY ($1::text[])
      ORDER BY attempted_at, generation, attempt`,
    [deliveryIds],
  );
  return rows;
}

/**
 * Sends a delivery again (same webhook-id and body, new timestamp and signatures): a new generation of
 * attempts with the whole retry schedule, queued in the same transaction. An endpoint disabled after
 * failures is enabled again (the integrator asks for delivery: the receiver is back).
 */
export async function replayDelivery(
  db: Db,
  webhookId: string,
  deliveryId: string,
): Promise<DeliveryRow | undefined> {
  return inTransaction(db, async (client) => {
    const { rows } = await client.query<DeliveryRow>(
      `UPDATE webhook_deliveries SET generation = generation + 1, attempts = 0, status = 'pending',
         next_attempt_at = now(), completed_at = NULL
       WHERE delivery_id = $1 AND webhook_id = $2
       RETURNING ${DELIVERY_COLUMNS}`,
      [deliveryId, webhookId],
    );
    const row = rows[0];
    if (!row) return undefined;
    await client.query(
      'UPDATE webhooks SET disabled_at = NULL, disabled_reason = NULL WHERE webhook_id = $1',
      [webhookId],
    );
    await client.query(ADD_DELIVERY_JOB, [row.delivery_id, row.generation, new Date()]);
    return row;
  });
}
