import { readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Db } from './db.js';

const MIGRATIONS_DIR = join(dirname(fileURLToPath(import.meta.url)), 'migrations');
// Any fixed number: it serialises migrations between replicas starting together.
const MIGRATION_LOCK = 7_420_001;

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export async function listMigrations(dir = MIGRATIONS_DIR): Promise<Migration[]> {
  const files = (await readdir(dir)).filter((f) => /^\d{3}_[a-z0-9_]+\.sql$/.test(f)).sort();
  return Promise.all(
    files.map(async (file) => ({
      version: Number(file.slice(0, 3)),
      name: file.slice(4, -4),
      sql: await readFile(join(dir, file), 'utf8'),
    })),
  );
}

/** Applies the versioned migrations not applied yet, each in its own transaction. */
export async function migrate(db: Db): Promise<number[]> {
  const migrations = await listMigrations();
  const client = await db.connect();
  const applied: number[] = [];
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await client.query(
      `CREATE TABLE IF NOT EXISTS schema_migrations (
         version integer PRIMARY KEY,
         name text NOT NULL,
         applied_at timestamptz NOT NULL DEFAULT now()
       )`,
    );
    const done = new Set(
      (await client.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map(
        (r) => r.version,
      ),
    );
    for (const m of migrations) {
      if (done.has(m.version)) continue;
      await client.query('BEGIN');
      try {
        await client.query(m.sql);
        await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [
          m.version,
          m.name,
        ]);
        await client.query('COMMIT');
        applied.push(m.version);
      } catch (error) {
        await client.query('ROLLBACK');
        throw new Error(`migration ${m.version}_${m.name} failed: ${(error as Error).message}`);
      }
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => {});
    client.release();
  }
  return applied;
}

/** True when every migration file is recorded as applied. */
export async function migrationsApplied(db: Db): Promise<boolean> {
  const migrations = await listMigrations();
  const { rows } = await db.query<{ max: number | null }>(
    'SELECT max(version) AS max FROM schema_migrations',
  );
  const latest = migrations.at(-1)?.version ?? 0;
  return (rows[0]?.max ?? 0) >= latest;
}
