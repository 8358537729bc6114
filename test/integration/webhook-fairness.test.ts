/**
 * One endpoint's failures do not delay another's deliveries: the real delivery worker (graphile-worker)
 * on the real Postgres, real receivers on 127.0.0.1.
 *   - an endpoint that never answers holds at most two delivery slots (its two lanes), so another key's
 *     healthy endpoint is delivered while it hangs;
 *   - an endpoint failing WEBHOOK_CIRCUIT_FAILURES times in a row has its circuit opened: its other due
 *     attempts are put off to the circuit's end instead of being made;
 *   - position.health_changed is coalesced per position and endpoint.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { chainParts } from '../../chain/parts.js';
import { ChainRegistry } from '../../chain/registry.js';
import { migrateQueue, startWebhookWorker, type WebhookWorker } from '../../delivery/worker.js';
import { recordHealth } from '../../domain/positionEvents.js';
import type { PositionHealth } from '../../domain/positionHealth.js';
import { loadConfig } from '../../lib/config.js';
import { createLogger } from '../../lib/logger.js';
import type { Services } from '../../lib/services.js';
import { createDb, type Db } from '../../store/db.js';
import { migrate } from '../../store/migrate.js';
import { fixtureChains } from '../helpers/catalogue.js';
import { insertPositionRow } from '../helpers/positions.js';
import { createTestDatabase } from '../helpers/postgres.js';
import { type Receiver, startReceiver } from '../helpers/webhookReceiver.js';

const chain = fixtureChains(2)[0]!;
let url: string;
let db: Db;
let drop: () => Promise<void>;
const running: Array<{ stop(): Promise<void> }> = [];

function servicesWith(env: Record<string, string>): Services {
  const config = loadConfig({
    DATABASE_URL: url,
    WEBHOOK_ALLOW_PRIVATE: '1',
    WEBHOOK_ALLOW_HTTP: '1',
    ...env,
  });
  return {
    config,
    logger: createLogger((process.env.TEST_LOG_LEVEL ?? 'silent') as 'silent'),
    db,
    redis: undefined,
    ...chainParts(new ChainRegistry([chain]), { rpcTimeoutMs: 1000 }, config),
  };
}

async function startWorker(env: Record<string, string>): Promise<WebhookWorker> {
  const services = servicesWith(env);
  const pool = createDb(url, services.config.webhooks.concurrency + 2);
  const worker = await startWebhookWorker(services, pool);
  running.push({
    async stop() {
      await worker.stop();
      await pool.end();
    },
  });
  return worker;
}

let seq = 0;
/** A key with one endpoint at `receiver` for `events`, and `positions` positions of it. */
async function endpointWith(
  receiver: Receiver | string,
  positions: number,
  events = ['position.shipped'],
): Promise<{ webhookId: string; hashes: string[] }> {
  seq += 1;
  const keyId = `k${seq}`;
  const webhookId = `wh_${seq}`;
  await db.query(`INSERT INTO api_keys (key_id, environment, secret_hash) VALUES ($1, 'live', '\\x00')`, [
    keyId,
  ]);
  await db.query(
    `INSERT INTO webhooks (webhook_id, key_id, url, events, secret) VALUES ($1, $2, $3, $4, $5)`,
    [
      webhookId,
      keyId,
      typeof receiver === 'string' ? receiver : receiver.url,
      events,
      `plain:whsec_${randomBytes(32).toString('base64')}`,
    ],
  );
  const hashes: string[] = [];
  for (let i = 0; i < positions; i++) {
    const hash = `0x${seq.toString(16).padStart(8, '0')}${i.toString(16).padStart(56, '0')}`;
    hashes.push(hash);
    await insertPositionRow(db, {
      hash,
      keyId,
      chain,
      wallet: `0x${seq.toString(16).padStart(40, '0')}`,
      createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
    });
  }
  return { webhookId, hashes };
}

/** position.shipped queued as the indexer's trigger queues it. */
async function shipped(hashes: string[]): Promise<void> {
  for (const hash of hashes)
    await db.query(`SELECT webhook_enqueue($1, $2, 'position.shipped', 'position.shipped:' || $2)`, [
      chain.key,
      hash,
    ]);
}

beforeAll(async () => {
  const database = await createTestDatabase();
  url = database.url;
  drop = database.drop;
  db = createDb(url, 4);
  await migrate(db);
  await migrateQueue(servicesWith({}), db);
});

afterEach(async () => {
  for (const part of running.splice(0)) await part.stop();
});

afterAll(async () => {
  await db?.end();
  await drop?.();
});

describe('webhook delivery, fair between endpoints', () => {
  it("delivers a healthy endpoint while another key's endpoint hangs on more deliveries than there are slots", async () => {
    const hanging = await startReceiver();
    hanging.answer = 'hang';
    const healthy = await startReceiver();
    try {
      const stuck = await endpointWith(hanging, 8);
      const fine = await endpointWith(healthy, 1);
      await startWorker({ WEBHOOK_CONCURRENCY: '4', WEBHOOK_TIMEOUT_MS: '30000' });
      await shipped(stuck.hashes);
      await hanging.waitFor(1);
      await shipped(fine.hashes);
      // Without lanes the four slots all wait 30 s on the hanging endpoint, and this times out.
      await healthy.waitFor(1, () => true, 15_000);
      expect(hanging.received.length).toBeLessThanOrEqual(2);
    } finally {
      await hanging.stop();
      await healthy.stop();
    }
  }, 30_000);

  it('opens the circuit of an endpoint failing in a row: its other due attempts are put off, not made', async () => {
    const failing = await startReceiver();
    failing.answer = 500;
    try {
      const { webhookId, hashes } = await endpointWith(failing, 8);
      await startWorker({
        WEBHOOK_CONCURRENCY: '4',
        WEBHOOK_CIRCUIT_FAILURES: '2',
        WEBHOOK_CIRCUIT_OPEN_MS: '120000',
        WEBHOOK_RETRY_SCHEDULE: '1s,1s,1s,1s',
      });
      await shipped(hashes);
      // Every delivery either attempted or put off to the circuit's end (far beyond the retry schedule).
      const rows = await vi.waitFor(
        async () => {
          const { rows } = await db.query<{ attempts: number; put_off: boolean }>(
            `SELECT attempts, next_attempt_at > now() + interval '60 seconds' AS put_off
               FROM webhook_deliveries WHERE webhook_id = $1`,
            [webhookId],
          );
          expect(rows.every((r) => r.attempts > 0 || r.put_off)).toBe(true);
          return rows;
        },
        { timeout: 15_000, interval: 50 },
      );
      const notAttempted = rows.filter((r) => r.attempts === 0).length;
      expect(notAttempted).toBeGreaterThanOrEqual(4);
      expect(failing.received.length).toBeLessThanOrEqual(8 - notAttempted);
      const { rows: circuit } = await db.query(
        'SELECT consecutive_failures, circuit_open_until > now() AS open FROM webhooks WHERE webhook_id = $1',
        [webhookId],
      );
      expect(circuit[0]).toMatchObject({ open: true });
      expect(circuit[0].consecutive_failures).toBeGreaterThanOrEqual(2);
    } finally {
      await failing.stop();
    }
  }, 30_000);

  it('coalesces position.health_changed per position and endpoint', async () => {
    const { webhookId, hashes } = await endpointWith('http://127.0.0.1:9/never', 1, [
      'position.health_changed',
    ]);
    const position = { chain_key: chain.key, strategy_hash: hashes[0]! };
    const health = (status: PositionHealth['status']): PositionHealth => ({
      status,
      spender: chain.aqua,
      strategies: 1,
      tokens: [],
      issues: [],
    });
    const intervalMs = 60_000;
    const deliveries = async () =>
      (
        await db.query<{ delivery_id: string; occurred_at: Date; next_attempt_at: Date }>(
          `SELECT delivery_id, occurred_at, next_attempt_at FROM webhook_deliveries
            WHERE webhook_id = $1 ORDER BY occurred_at`,
          [webhookId],
        )
      ).rows;
    // The first observation is a baseline; then the status flaps ten times while the first event is unsent.
    await recordHealth(db, position, health('ok'), intervalMs);
    for (let i = 0; i < 10; i++)
      await recordHealth(db, position, health(i % 2 ? 'ok' : 'at_risk'), intervalMs);
    const first = await deliveries();
    expect(first).toHaveLength(1);
    // Sent: the next change waits out the interval from it, and the ones after it join it.
    await db.query(
      `UPDATE webhook_deliveries SET payload = '{}', status = 'succeeded' WHERE delivery_id = $1`,
      [first[0]!.delivery_id],
    );
    for (let i = 0; i < 5; i++)
      await recordHealth(db, position, health(i % 2 ? 'ok' : 'stalled'), intervalMs);
    const second = (await deliveries()).slice(1);
    expect(second).toHaveLength(1);
    expect(second[0]!.next_attempt_at.getTime()).toBe(first[0]!.occurred_at.getTime() + intervalMs);
    // Its job is due then too (one job per delivery, in the endpoint's lanes).
    const { rows: jobs } = await db.query<{ run_at: Date }>(
      `SELECT run_at FROM graphile_worker.jobs WHERE queue_name LIKE 'webhook:' || $1 || ':%' ORDER BY run_at`,
      [webhookId],
    );
    expect(jobs.map((j) => j.run_at.getTime())).toEqual([
      first[0]!.next_attempt_at.getTime(),
      second[0]!.next_attempt_at.getTime(),
    ]);
  });
});
