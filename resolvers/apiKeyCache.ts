import type { Logger } from '../lib/logger.js';
import { API_KEY_CHANGES_CHANNEL, type ApiKeyRow, findApiKey } from '../store/apiKeys.js';
import type { Db } from '../store/db.js';
import { PgListener } from '../store/listen.js';

/**
 * Longest a row is kept (from when its read returned): the bound on a change no notice announces (a
 * LISTEN connection that died without its socket saying so, a pooler in transaction mode that accepts
 * LISTEN and delivers nothing, TRUNCATE or a replica-mode session, which row triggers do not see).
 */
export const KEY_ROW_TTL_MS = 10_000;
/** Most rows a process keeps (bounded: only keys that authenticated are kept, unknown ids never). */
const MAX_ROWS = 10_000;

/** Whether a change notice can reach this process now (store/listen.ts PgListener). */
export interface ChangeFeed {
  readonly connected: boolean;
}

interface Kept {
  row: ApiKeyRow;
  until: number;
}

/**
 * The api_keys rows this process has read, so that a key's every request does not cost a SQL round
 * trip (issue 22: the key look-up was one of a swap's two round trips, and its only SQL). A kept row
 * can never outlive a change to it that this process could know of:
 *
 * - every UPDATE or DELETE of a row, by any writer (the revokeApiKey mutation, `npm run keys`, plain
 *   SQL), is announced by a trigger on `api_key_changes` (migration 016), and the row is forgotten when the
 *   notice arrives: a revocation is refused by every process within one NOTIFY's delivery, and at
 *   once by the process that revoked it (`forget`, before the mutation answers);
 * - rows are used and kept only while the LISTEN connection is up; it is emptied when the connection
 *   comes back (notices sent while it was down are lost);
 * - a look-up that was running when any notice arrived does not keep what it read (`generation`): its
 *   snapshot may predate the change;
 * - a row is kept 10 s at most (KEY_ROW_TTL_MS), the bound on a change no notice announces.
 *
 * A key id used in the last 10 s is answered without a round trip where an unknown one costs one: the
 * difference tells only that an id is in use, and ids are the public part of a key.
 *
 * Unknown key ids are never kept: a made-up key costs its look-up (keyGuard's window of failed
 * attempts bounds those), and a key created a moment ago is found at once.
 */
export class ApiKeyCache {
  private readonly rows = new Map<string, Kept>();
  /** Bumped by every notice and every reconnection: a look-up started before one keeps nothing. */
  private generation = 0;

  constructor(
    private readonly feed: ChangeFeed,
    private readonly load: (keyId: string) => Promise<ApiKeyRow | undefined>,
    private readonly ttlMs = KEY_ROW_TTL_MS,
  ) {}

  /** The key's row, from this process while it is valid, else from the store. */
  async find(keyId: string): Promise<ApiKeyRow | undefined> {
    if (!this.feed.connected) return this.load(keyId);
    const kept = this.rows.get(keyId);
    if (kept !== undefined) {
      if (kept.until > Date.now()) return kept.row;
      this.rows.delete(keyId);
    }
    const generation = this.generation;
    const row = await this.load(keyId);
    if (row !== undefined && this.feed.connected && generation === this.generation) this.keep(keyId, row);
    return row;
  }

  /** The key's row changed: it is read from the store next time. */
  forget(keyId: string): void {
    this.generation++;
    this.rows.delete(keyId);
  }

  /** Every row is read from the store next time (the change feed was away). */
  forgetAll(): void {
    this.generation++;
    this.rows.clear();
  }

  /** Whether rows are used and kept now (the change feed is up). */
  get live(): boolean {
    return this.feed.connected;
  }

  get size(): number {
    return this.rows.size;
  }

  private keep(keyId: string, row: ApiKeyRow): void {
    if (this.rows.size >= MAX_ROWS && !this.rows.has(keyId)) {
      const oldest = this.rows.keys().next().value;
      if (oldest !== undefined) this.rows.delete(oldest);
    }
    this.rows.set(keyId, { row, until: Date.now() + this.ttlMs });
  }
}

/** The service's cache: the store's rows, forgotten on the notices of its own LISTEN connection. */
export function startApiKeyCache(
  db: Db,
  databaseUrl: string,
  logger: Logger,
): { cache: ApiKeyCache; stop(): Promise<void> } {
  let cache: ApiKeyCache | undefined;
  const listener = new PgListener(
    databaseUrl,
    API_KEY_CHANGES_CHANNEL,
    {
      // A notice without a key id is not one of the trigger's: forget everything rather than guess.
      notified: (keyId) => (keyId === '' ? cache?.forgetAll() : cache?.forget(keyId)),
      connected: () => cache?.forgetAll(),
    },
    logger,
  );
  cache = new ApiKeyCache(listener, (keyId) => findApiKey(db, keyId));
  listener.start();
  return { cache, stop: () => listener.close() };
}
