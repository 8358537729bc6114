/**
 * An endpoint deleted while one of its attempts is in flight: the attempt's record finds its delivery
 * gone (the delete cascaded) and records nothing, instead of failing on the foreign key and having its
 * job retried.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChainClients } from '../../chain/clients.js';
import { ChainRegistry } from '../../chain/registry.js';
import { migrateQueue } from '../../delivery/worker.js';
import { loadConfig } from '../../lib/config.js';
import { createLogger } from '../../lib/logger.js';
import { createDb, type Db } from '../../store/db.js';
import { migrate } from '../../store/migrate.js';
import { recordAttempt } from '../../store/webhookWorker.js';
import { createTestDatabase } from '../helpers/postgres.js';

let db: Db;
let drop: () => Promise<void>;

beforeAll(async () => {
  const database = await createTestDatabase();
  drop = database.drop;
  db = createDb(database.url, 2);
  await migrate(db);
  const registry = new ChainRegistry([]);
  await migrateQueue(
    {
      config: loadConfig({ DATABASE_URL: database.url }),
      logger: createLogger('silent'),
      db,
      redis: undefined,
      registry,
      clients: createChainClients(registry, { rpcTimeoutMs: 1000 }),
    },
    db,
  );
  await db.query(`INSERT INTO api_keys (key_id, environment, secret_hash) VALUES ('k1', 'test', '\\x00')`);
  await db.query(
    `INSERT INTO webhooks (webhook_id, key_id, url, events, secret)
     VALUES ('wh_1', 'k1', 'https://hooks.example.org/x', ARRAY['position.shipped'], 's')`,
  );
  await db.query(
    `INSERT INTO webhook_deliveries (delivery_id, webhook_id, event_type, strategy_hash, dedupe_key)
     VALUES ('msg_1', 'wh_1', 'position.shipped', '0x01', 'position.shipped:0x01')`,
  );
});

afterAll(async () => {
  await db?.end();
  await drop?.();
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
