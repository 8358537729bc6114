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
export const ADD_DELIVERY_JOB = `SELECT graphile_worker.add_job('webhook_deliver',
  json_build_object('deliveryId', $1::text, 'generation', $2::int), run_at := $3::timestamptz, max_attempts := 10)`;

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

/** Queues position.health_changed for the subscribed endpoints of the position's key (in `client`'s transaction). */
export async function enqueueHealthChanged(client: pg.ClientBase, chainKey: string, strategyHash: string) {
  await client.query(
    `SELECT webhook_enqueue($1::text, $2::text, 'position.health_changed',
       'position.health_changed:' || $2::text || ':' || gen_random_uuid()::text)`,
    [chainKey, strategyHash],
  );
}

// ---- The delivery worker's statements (delivery/worker.ts) ----

export interface ClaimedDelivery {
  delivery_id: string;
  generation: number;
  attempts: number;
  event_type: string;
  strategy_hash: string;
  occurred_at: Date;
  payload: string | null;
  webhook_id: string;
  key_id: string;
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
  disabled_at: Date | null;
}

/**
 * Marks a pending delivery of this generation as being attempted by `workerId`; undefined when there is
 * nothing to do (delivered, given up, replayed since, or its endpoint deleted).
 */
export async function claimDelivery(
  db: Db,
  deliveryId: string,
  generation: number,
  workerId: string,
): Promise<ClaimedDelivery | undefined> {
  const { rows } = await db.query<ClaimedDelivery>(
    `UPDATE webhook_deliveries d SET claimed_by = $3, claimed_at = now()
       FROM webhooks w
      WHERE d.delivery_id = $1 AND d.generation = $2 AND d.status = 'pending' AND w.webhook_id = d.webhook_id
      RETURNING d.delivery_id, d.generation, d.attempts, d.event_type, d.strategy_hash, d.occurred_at, d.payload,
        w.webhook_id, w.key_id, w.url, w.secret, w.previous_secret, w.previous_secret_expires_at, w.disabled_at`,
    [deliveryId, generation, workerId],
  );
  return rows[0];
}

export async function releaseClaim(db: Db, deliveryId: string): Promise<void> {
  await db.query(
    'UPDATE webhook_deliveries SET claimed_by = NULL, claimed_at = NULL WHERE delivery_id = $1',
    [deliveryId],
  );
}

/** Stores the body the first attempt built; a body stored meanwhile wins (every attempt sends the same bytes). */
export async function fixPayload(db: Db, deliveryId: string, payload: string): Promise<string> {
  const { rows } = await db.query<{ payload: string }>(
    `UPDATE webhook_deliveries SET payload = coalesce(payload, $2) WHERE delivery_id = $1 RETURNING payload`,
    [deliveryId, payload],
  );
  return rows[0]?.payload ?? payload;
}

export async function healthSeen(db: Db, strategyHash: string): Promise<unknown> {
  const { rows } = await db.query<{ health: unknown }>(
    'SELECT health FROM position_health_seen WHERE strategy_hash = $1',
    [strategyHash],
  );
  return rows[0]?.health ?? null;
}

export interface AttemptRecord {
  deliveryId: string;
  webhookId: string;
  generation: number;
  attempt: number;
  attemptedAt: Date;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  /** When the next attempt runs; null: none (delivered, or given up). */
  nextAttemptAt: Date | null;
  outcome: 'delivered' | 'retry' | 'exhausted';
  disabledReason: string | null;
}

/**
 * Records an attempt and its consequence in one transaction: delivered; or the next attempt queued; or
 * the delivery given up and its endpoint disabled. True when this call disabled the endpoint. An
 * endpoint deleted while its attempt was in flight took the delivery with it: nothing is recorded and
 * nothing retried (its row is locked first, so a delete either waits for this record or came before it).
 */
export async function recordAttempt(db: Db, r: AttemptRecord): Promise<boolean> {
  return inTransaction(db, async (client) => {
    const kept = await client.query('SELECT 1 FROM webhook_deliveries WHERE delivery_id = $1 FOR KEY SHARE', [
      r.deliveryId,
    ]);
    if (kept.rowCount === 0) return false;
    await client.query(
      `INSERT INTO webhook_attempts (delivery_id, generation, attempt, attempted_at, status_code, duration_ms, error,
         next_attempt_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING`,
      [
        r.deliveryId,
        r.generation,
        r.attempt,
        r.attemptedAt,
        r.statusCode,
        r.durationMs,
        r.error,
        r.nextAttemptAt,
      ],
    );
    const status = r.outcome === 'delivered' ? 'succeeded' : r.outcome === 'exhausted' ? 'failed' : 'pending';
    await client.query(
      `UPDATE webhook_deliveries SET attempts = $3, status = $4, next_attempt_at = $5, claimed_by = NULL,
         claimed_at = NULL, completed_at = CASE WHEN $4 = 'pending' THEN NULL ELSE now() END
       WHERE delivery_id = $1 AND generation = $2`,
      [r.deliveryId, r.generation, r.attempt, status, r.nextAttemptAt],
    );
    if (r.outcome === 'retry')
      await client.query(ADD_DELIVERY_JOB, [r.deliveryId, r.generation, r.nextAttemptAt]);
    if (r.outcome !== 'exhausted') return false;
    const { rowCount } = await client.query(
      `UPDATE webhooks SET disabled_at = now(), disabled_reason = $2 WHERE webhook_id = $1 AND disabled_at IS NULL`,
      [r.webhookId, r.disabledReason],
    );
    return (rowCount ?? 0) > 0;
  });
}

/**
 * The graphile-worker ids holding a delivery longer than an attempt can last: their process died
 * mid-attempt (graphile-worker 0.16 would keep such a job locked for 4 hours). Unlocked through its
 * public SQL API, so the job runs again at once (at least once).
 */
export async function unlockStaleClaims(db: Db, staleMs: number): Promise<string[]> {
  return inTransaction(db, async (client) => {
    // RETURNING gives the new row: the worker ids are read from the rows as they were.
    const { rows } = await client.query<{ claimed_by: string }>(
      `WITH stale AS (
         SELECT delivery_id, claimed_by FROM webhook_deliveries
          WHERE claimed_by IS NOT NULL AND claimed_at < now() - make_interval(secs => $1::float8 / 1000)
          FOR UPDATE SKIP LOCKED)
       UPDATE webhook_deliveries d SET claimed_by = NULL, claimed_at = NULL
         FROM stale WHERE d.delivery_id = stale.delivery_id
       RETURNING stale.claimed_by`,
      [staleMs],
    );
    const workers = [...new Set(rows.map((r) => r.claimed_by))];
    if (workers.length > 0)
      await client.query('SELECT graphile_worker.force_unlock_workers($1::text[])', [workers]);
    return workers;
  });
}
