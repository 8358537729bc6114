import type { Redis } from 'ioredis';
import type { Services } from '../lib/services.js';
import type { RouteContext } from './route.js';

/**
 * The short-lived HTTP response cache of the read facade (SPEC §4.1: /api/stats for 60 s).
 *
 * What is cached is the serialised `data` member plus the time of the roll-up it derives from; the
 * `meta` of every response (request id, generatedAt, freshness, `cached`) is assembled per request
 * around that string, so a hit costs a map lookup and one string concatenation — no GraphQL, no
 * JSON.stringify, no parse.
 *
 * In memory by default. With Redis (REDIS_URL) the entry lives under `<REDIS_PREFIX>rc:<key>` so every
 * replica serves the same response for the same window, and each process keeps an in-process copy of
 * the Redis entry for the rest of that entry's TTL. Redis failing, slow (REDIS_COMMAND_TIMEOUT_MS) or
 * behind its open breaker (lib/redisBreaker.ts) degrades to a miss, never an error or a wait.
 */

export interface CachedData {
  /** The JSON text of the response's `data`. */
  data: string;
  /** Epoch ms of the roll-up the data derives from; null when it is not derived from one. */
  rollupAt: number | null;
}

interface Entry {
  value: CachedData;
  expiresAt: number;
}

/** What Redis holds: the entry and its absolute expiry, so a replica's local copy ends with it. */
interface StoredEntry {
  d: string;
  r: number | null;
  e: number;
}

const MAX_LOCAL_ENTRIES = 1000;

export class ResponseCache {
  private readonly local = new Map<string, Entry>();
  private readonly inflight = new Map<string, Promise<CachedData | null>>();

  constructor(
    private readonly redis: Redis | undefined,
    private readonly prefix: string,
    /** Told of each lookup's result (the cache counter of lib/metrics.ts). */
    private readonly counted?: (hit: boolean) => void,
  ) {}

  private redisKey(key: string): string {
    return `${this.prefix}rc:${key}`;
  }

  private keep(key: string, entry: Entry): void {
    if (this.local.size >= MAX_LOCAL_ENTRIES && !this.local.has(key)) {
      const oldest = this.local.keys().next().value;
      if (oldest !== undefined) this.local.delete(oldest);
    }
    this.local.set(key, entry);
  }

  /** The in-process entry while it is fresh: no I/O. */
  peek(key: string, now = Date.now()): CachedData | undefined {
    const entry = this.local.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt > now) {
      this.counted?.(true);
      return entry.value;
    }
    this.local.delete(key);
    return undefined;
  }

  /** Milliseconds left of the in-process entry (0 when there is none): its HTTP max-age. */
  expiresInMs(key: string, now = Date.now()): number {
    const entry = this.local.get(key);
    return entry === undefined ? 0 : Math.max(0, entry.expiresAt - now);
  }

  /** The entry from this process, else from Redis (then kept locally until it expires there). */
  async get(key: string): Promise<CachedData | undefined> {
    const hit = this.peek(key);
    if (hit !== undefined || !this.redis) return hit;
    try {
      const raw = await this.redis.get(this.redisKey(key));
      if (raw === null) return undefined;
      const stored = JSON.parse(raw) as StoredEntry;
      if (typeof stored.d !== 'string' || !(stored.e > Date.now())) return undefined;
      const value = { data: stored.d, rollupAt: stored.r ?? null };
      this.keep(key, { value, expiresAt: stored.e });
      this.counted?.(true);
      return value;
    } catch {
      return undefined;
    }
  }

  async set(key: string, value: CachedData, ttlMs: number): Promise<void> {
    const expiresAt = Date.now() + ttlMs;
    this.keep(key, { value, expiresAt });
    if (!this.redis) return;
    const stored: StoredEntry = { d: value.data, r: value.rollupAt, e: expiresAt };
    await this.redis.set(this.redisKey(key), JSON.stringify(stored), 'PX', ttlMs).catch(() => undefined);
  }

  /** Forgets every entry this process keeps (entries shared in Redis expire by themselves, within their TTL). */
  clearLocal(): void {
    this.local.clear();
  }

  delete(key: string): Promise<unknown> {
    this.local.delete(key);
    return this.redis ? this.redis.del(this.redisKey(key)).catch(() => undefined) : Promise.resolve();
  }

  /**
   * The cached entry, or `compute()` run once for every concurrent miss of the key in this process
   * (later callers await the same promise). `compute` returns `store: false` for a value that must
   * not be cached (e.g. before the first roll-up).
   */
  async getOrCompute(
    key: string,
    ttlMs: number,
    compute: () => Promise<{ value: CachedData; store: boolean }>,
  ): Promise<{ value: CachedData; cached: boolean }> {
    const hit = await this.get(key);
    if (hit !== undefined) return { value: hit, cached: true };
    this.counted?.(false);
    let running = this.inflight.get(key);
    if (running) {
      const shared = await running;
      if (shared) return { value: shared, cached: false };
    }
    let result: { value: CachedData; store: boolean } | undefined;
    running = compute().then(
      async (computed) => {
        result = computed;
        if (computed.store) await this.set(key, computed.value, ttlMs);
        return computed.store ? computed.value : null;
      },
      (error: unknown) => {
        this.inflight.delete(key);
        throw error;
      },
    );
    this.inflight.set(key, running);
    try {
      await running;
    } finally {
      this.inflight.delete(key);
    }
    return { value: result!.value, cached: false };
  }
}

const caches = new WeakMap<Services, Map<string, ResponseCache>>();

/**
 * The response cache of a running service (one per Services, so test services never share one).
 * `space` names a cache of its own: the per-hash strategy details live in `detail`, so that a caller
 * walking many hashes evicts other details, never the stats or the badges (each space keeps at most
 * 1000 entries in process).
 */
export function responseCacheFor(services: Services, space = 'reads'): ResponseCache {
  let spaces = caches.get(services);
  if (!spaces) {
    spaces = new Map();
    caches.set(services, spaces);
  }
  let cache = spaces.get(space);
  if (!cache) {
    cache = new ResponseCache(services.redis, services.config.redisPrefix, (hit) =>
      services.metrics?.cacheLookup(hit),
    );
    spaces.set(space, cache);
  }
  return cache;
}

/**
 * How long a live read (/api/chains, /api/strategy-detail) is served from the response cache: one poll
 * of the indexer, which writes what those reads show at most once per poll, so a cached answer is at
 * most one poll behind the store, as the `Cache-Control: max-age` of those paths (rest/httpCache.ts)
 * already tells every client it may be.
 */
export function liveCacheMs(services: Services): number {
  return services.config.indexerPollMs;
}

/**
 * `{ data, meta }` as text around an already serialised `data`: the meta of SPEC §2.1 for this request.
 * The request id is a UUID and the rest are numbers, booleans and an ISO date: nothing needs escaping.
 */
export function serialisedReadBody(
  ctx: Pick<RouteContext, 'requestId'>,
  data: string,
  meta: { rollupAt: number | null; cached: boolean },
): string {
  const now = Date.now();
  const freshness =
    meta.rollupAt === null ? 'null' : String(Math.max(0, Math.floor((now - meta.rollupAt) / 1000)));
  return `{"data":${data},"meta":{"requestId":"${ctx.requestId}","generatedAt":"${new Date(now).toISOString()}","apiVersion":"v1","freshnessSeconds":${freshness},"cached":${meta.cached}}}`;
}
