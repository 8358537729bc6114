import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../lib/logger.js';
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
  it('apply once, in order, on the machine PostgreSQL', async () => {
    const database = await createTestDatabase();
    try {
      await checkMigrations(database.url);
    } finally {
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
