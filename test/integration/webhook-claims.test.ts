/**
 * A delivery's attempt is made by one worker at a time: a job that finds a claim still on it is told so
 * (`held`, and tried again later) instead of sending beside it; a claim older than an attempt can last
 * (its worker died) is released, so the next job claims it; and an attempt's record releases its claim
 * even when the delivery was replayed meanwhile, so the replay's job is not held up.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../store/db.js';
import { claimDelivery, recordAttempt, unlockStaleClaims } from '../../store/webhookWorker.js';
import { startWebhookStore } from '../helpers/webhookStore.js';

let db: Db;
let stop: () => Promise<void>;

beforeAll(async () => {
  ({ db, stop } = await startWebhookStore());
});

afterAll(async () => {
  await stop?.();
});

const claimed = (c: Awaited<ReturnType<typeof claimDelivery>>) =>
  c === undefined || c === 'held' ? c : c.delivery_id;

describe('claims of a delivery', () => {
  it('are exclusive, and a dead worker’s claim is released for the next job', async () => {
    expect(claimed(await claimDelivery(db, 'msg_1', 0, 'worker-a'))).toBe('msg_1');
    expect(claimed(await claimDelivery(db, 'msg_1', 0, 'worker-b'))).toBe('held');

    // A live claim (younger than the bound) stays.
    expect(await unlockStaleClaims(db, 60_000)).toEqual([]);
    expect(claimed(await claimDelivery(db, 'msg_1', 0, 'worker-b'))).toBe('held');

    await db.query(`UPDATE webhook_deliveries SET claimed_at = now() - interval '1 hour'`);
    expect(await unlockStaleClaims(db, 60_000)).toEqual(['worker-a']);
    expect(claimed(await claimDelivery(db, 'msg_1', 0, 'worker-b'))).toBe('msg_1');
  });

  it('are released by the attempt’s record when a replay started the next generation meanwhile', async () => {
    // worker-b holds generation 0; the integrator replays (generation 1) while its attempt is in flight.
    await db.query(`UPDATE webhook_deliveries SET generation = 1, attempts = 0 WHERE delivery_id = 'msg_1'`);
    expect(claimed(await claimDelivery(db, 'msg_1', 1, 'worker-c'))).toBe('held');
    await recordAttempt(db, {
      deliveryId: 'msg_1',
      webhookId: 'wh_1',
      generation: 0,
      attempt: 1,
      attemptedAt: new Date(),
      statusCode: 200,
      durationMs: 5,
      error: null,
      nextAttemptAt: null,
      outcome: 'delivered',
      disabledReason: null,
      circuit: { failures: 3, openMs: 5000, maxOpenMs: 60_000 },
    });
    // The old generation's outcome does not touch the replay's; its claim went with its record.
    const { rows } = await db.query<{ status: string }>(
      `SELECT status FROM webhook_deliveries WHERE delivery_id = 'msg_1'`,
    );
    expect(rows[0]!.status).toBe('pending');
    expect(claimed(await claimDelivery(db, 'msg_1', 1, 'worker-c'))).toBe('msg_1');
  });
});
