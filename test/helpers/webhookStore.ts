/**
 * A migrated database of its own with graphile-worker's schema and one endpoint (`wh_1` of key `k1`)
 * holding one pending delivery (`msg_1`): the store's webhook statements run against it directly.
 */
import { chainParts } from '../../chain/parts.js';
import { ChainRegistry } from '../../chain/registry.js';
import { migrateQueue } from '../../delivery/worker.js';
import { loadConfig } from '../../lib/config.js';
import { createLogger } from '../../lib/logger.js';
import type { Db } from '../../store/db.js';
import { migrate } from '../../store/migrate.js';
import { createTestDatabase, testPool } from './postgres.js';

export async function startWebhookStore(): Promise<{ db: Db; stop(): Promise<void> }> {
  const database = await createTestDatabase();
  const db = testPool(database.url, 2);
  await migrate(db);
  const config = loadConfig({ DATABASE_URL: database.url });
  await migrateQueue(
    {
      config,
      logger: createLogger('silent'),
      db,
      redis: undefined,
      ...chainParts(new ChainRegistry([]), { rpcTimeoutMs: 1000 }, config),
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
  return {
    db,
    async stop() {
      await db.end();
      await database.drop();
    },
  };
}
