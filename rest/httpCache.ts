import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Config } from '../lib/config.js';

/**
 * HTTP caching of the reads (RFC 9111 Cache-Control, RFC 9110 ETag / If-None-Match / 304).
 *
 * Every successful response of a REST path gets the path's `Cache-Control`, set as the response is
 * written (rest/envelope.ts `sendJson`, the one place every route's body goes through):
 *
 * - /api/stats: `public, max-age=<what is left of the 60 s response cache entry>` (the entry's expiry
 *   is shared by every replica through Redis), `no-cache` before the first roll-up (nothing cached);
 * - /api/badge: `public, max-age=<the body's cacheSeconds>`: 300 for a working badge (what the badge
 *   renderers floor at anyway), 30 for the "unavailable" badge, so that it is asked for again soon;
 * - /api/chains, /api/strategies, /api/strategy-detail: `public, max-age=<the indexer's poll
 *   interval>` (at least 1 s): what a list, a detail or a chain's indexer block can be behind anyway;
 * - /api/quote (a simulation at the current block) and every /v1 path: `no-store`;
 * - every error envelope: `no-store` (envelope.ts `sendError`): a 429 or a 503 is never reused.
 *
 * The first five also carry a strong ETag and answer `If-None-Match` with 304 (weak comparison, as
 * RFC 9110 §13.1.2 asks of If-None-Match: `W/"x"` matches `"x"`; `*` matches any). The ETag covers what
 * identifies the representation's content, not the bytes: a read's body is `{ data, meta }` and `meta`
 * is per request (requestId, generatedAt, freshnessSeconds, cached), so a tag over the whole body would
 * never match. It is the SHA-1 of the body up to its `meta` member (`{"data":…`), i.e. of `data`, or of
 * the whole body where there is no `meta` (the badge). Two responses with one ETag therefore carry the
 * same `data` and may differ in `meta`: a 304 means "your data is current", and a refetch without
 * If-None-Match brings a new `meta` around the same `data`.
 *
 * Per request this is a few header writes and, for a body whose `data` is the one this path answered
 * last (the cached stats: every hit), a string comparison instead of a hash.
 */

/** Where the per-request `meta` of a `{ data, meta }` body begins (meta is always its last member). */
const META = ',"meta":{"requestId":';

export interface CacheSources {
  /** Milliseconds left of the /api/stats response cache entry (0: none). */
  statsExpiresInMs(): number;
}

/** What a path's successful responses carry. */
export interface HttpCachePolicy {
  /** The Cache-Control value of a response with this body. */
  cacheControl(text: string): string;
  /** Whether the path answers with an ETag and honours If-None-Match. */
  etag: boolean;
}

const NO_STORE: HttpCachePolicy = { cacheControl: () => 'no-store', etag: false };

/** The policy of a REST path, or null where the path sets its own (the demo endpoints). */
export function cachePolicy(path: string, config: Config, sources: CacheSources): HttpCachePolicy | null {
  if (path.startsWith('/v1/')) return NO_STORE;
  const live = `public, max-age=${Math.max(1, Math.ceil(config.indexerPollMs / 1000))}`;
  switch (path) {
    case '/api/stats':
      return {
        cacheControl: () => {
          const seconds = Math.floor(sources.statsExpiresInMs() / 1000);
          return seconds > 0 ? `public, max-age=${seconds}` : 'public, no-cache';
        },
        etag: true,
      };
    case '/api/badge':
      return {
        cacheControl: (text) => `public, max-age=${/"cacheSeconds":(\d+)/.exec(text)?.[1] ?? '300'}`,
        etag: true,
      };
    case '/api/chains':
    case '/api/strategies':
    case '/api/strategy-detail':
      return { cacheControl: () => live, etag: true };
    case '/api/quote':
      return NO_STORE;
    default:
      return null;
  }
}

/** What the ETag covers: the body up to its `meta` member, or all of it where there is none. */
export function representation(text: string): string {
  const meta = text.startsWith('{"data":') ? text.lastIndexOf(META) : -1;
  return meta < 0 ? text : text.slice(0, meta);
}

/** A strong entity tag over `content`: its SHA-1, quoted. */
export function strongTag(content: string): string {
  return `"${createHash('sha1').update(content).digest('base64url')}"`;
}

/** RFC 9110 §13.1.2: does If-None-Match name this (strong) tag? Weak comparison; `*` matches. */
export function noneMatch(header: string, etag: string): boolean {
  if (header === etag) return true;
  for (const part of header.split(',')) {
    const tag = part.trim();
    if (tag === '*' || tag === etag || (tag.startsWith('W/') && tag.slice(2) === etag)) return true;
  }
  return false;
}

/**
 * The caching of one path's successful responses. `apply` sets Cache-Control (and ETag) and answers
 * 304 when the request's If-None-Match names the current tag; it returns whether it answered.
 */
export class HttpCache {
  private lastContent = '';
  private lastTag = '';

  constructor(private readonly policy: HttpCachePolicy) {}

  apply(req: IncomingMessage, res: ServerResponse, text: string): boolean {
    res.setHeader('Cache-Control', this.policy.cacheControl(text));
    if (!this.policy.etag) return false;
    // The body is chosen by Accept-Encoding too (compression): shared caches must key on it.
    res.setHeader('Vary', 'Accept-Encoding');
    const content = representation(text);
    if (content !== this.lastContent) {
      this.lastTag = strongTag(content);
      this.lastContent = content;
    }
    const tag = this.lastTag;
    res.setHeader('ETag', tag);
    const condition = req.headers['if-none-match'];
    if (condition === undefined || !noneMatch(condition, tag)) return false;
    res.statusCode = 304;
    res.end();
    return true;
  }
}

/** One HttpCache per REST path with a policy; none at all with HTTP_CACHE=off. */
export function httpCaches(
  paths: Iterable<string>,
  config: Config,
  sources: CacheSources,
): Map<string, HttpCache> {
  const caches = new Map<string, HttpCache>();
  if (!config.httpCache) return caches;
  for (const path of paths) {
    const policy = cachePolicy(path, config, sources);
    if (policy) caches.set(path, new HttpCache(policy));
  }
  return caches;
}
