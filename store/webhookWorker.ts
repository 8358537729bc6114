/**
 * The delivery worker's statements (delivery/worker.ts): claiming an attempt, recording it and its
 * consequences (retry, endpoint disabled, circuit), putting it off, and the sweep of dead workers' claims.
 */
import type pg from 'pg';
import { type Db, inTransaction } from './db.js';
import { ADD_DELIVERY_JOB } from './webhookDeliveries.js';

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
  consecutive_failures: number;
  circuit_open_until: Date | null;
}

/**
 * Marks a pending delivery of this generation as being attempted by `workerId`; undefined when there is
 * nothing to do (delivered, given up, replayed since, or its endpoint deleted); `held` when a claim is
 * still on it. A delivery's jobs run one at a time (they share a named queue), so a claim found at the
 * start of a job is a leftover: a dead worker's (released by `unlockStaleClaims`) or one a failure could
 * not release. The job is then tried again later, never made beside it.
 */
export async function claimDelivery(
  db: Db,
  deliveryId: string,
  generation: number,
  workerId: string,
): Promise<ClaimedDelivery | 'held' | undefined> {
  const { rows } = await db.query<ClaimedDelivery>(
    `UPDATE webhook_deliveries d SET claimed_by = $3, claimed_at = now()
       FROM webhooks w
      WHERE d.delivery_id = $1 AND d.generation = $2 AND d.status = 'pending' AND d.claimed_by IS NULL
        AND w.webhook_id = d.webhook_id
      RETURNING d.delivery_id, d.generation, d.attempts, d.event_type, d.strategy_hash, d.occurred_at, d.payload,
        w.webhook_id, w.key_id, w.url, w.secret, w.previous_secret, w.previous_secret_expires_at, w.disabled_at,
        w.consecutive_failures, w.circuit_open_until`,
    [deliveryId, generation, workerId],
  );
  if (rows[0]) return rows[0];
  const held = await db.query(
    `SELECT 1 FROM webhook_deliveries
      WHERE delivery_id = $1 AND generation = $2 AND status = 'pending' AND claimed_by IS NOT NULL`,
    [deliveryId, generation],
  );
  return (held.rowCount ?? 0) > 0 ? 'held' : undefined;
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
  /** Failed attempts in a row that open the endpoint's circuit, and how long it stays open at first (doubling). */
  circuit: { failures: number; openMs: number; maxOpenMs: number };
}

export interface AttemptRecorded {
  /** This call disabled the endpoint (retries exhausted). */
  disabled: boolean;
  /** This failure opened (or kept open) the endpoint's circuit until then; null: closed. */
  circuitOpenUntil: Date | null;
}

/**
 * Records an attempt and its consequence in one transaction: delivered; or the next attempt queued; or
 * the delivery given up and its endpoint disabled. The endpoint's circuit counts it: a delivery closes
 * it, and the `circuit.failures`-th failure in a row opens it for `openMs`, doubled by each further
 * failure up to `maxOpenMs`. An endpoint deleted while its attempt was in flight took the delivery
 * with it: nothing is recorded and nothing retried (its row is locked first, so a delete either waits
 * for this record or came before it).
 */
export async function recordAttempt(db: Db, r: AttemptRecord): Promise<AttemptRecorded> {
  return inTransaction(db, async (client) => {
    const none: AttemptRecorded = { disabled: false, circuitOpenUntil: null };
    const kept = await client.query('SELECT 1 FROM webhook_deliveries WHERE delivery_id = $1 FOR KEY SHARE', [
      r.deliveryId,
    ]);
    if (kept.rowCount === 0) return none;
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
    // Released whatever the generation: a replay made meanwhile waits for this attempt's claim to go.
    await client.query(
      'UPDATE webhook_deliveries SET claimed_by = NULL, claimed_at = NULL WHERE delivery_id = $1',
      [r.deliveryId],
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
    const circuitOpenUntil = await countInCircuit(client, r);
    if (r.outcome !== 'exhausted') return { disabled: false, circuitOpenUntil };
    const { rowCount } = await client.query(
      `UPDATE webhooks SET disabled_at = now(), disabled_reason = $2 WHERE webhook_id = $1 AND disabled_at IS NULL`,
      [r.webhookId, r.disabledReason],
    );
    return { disabled: (rowCount ?? 0) > 0, circuitOpenUntil };
  });
}

async function countInCircuit(client: pg.ClientBase, r: AttemptRecord): Promise<Date | null> {
  if (r.outcome === 'delivered') {
    await client.query(
      `UPDATE webhooks SET consecutive_failures = 0, circuit_open_until = NULL
        WHERE webhook_id = $1 AND (consecutive_failures > 0 OR circuit_open_until IS NOT NULL)`,
      [r.webhookId],
    );
    return null;
  }
  const { rows } = await client.query<{ circuit_open_until: Date | null }>(
    `UPDATE webhooks SET consecutive_failures = consecutive_failures + 1,
       circuit_open_until = CASE WHEN consecutive_failures + 1 >= $2
         THEN now() + make_interval(secs => least($4::float8,
           $3::float8 * power(2, least(consecutive_failures + 1 - $2, 30))) / 1000) END
      WHERE webhook_id = $1 RETURNING circuit_open_until`,
    [r.webhookId, r.circuit.failures, r.circuit.openMs, r.circuit.maxOpenMs],
  );
  return rows[0]?.circuit_open_until ?? null;
}

/**
 * Puts an attempt off until `runAt` without making it (the endpoint's circuit is open, or this process
 * has no slot for a failing endpoint): the claim is released and the same attempt queued again.
 */
export async function deferAttempt(
  db: Db,
  d: { delivery_id: string; generation: number },
  runAt: Date,
): Promise<void> {
  await inTransaction(db, async (client) => {
    await client.query(
      `UPDATE webhook_deliveries SET claimed_by = NULL, claimed_at = NULL, next_attempt_at = $3
        WHERE delivery_id = $1 AND generation = $2`,
      [d.delivery_id, d.generation, runAt],
    );
    await client.query(ADD_DELIVERY_JOB, [d.delivery_id, d.generation, runAt]);
  });
}

/**
 * The graphile-worker ids holding a delivery longer than an attempt can last: their process died
 * mid-attempt (graphile-worker 0.16 would keep such a job, and its queue, locked for 4 hours). Released,
 * and unlocked through graphile-worker's public SQL API, so the job runs again at once (at least once).
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
