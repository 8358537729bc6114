import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createDb, storeError } from '../../store/db.js';
import { createTestDatabase } from '../helpers/postgres.js';

/**
 * A client checked out of the pool (a transaction of the indexer or the roll-up) can lose its server
 * between two statements: a Postgres restart or failover terminates its backend. pg then emits
 * 'error' on that client, and without a listener that is an uncaught exception that ends the process
 * (seen in the faults test while its Postgres stopped).
 */
describe('a checked-out client whose backend is terminated between statements', () => {
  it('does not crash the process: its next statement fails retryably and the pool goes on', async () => {
    const database = await createTestDatabase();
    const db = createDb(database.url, 2);
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    try {
      const client = await db.connect();
      const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      const lost = new Promise((resolve) => client.once('error', resolve));
      // 'end' is the client's last event for a lost connection: any unhandled 'error' would have
      // surfaced by then (vitest fails the run on one).
      const ended = new Promise((resolve) => client.once('end', resolve));
      await admin.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
      await lost;
      await ended;

      const next = await client.query('SELECT 1').then(
        () => null,
        (error: unknown) => error,
      );
      expect(next).not.toBeNull();
      client.release();
      // The broken client was dropped on release: the pool answers with a new one.
      const again = await db.query<{ one: number }>('SELECT 1 AS one');
      expect(again.rows[0]!.one).toBe(1);
      // And a statement on a terminated backend maps to the retryable envelope.
      const code = (storeError(Object.assign(new Error('x'), { code: '57P01' })) as { code: string }).code;
      expect(code).toBe('UPSTREAM_UNAVAILABLE');
    } finally {
      await admin.end();
      await db.end();
      await database.drop();
    }
  });
});
