import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The machine's PostgreSQL (CI starts it when it is down). */
export const MACHINE_PG = process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const MACHINE_REDIS = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A fresh database on the machine's server, dropped by `drop()`. */
export async function createTestDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `gw_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: MACHINE_PG });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(MACHINE_PG);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: MACHINE_PG });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}
