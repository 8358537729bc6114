/**
 * An endpoint deleted while one of its attempts is in flight: the attempt's record finds its delivery
 * gone (the delete cascaded) and records nothing, instead of failing on the foreign key and having its
 * job retried.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../store/db.js';
import { recordAttempt } from '../../store/webhookWorker.js';
import { startWebhookStore } from '../helpers/webhookStore.js';

let db: Db;
let stop: () => Promise<void>;

beforeAll(async () => {
  ({ db, stop } = await startWebhookStore());
});

afterAll(async () => {
  await stop?.();
});

describe('an endpoint deleted during its attempt', () => {
  it('records nothing and queues no retry', async () => {
    await db.query("DELETE FROM webhooks WHERE webhook_id = 'wh_1'");
    const jobsBefore = await db.query('SELECT count(*)::int AS n FROM graphile_worker.jobs');
    const recorded = await recordAttempt(db, {
      deliveryId: 'msg_1',
      webhookId: 'wh_1',
      generation: 0,
      attempt: 1,
      attemptedAt: new Date(),
      statusCode: 500,
      durationMs: 12,
      error: 'HTTP 500',
      nextAttemptAt: new Date(Date.now() + 5000),
      outcome: 'retry',
      disabledReason: null,
      circuit: { failures: 1, openMs: 5000, maxOpenMs: 60_000 },
    });
    expect(recorded).toEqual({ disabled: false, circuitOpenUntil: null });
    expect((await db.query('SELECT 1 FROM webhook_attempts')).rowCount).toBe(0);
    expect((await db.query('SELECT count(*)::int AS n FROM graphile_worker.jobs')).rows).toEqual(
      jobsBefore.rows,
    );
  });
});
