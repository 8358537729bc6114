import type { Logger } from '../lib/logger.js';
import { PgListener } from './listen.js';

/** Whether a change notice can reach this process now (store/listen.ts PgListener). */
export interface ChangeFeed {
  readonly connected: boolean;
}

interface Kept<V> {
  value: V;
  until: number;
}

export interface KeptRowsOptions {
  /** Longest a value is kept (from when its read returned): the bound on a change no notice announces. */
  ttlMs: number;
  /** Most keys kept (the oldest kept first goes). */
  maxKeys: number;
}

/**
 * Rows of the store this process has read, by key, so that a hot path does not cost a SQL round trip
 * per request, and never kept past a change this process could know of:
 *
 * - every change to the rows of a key is announced on a NOTIFY channel (a trigger of the table, whoever
 *   writes), and the key is forgotten when the notice arrives (`forget`; '' means every key);
 * - values are used and kept only while the LISTEN connection is up; all are forgotten when it comes
 *   back (notices sent while it was down are lost);
 * - a read that was running when any notice arrived does not keep what it read (`generation`): its
 *   snapshot may predate the change;
 * - a value is kept `ttlMs` at most, the bound on a change no notice announces (a LISTEN connection that
 *   died without its socket saying so, a pooler in transaction mode that accepts LISTEN and delivers
 *   nothing, TRUNCATE or a replica-mode session, which row triggers do not see).
 */
export class KeptRows<V> {
  private readonly values = new Map<string, Kept<V>>();
  /** Bumped by every notice and every reconnection: a read started before one keeps nothing. */
  private generation = 0;

  constructor(
    private readonly feed: ChangeFeed,
    private readonly load: (key: string) => Promise<V>,
    private readonly options: KeptRowsOptions,
  ) {}

  /** The key's value, from this process while it is valid, else from the store. */
  async find(key: string): Promise<V> {
    if (!this.feed.connected) return this.load(key);
    const kept = this.values.get(key);
    if (kept !== undefined) {
      if (kept.until > Date.now()) return kept.value;
      this.values.delete(key);
    }
    const generation = this.generation;
    const value = await this.load(key);
    // Undefined (no such row) is never kept: a row created a moment later is found at once.
    if (value !== undefined && this.feed.connected && generation === this.generation)
      this.keepValue(key, value);
    return value;
  }

  /** The key's value when this process keeps it now (no store read), else undefined. */
  peek(key: string): V | undefined {
    if (!this.feed.connected) return undefined;
    const kept = this.values.get(key);
    return kept !== undefined && kept.until > Date.now() ? kept.value : undefined;
  }

  /** The key's rows changed: they are read from the store next time. */
  forget(key: string): void {
    this.generation++;
    this.values.delete(key);
  }

  /** Every key is read from the store next time (the change feed was away). */
  forgetAll(): void {
    this.generation++;
    this.values.clear();
  }

  /** Whether values are used and kept now (the change feed is up). */
  get live(): boolean {
    return this.feed.connected;
  }

  get size(): number {
    return this.values.size;
  }

  private keepValue(key: string, value: V): void {
    if (this.values.size >= this.options.maxKeys && !this.values.has(key)) {
      const oldest = this.values.keys().next().value;
      if (oldest !== undefined) this.values.delete(oldest);
    }
    this.values.set(key, { value, until: Date.now() + this.options.ttlMs });
  }
}

/**
 * A KeptRows of the store's `load`, forgotten on the notices of its own LISTEN connection to `channel`
 * (payload: the key; '' or any payload `forgetAll` says so: every key).
 */
export function listenKeptRows<C extends Pick<KeptRows<unknown>, 'forget' | 'forgetAll'>>(
  databaseUrl: string,
  channel: string,
  logger: Logger,
  create: (feed: ChangeFeed) => C,
): { cache: C; stop(): Promise<void> } {
  let cache: C | undefined;
  const listener = new PgListener(
    databaseUrl,
    channel,
    {
      // A notice without a key is not one of the trigger's, or announces many keys: forget everything.
      notified: (key) => (key === '' ? cache?.forgetAll() : cache?.forget(key)),
      connected: () => cache?.forgetAll(),
    },
    logger,
  );
  cache = create(listener);
  listener.start();
  return { cache, stop: () => listener.close() };
}
