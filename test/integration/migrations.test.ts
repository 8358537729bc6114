import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { migrateQueue } from '../../delivery/worker.js';
import { createLogger } from '../../lib/logger.js';
import type { Services } from '../../lib/services.js';
import { createDb } from '../../store/db.js';
import { startEmbeddedPostgres } from '../../store/embedded.js';
import { listMigrations, migrate, migrationsApplied } from '../../store/migrate.js';
import { createTestDatabase } from '../helpers/postgres.js';

async function checkMigrations(url: string) {
  const db = createDb(url, 2);
  try {
    const all = await listMigrations();
    expect(await migrate(db)).toEqual(all.map((m) => m.version));
    expect(await migrate(db)).toEqual([]);
    expect(await migrationsApplied(db)).toBe(true);
    const { rows } = await db.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'",
    );
    const tables = rows.map((r) => r.table_name);
    expect(tables).toEqual(expect.arrayContaining(['api_keys', 'strategies', 'swaps', 'schema_migrations']));
  } finally {
    await db.end();
  }
}

describe('migrations', () => {
  it("of two replicas starting at once both succeed, the webhook queue's included (one waits for the other)", async () => {
    const database = await createTestDatabase({ empty: true });
    const pools = [createDb(database.url, 3), createDb(database.url, 3)];
    const services = { logger: createLogger('silent') } as Services;
    try {
      // Our own migrations applied already (an upgrade that brings the queue): both set the queue up at
      // the same moment. Without the lock around it, graphile-worker's set-up fails one of the two.
      await migrate(pools[0]!);
      const results = await Promise.allSettled(
        pools.map(async (pool) => {
          await migrate(pool);
          await migrateQueue(services, pool);
        }),
      );
      expect(results.map((r) => (r.status === 'rejected' ? String(r.reason) : 'ok'))).toEqual(['ok', 'ok']);
      const { rows } = await pools[0]!.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM information_schema.schemata WHERE schema_name = 'graphile_worker'",
      );
      expect(rows[0]!.n).toBe(1);
    } finally {
      await Promise.all(pools.map((p) => p.end()));
      await database.drop();
    }
  });

  it('apply once, in order, on the machine PostgreSQL', async () => {
    const database = await createTestDatabase({ empty: true });
    try {
      await checkMigrations(database.url);
    } finally {
      await database.drop();
    }
  });

  it('refuse to start over a migration changed after it was applied; record checksums kept before', async () => {
    const database = await createTestDatabase({ empty: true });
    const db = createDb(database.url, 2);
    try {
      await migrate(db);
      const indexer = (await listMigrations()).find((m) => m.name === 'indexer')!;
      // As if 004 had been edited in place since this database applied it.
      await db.query('UPDATE schema_migrations SET checksum = $1 WHERE version = $2', ['0'.repeat(64), 4]);
      await expect(migrate(db)).rejects.toThrow(/004_indexer was changed after this database applied it/);
      // Applied by a version that kept no checksums: recorded now, and the start goes on.
      await db.query('UPDATE schema_migrations SET checksum = NULL');
      expect(await migrate(db)).toEqual([]);
      const { rows } = await db.query<{ checksum: string }>(
        'SELECT checksum FROM schema_migrations WHERE version = 4',
      );
      expect(rows[0]!.checksum).toBe(indexer.checksum);
      expect(await migrate(db)).toEqual([]);
    } finally {
      await db.end();
      await database.drop();
    }
  });

  it('apply on the embedded PostgreSQL and survive its restart', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'gw-embedded-'));
    const logger = createLogger('silent');
    try {
      const first = await startEmbeddedPostgres({ dataDir, logger });
      try {
        await checkMigrations(first.url);
      } finally {
        await first.stop();
      }
      // The data directory persists: a second start finds the schema applied.
      const second = await startEmbeddedPostgres({ dataDir, logger });
      const db = createDb(second.url, 1);
      try {
        expect(await migrationsApplied(db)).toBe(true);
      } finally {
        await db.end();
        await second.stop();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
