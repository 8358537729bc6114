import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isApiError } from '../../lib/errors.js';
import { ReadBatcher } from '../../store/batch.js';
import { createDb, type Db, storeError } from '../../store/db.js';
import { createTestDatabase, testPool } from '../helpers/postgres.js';

/**
 * ReadBatcher (store/batch.ts) on the machine PostgreSQL, with a real batched statement that fails
 * for one parameter set: a text that is not a date makes `::date` raise, and with it the whole
 * statement. No other request of the batch may fail because of it.
 */

let database: { url: string; drop(): Promise<void> };
let db: Db;

beforeAll(async () => {
  database = await createTestDatabase();
  db = testPool(database.url, 2);
});

afterAll(async () => {
  await db?.end();
  await database?.drop();
});

/** A batcher of `text → the date Postgres reads in it`, recording the size of every statement it runs. */
function dateBatcher(pool: Db) {
  const statements: number[] = [];
  const batcher = new ReadBatcher<string, string>(
    async (texts) => {
      statements.push(texts.length);
      try {
        const { rows } = await pool.query<{ i: number; d: string }>(
          'SELECT f.i, f.d::date::text AS d FROM jsonb_to_recordset($1::jsonb) AS f(i int4, d text)',
          [JSON.stringify(texts.map((d, i) => ({ i, d })))],
        );
        const out: string[] = [];
        for (const row of rows) out[row.i] = row.d;
        return out;
      } catch (error) {
        throw storeError(error);
      }
    },
    (text) => text,
  );
  return { batcher, statements };
}

const day = (n: number) => `2024-03-${String(n).padStart(2, '0')}`;

describe('ReadBatcher', () => {
  it('runs a batch that succeeds as one statement', async () => {
    const { batcher, statements } = dateBatcher(db);
    const texts = Array.from({ length: 20 }, (_, i) => day(1 + i));
    // Loaded in one tick: one batch. Duplicates share their set.
    expect(await Promise.all([...texts, ...texts].map((t) => batcher.load(t)))).toEqual([...texts, ...texts]);
    expect(statements).toEqual([20]);
  });

  it('fails only the request whose set the statement fails on; the others get their results', async () => {
    const { batcher, statements } = dateBatcher(db);
    const texts = Array.from({ length: 30 }, (_, i) => day(1 + i));
    texts.splice(17, 0, '2024-02-30');
    const results = await Promise.allSettled([...texts, '2024-02-30'].map((t) => batcher.load(t)));
    for (const [i, result] of results.entries()) {
      const text = [...texts, '2024-02-30'][i]!;
      if (text === '2024-02-30') {
        expect(result.status).toBe('rejected');
        // Postgres' own error for that set (22008 datetime field overflow), not another one's.
        expect((result as PromiseRejectedResult).reason).toMatchObject({ code: '22008' });
      } else {
        expect(result).toEqual({ status: 'fulfilled', value: text });
      }
    }
    // The batch of 31 sets, then halves down to the failing one: never a statement per set.
    expect(statements[0]).toBe(31);
    expect(statements.length).toBeLessThanOrEqual(1 + 2 * Math.ceil(Math.log2(31)));
  });

  it('isolates several failing sets of one batch', async () => {
    const { batcher, statements } = dateBatcher(db);
    const texts = Array.from({ length: 64 }, (_, i) => (i % 9 === 4 ? `not a date ${i}` : day(1 + (i % 28))));
    const results = await Promise.allSettled(texts.map((t) => batcher.load(t)));
    expect(results.map((r) => r.status)).toEqual(
      texts.map((t) => (t.startsWith('not') ? 'rejected' : 'fulfilled')),
    );
    // Seven failing sets of 64: fewer statements than one per set.
    expect(statements.length).toBeLessThan(64);
  });

  it('fails every request of a batch at once when the store is unreachable (503)', async () => {
    const down = createDb('postgres://postgres@127.0.0.1:1/none', 2);
    const { batcher, statements } = dateBatcher(down);
    const results = await Promise.allSettled(Array.from({ length: 8 }, (_, i) => batcher.load(day(1 + i))));
    await down.end();
    for (const result of results) {
      expect(result.status).toBe('rejected');
      const reason = (result as PromiseRejectedResult).reason;
      expect(isApiError(reason) && reason.code).toBe('UPSTREAM_UNAVAILABLE');
    }
    // No set tried again alone: none would have fared better.
    expect(statements).toEqual([8]);
  });

  it('keeps batching after a failed batch', async () => {
    const { batcher, statements } = dateBatcher(db);
    await Promise.allSettled(['2024-13-01', day(1)].map((t) => batcher.load(t)));
    statements.length = 0;
    expect(await Promise.all([day(2), day(3), day(4)].map((t) => batcher.load(t)))).toEqual([
      day(2),
      day(3),
      day(4),
    ]);
    expect(statements).toEqual([3]);
  });
});
