import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { migrateQueue } from '../../delivery/worker.js';
import { createLogger } from '../../lib/logger.js';
import type { Services } from '../../lib/services.js';
import { createDb, type Db } from '../../store/db.js';
import { migrate } from '../../store/migrate.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The name of this run's migrated template database (test/setup/database.ts drops it at the end). */
    templateDatabase: string;
  }
}

/** The machine's PostgreSQL (CI starts it when it is down). */
export const MACHINE_PG = process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const MACHINE_REDIS = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * A test's own pool on its database (and the indexers it starts on it, whose writer locks connect with
 * its options): it waits for a connection as long as a busy box needs, where a service under test keeps
 * its configured DATABASE_CONNECT_TIMEOUT_MS. The machine's PostgreSQL serves four files at once; a
 * connection once took over the default 2 s to open there.
 */
export function testPool(url: string, max: number): Db {
  return createDb(url, max, { connectTimeoutMs: 15_000 });
}

// Any fixed number: serialises the template's build between the run's workers.
const TEMPLATE_LOCK = 7_420_077;

function urlOf(name: string): string {
  const url = new URL(MACHINE_PG);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * This run's template: a database with every migration and the webhook queue's schema applied, built
 * by the first worker that asks (under an advisory lock), so a test database is a copy of it instead of
 * thirty migrations and graphile-worker's own again. Nothing stays connected to it: PostgreSQL copies a
 * template only while no session uses it.
 */
async function ensureTemplate(admin: pg.Client): Promise<string> {
  const name = inject('templateDatabase');
  await admin.query('SELECT pg_advisory_lock($1)', [TEMPLATE_LOCK]);
  try {
    const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (rowCount) return name;
    const building = `${name}_building`;
    await admin.query(`DROP DATABASE IF EXISTS ${building} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${building}`);
    const db = createDb(urlOf(building), 3);
    try {
      await migrate(db);
      await migrateQueue({ logger: createLogger('silent') } as Services, db);
    } finally {
      await db.end();
    }
    // Whole or not at all: a worker that died mid-build leaves only the `_building` name.
    await admin.query(`ALTER DATABASE ${building} RENAME TO ${name}`);
    return name;
  } finally {
    await admin.query('SELECT pg_advisory_unlock($1)', [TEMPLATE_LOCK]);
  }
}

/**
 * A fresh database on the machine's server, dropped by `drop()`: in a test run migrated (a copy of the
 * run's template), or `empty` for the tests of the migrations themselves; outside one (the benches),
 * empty, migrated by the service that starts on it.
 */
export async function createTestDatabase(
  options: { empty?: boolean } = {},
): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `gw_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: MACHINE_PG });
  await admin.connect();
  try {
    // Outside a test run (the bench scripts use these helpers too) there is no template: an empty one.
    if (options.empty || !process.env.VITEST) await admin.query(`CREATE DATABASE ${name}`);
    else await admin.query(`CREATE DATABASE ${name} TEMPLATE ${await ensureTemplate(admin)}`);
  } finally {
    await admin.end();
  }
  return {
    url: urlOf(name),
    async drop() {
      const c = new pg.Client({ connectionString: MACHINE_PG });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}
