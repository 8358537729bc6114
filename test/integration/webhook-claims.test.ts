/**
 * A delivery's attempt is made by one worker at a time: a second job of the same attempt finds it
 * claimed and sends nothing, and a claim older than an attempt can last (its worker died) is released
 * with its attempt queued again, which the next worker then claims.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../store/db.js';
import { claimDelivery, requeueStaleClaims } from '../../store/webhookWorker.js';
import { startWebhookStore } from '../helpers/webhookStore.js';

let db: Db;
let stop: () => Promise<void>;

beforeAll(async () => {
  ({ db, stop } = await startWebhookStore());
});

afterAll(async () => {
  await stop?.();
});

const queuedJobs = async () =>
  (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM graphile_worker.jobs')).rows[0]!.n;

describe('claims of a delivery', () => {
  it('are exclusive, and a dead worker’s claim is released and its attempt queued again', async () => {
    expect((await claimDelivery(db, 'msg_1', 0, 'worker-a'))?.delivery_id).toBe('msg_1');
    expect(await claimDelivery(db, 'msg_1', 0, 'worker-b')).toBeUndefined();

    // A live claim (younger than the bound) stays.
    expect(await requeueStaleClaims(db, 60_000)).toEqual([]);
    expect(await claimDelivery(db, 'msg_1', 0, 'worker-b')).toBeUndefined();

    await db.query(`UPDATE webhook_deliveries SET claimed_at = now() - interval '1 hour'`);
    const before = await queuedJobs();
    expect(await requeueStaleClaims(db, 60_000)).toEqual(['worker-a']);
    expect(await queuedJobs()).toBe(before + 1);
    expect((await claimDelivery(db, 'msg_1', 0, 'worker-b'))?.delivery_id).toBe('msg_1');
  });
});
