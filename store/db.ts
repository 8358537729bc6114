import pg from 'pg';
import { ApiError } from '../lib/errors.js';

export type Db = pg.Pool;

/** numeric and bigint columns come back as strings; counts are parsed where they are read. */
export interface PoolSettings {
  statementTimeoutMs?: number;
  /** How long an unused connection stays open (default 30 s). */
  idleTimeoutMs?: number;
  /** How long opening a connection, or waiting for a free one, may take before the statement fails (default 2 s). */
  connectTimeoutMs?: number;
}

export function createDb(url: string, max = 10, settings: PoolSettings = {}): Db {
  const pool = new pg.Pool({
    connectionString: url,
    // Every statement here is a short indexed read or write: JIT compiling one costs milliseconds to
    // save microseconds (a cached plan of a batched list estimated above jit_above_cost took 12 ms).
    options:
      settings.statementTimeoutMs === undefined
        ? '-c jit=off'
        : `-c jit=off -c statement_timeout=${Math.floor(settings.statementTimeoutMs)}`,
    max,
    connectionTimeoutMillis: settings.connectTimeoutMs ?? 2000,
    idleTimeoutMillis: settings.idleTimeoutMs ?? 30_000,
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

/**
 * Connections of the /graphql pool. Internal analytics documents run there, never on the pool of the
 * public paths: however many statements one document fans out to, it holds at most these connections
 * (the rest wait for one, up to connectionTimeoutMillis), so the public paths keep theirs.
 */
export const ANALYTICS_POOL_SIZE = 3;

/** The /graphql pool: small, and every statement cut at `statementTimeoutMs` (then 504 UPSTREAM_TIMEOUT). */
export function createAnalyticsDb(url: string, statementTimeoutMs: number, settings: PoolSettings = {}): Db {
  return createDb(url, ANALYTICS_POOL_SIZE, { ...settings, statementTimeoutMs });
}

/**
 * Connections of the exports' pool. An export reads page after page for seconds: on the pool of the
 * public paths, twenty of them took its connections and the reads waited (503 "timeout exceeded when
 * trying to connect"). Here they wait for each other instead; a page holds a connection for one query.
 */
export const EXPORT_POOL_SIZE = 2;

export function createExportDb(url: string, settings: PoolSettings = {}): Db {
  return createDb(url, EXPORT_POOL_SIZE, settings);
}

/** SQLSTATE 57014 query_canceled: statement_timeout cut the statement. */
const STATEMENT_TIMEOUT_CODE = '57014';

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
  if (code === STATEMENT_TIMEOUT_CODE) {
    return new ApiError('UPSTREAM_TIMEOUT', 'The query took longer than the data store allows.', {
      cause: error,
    });
  }
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

/** Runs `work` in one transaction on one client of the pool. */
export async function inTransaction<T>(db: Db, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  let client: pg.PoolClient;
  try {
    client = await db.connect();
  } catch (error) {
    throw storeError(error);
  }
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw storeError(error);
  } finally {
    client.release();
  }
}
