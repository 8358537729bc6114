import type { Logger } from '../lib/logger.js';
import { API_KEY_CHANGES_CHANNEL, type ApiKeyRow, findApiKey } from './apiKeys.js';
import type { Db } from './db.js';
import { type ChangeFeed, KeptRows, listenKeptRows } from './keptRows.js';

/**
 * Longest a row is kept (from when its read returned): the bound on a change no notice announces (a
 * LISTEN connection that died without its socket saying so, a pooler in transaction mode that accepts
 * LISTEN and delivers nothing, TRUNCATE or a replica-mode session, which row triggers do not see).
 */
export const KEY_ROW_TTL_MS = 10_000;
/** Most rows a process keeps (bounded: only keys that authenticated are kept, unknown ids never). */
const MAX_ROWS = 10_000;

/**
 * The api_keys rows this process has read, so that a key's every request does not cost a SQL round
 * trip (the key look-up was one of a swap's two round trips, and its only SQL). A kept row
 * can never outlive a change to it that this process could know of (store/keptRows.ts):
 *
 * - every UPDATE or DELETE of a row, by any writer (the revokeApiKey mutation, `npm run keys`, plain
 *   SQL), is announced by a trigger on `api_key_changes` (migration 016), and the row is forgotten when the
 *   notice arrives: a revocation is refused by every process within one NOTIFY's delivery, and at
 *   once by the process that revoked it (`forget`, before the mutation answers);
 * - rows are used and kept only while the LISTEN connection is up, and a row is kept 10 s at most
 *   (KEY_ROW_TTL_MS).
 *
 * A key id used in the last 10 s is answered without a round trip where an unknown one costs one: the
 * difference tells only that an id is in use, and ids are the public part of a key.
 *
 * Unknown key ids are never kept: a made-up key costs its look-up (keyGuard's window of failed
 * attempts bounds those), and a key created a moment ago is found at once.
 */
export class ApiKeyCache extends KeptRows<ApiKeyRow | undefined> {
  constructor(
    feed: ChangeFeed,
    load: (keyId: string) => Promise<ApiKeyRow | undefined>,
    ttlMs = KEY_ROW_TTL_MS,
  ) {
    super(feed, load, { ttlMs, maxKeys: MAX_ROWS });
  }
}

/** The service's cache: the store's rows, forgotten on the notices of its own LISTEN connection. */
export function startApiKeyCache(
  db: Db,
  databaseUrl: string,
  logger: Logger,
): { cache: ApiKeyCache; stop(): Promise<void> } {
  return listenKeptRows(
    databaseUrl,
    API_KEY_CHANGES_CHANNEL,
    logger,
    (feed) => new ApiKeyCache(feed, (keyId) => findApiKey(db, keyId)),
  );
}
