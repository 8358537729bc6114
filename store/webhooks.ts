/**
 * Webhook endpoints, deliveries and attempts (migration 009). Every statement is parameterized; the
 * queue itself is graphile-worker's (its SQL API `graphile_worker.add_job`, called in the transaction
 * that records what the job is for).
 */

import type pg from 'pg';
import type { WebhookEvent } from '../delivery/payload.js';
import { type Db, query, storeError } from './db.js';

export interface WebhookRow {
  webhook_id: string;
  key_id: string;
  url: string;
  events: WebhookEvent[];
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
  created_at: Date;
  disabled_at: Date | null;
  disabled_reason: string | null;
}

export interface DeliveryRow {
  delivery_id: string;
  webhook_id: string;
  /** Written only by the service (registration validates, the triggers name them). */
  event_type: WebhookEvent;
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

const WEBHOOK_COLUMNS = `webhook_id, key_id, url, events, secret, previous_secret, previous_secret_expires_at,
  created_at, disabled_at, disabled_reason`;

/** The job of one attempt of a delivery's `generation` (a replay starts the next generation). */
export const ADD_DELIVERY_JOB = 'SELECT webhook_add_job($1::text, $2::int, $3::timestamptz)';

/** Runs `work` in one transaction on one client of the pool. */
export async function inTransaction<T>(db: Db, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  let client: pg.PoolClient;
  try {
    client = await db.connect();
  } catch (error) {
    throw storeError(error);
  }
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw storeError(error);
  } finally {
    client.release();
  }
}

/** Inserts an endpoint unless its key already has `max`; null when it has. */
export async function insertWebhook(
  db: Db,
  row: Pick<WebhookRow, 'webhook_id' | 'key_id' | 'url' | 'events' | 'secret'>,
  max: number,
): Promise<WebhookRow | null> {
  return inTransaction(db, async (client) => {
    // Serialises the creations of one key, so the bound holds under concurrent calls.
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`webhooks:${row.key_id}`]);
    const { rows: count } = await client.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM webhooks WHERE key_id = $1',
      [row.key_id],
    );
    if ((count[0]?.n ?? 0) >= max) return null;
    const { rows } = await client.query<WebhookRow>(
      `INSERT INTO webhooks (webhook_id, key_id, url, events, secret) VALUES ($1, $2, $3, $4, $5)
       RETURNING ${WEBHOOK_COLUMNS}`,
      [row.webhook_id, row.key_id, row.url, row.events, row.secret],
    );
    return rows[0] ?? null;
  });
}

export async function listWebhooks(db: Db, keyId: string): Promise<WebhookRow[]> {
  const { rows } = await query<WebhookRow>(
    db,
    `SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE key_id = $1 ORDER BY created_at DESC, webhook_id DESC`,
    [keyId],
  );
  return rows;
}

/** An endpoint of the key; another key's and a missing one are both undefined. */
export async function findWebhook(db: Db, keyId: string, webhookId: string): Promise<WebhookRow | undefined> {
  const { rows } = await query<WebhookRow>(
    db,
    `SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE webhook_id = $1 AND key_id = $2`,
    [webhookId, keyId],
  );
  return rows[0];
}

export async function deleteWebhook(db: Db, keyId: string, webhookId: string): Promise<boolean> {
  const { rowCount } = await query(db, 'DELETE FROM webhooks WHERE webhook_id = $1 AND key_id = $2', [
    webhookId,
    keyId,
  ]);
  return (rowCount ?? 0) > 0;
}

/** The new secret signs from now on; the current one keeps signing for `overlapSeconds`. */
export async function rotateWebhookSecret(
  db: Db,
  keyId: string,
  webhookId: string,
  sealed: string,
  overlapSeconds: number,
): Promise<WebhookRow | undefined> {
  const { rows } = await query<WebhookRow>(
    db,
    `UPDATE webhooks SET previous_secret = secret, secret = $3,
       previous_secret_expires_at = now() + make_interval(secs => $4)
     WHERE webhook_id = $1 AND key_id = $2
     RETURNING ${WEBHOOK_COLUMNS}`,
    [webhookId, keyId, sealed, overlapSeconds],
  );
  return rows[0];
}

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
