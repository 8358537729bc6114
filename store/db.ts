import pg from 'pg';
import { ApiError } from '../lib/errors.js';

export type Db = pg.Pool;

/** numeric and bigint columns come back as strings; counts are parsed where they are read. */
export function createDb(url: string, max = 10): Db {
  const pool = new pg.Pool({
    connectionString: url,
    // Every statement here is a short indexed read or write: JIT compiling one costs milliseconds to
    // save microseconds (a cached plan of a batched list estimated above jit_above_cost took 12 ms).
    options: '-c jit=off',
    max,
    connectionTimeoutMillis: 2000,
    idleTimeoutMillis: 30_000,
  });
  // An idle client losing its server must not crash the process; the next query reports it.
  pool.on('error', () => {});
  // Nor one checked out (a transaction between two statements) when a restart or a failover ends its
  // backend: pg emits 'error' on the client itself, which the pool listens to only while it is idle.
  // Its next statement fails instead, and the pool drops it when it is released.
  pool.on('connect', (client) => {
    client.on('error', () => {});
  });
  return pool;
}

const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  '57P01',
  '57P02',
  '57P03',
]);

/** Maps a failure of the store to the retryable envelope; anything else stays a fault. */
export function storeError(error: unknown): unknown {
  if (error instanceof ApiError) return error;
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : '';
  if (
    (typeof code === 'string' && (UNAVAILABLE_CODES.has(code) || code.startsWith('08'))) ||
    /Connection terminated|connect ECONNREFUSED|timeout exceeded when trying to connect/i.test(message)
  ) {
    return new ApiError('UPSTREAM_UNAVAILABLE', 'The data store is briefly unavailable.', { cause: error });
  }
  return error;
}

/** Runs a query, mapping an unreachable store to 503 UPSTREAM_UNAVAILABLE. */
export async function query<R extends pg.QueryResultRow>(
  db: Db,
  text: string,
  values: unknown[] = [],
): Promise<pg.QueryResult<R>> {
  try {
    return await db.query<R>(text, values);
  } catch (error) {
    throw storeError(error);
  }
}
