/** A key's webhook endpoints (migration 009). Every statement is parameterized. */
import { type Db, inTransaction, query } from './db.js';

export interface WebhookRow {
  webhook_id: string;
  key_id: string;
  url: string;
  /** Event types (domain/positionEvents.ts WEBHOOK_EVENTS): registration validates them. */
  events: string[];
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
  created_at: Date;
  disabled_at: Date | null;
  disabled_reason: string | null;
}

const WEBHOOK_COLUMNS = `webhook_id, key_id, url, events, secret, previous_secret, previous_secret_expires_at,
  created_at, disabled_at, disabled_reason`;

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
