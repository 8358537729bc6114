import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import type { Db } from './db.js';

const MIGRATIONS_DIR = join(dirname(fileURLToPath(import.meta.url)), 'migrations');
// Any fixed number: it serialises migrations between replicas starting together.
const MIGRATION_LOCK = 7_420_001;

export interface Migration {
  version: number;
  name: string;
  sql: string;
  /** sha256 of the file: recorded when applied, checked at every start after. */
  checksum: string;
}

const checksumOf = (sql: string) => createHash('sha256').update(sql).digest('hex');

/** The migration files of `dir`, in version order. */
async function migrationFiles(dir: string): Promise<string[]> {
  return (await readdir(dir)).filter((f) => /^\d{3}_[a-z0-9_]+\.sql$/.test(f)).sort();
}

export async function listMigrations(dir = MIGRATIONS_DIR): Promise<Migration[]> {
  const files = await migrationFiles(dir);
  return Promise.all(
    files.map(async (file) => {
      const sql = await readFile(join(dir, file), 'utf8');
      return { version: Number(file.slice(0, 3)), name: file.slice(4, -4), sql, checksum: checksumOf(sql) };
    }),
  );
}

/**
 * Applies the versioned migrations not applied yet, each in its own transaction. A migration applied
 * before whose file has changed since stops the start (its change would never reach this database:
 * add a new migration instead); one recorded before checksums were kept gets its checksum now.
 */
export async function migrate(db: Db): Promise<number[]> {
  const migrations = await listMigrations();
  const applied: number[] = [];
  await withMigrationLock(db, async (client) => {
    await client.query(
      `CREATE TABLE IF NOT EXISTS schema_migrations (
         version integer PRIMARY KEY,
         name text NOT NULL,
         applied_at timestamptz NOT NULL DEFAULT now()
       )`,
    );
    await client.query('ALTER TABLE schema_migrations ADD COLUMN IF NOT EXISTS checksum text');
    const done = new Map(
      (
        await client.query<{ version: number; checksum: string | null }>(
          'SELECT version, checksum FROM schema_migrations',
        )
      ).rows.map((r) => [r.version, r.checksum]),
    );
    for (const m of migrations) {
      const recorded = done.get(m.version);
      if (recorded !== undefined) {
        if (recorded === null) {
          await client.query('UPDATE schema_migrations SET checksum = $2 WHERE version = $1', [
            m.version,
            m.checksum,
          ]);
        } else if (recorded !== m.checksum) {
          throw new Error(
            `migration ${String(m.version).padStart(3, '0')}_${m.name} was changed after this database applied it (checksum ${recorded.slice(0, 12)} recorded, ${m.checksum.slice(0, 12)} now): restore the file and add a new migration`,
          );
        }
        continue;
      }
      await client.query('BEGIN');
      try {
        await client.query(m.sql);
        await client.query('INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)', [
          m.version,
          m.name,
          m.checksum,
        ]);
        await client.query('COMMIT');
        applied.push(m.version);
      } catch (error) {
        await client.query('ROLLBACK');
        throw new Error(`migration ${m.version}_${m.name} failed: ${(error as Error).message}`);
      }
    }
  });
  return applied;
}

/**
 * Runs `fn` while this session holds the migration lock, so that replicas starting together run it one
 * after the other. For schema set-up that is not safe to run concurrently: graphile-worker's
 * `CREATE SCHEMA IF NOT EXISTS` fails one of two replicas that run it at once (a unique violation
 * in pg_namespace). `fn` may use the locking session itself (`client`): our own migrations do.
 */
export async function withMigrationLock<T>(db: Db, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await db.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    return await fn(client);
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => {});
    client.release();
  }
}

/** The newest migration's version: from the file names, read once (they do not change while it runs). */
let latestVersion: Promise<number> | undefined;

/** True when every migration file is recorded as applied (asked by every /readyz). */
export async function migrationsApplied(db: Db): Promise<boolean> {
  latestVersion ??= migrationFiles(MIGRATIONS_DIR).then((files) => Number(files.at(-1)?.slice(0, 3) ?? 0));
  const latest = await latestVersion;
  const { rows } = await db.query<{ max: number | null }>(
    'SELECT max(version) AS max FROM schema_migrations',
  );
  return (rows[0]?.max ?? 0) >= latest;
}
