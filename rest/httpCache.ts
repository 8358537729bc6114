import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import Negotiator from 'negotiator';
import type { Config } from '../lib/config.js';
import { type Encoding, PrecompressedPrefix } from './precompressed.js';

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
 * - /api/chains, /api/strategies, /api/strategy-detail, /api/makers/{address},
 *   /api/strategies/{hash}/activity: `public, max-age=<the indexer's poll
 *   interval>` (at least 1 s): what a list, a detail or a chain's indexer block can be behind anyway;
 * - /api/quote (a simulation at the current block) and every /v1 path: `no-store`;
 * - every error envelope: `no-store` (envelope.ts `sendError`): a 429 or a 503 is never reused.
 *
 * The first seven also carry a strong ETag and answer `If-None-Match` with 304 (weak comparison, as
 * RFC 9110 §13.1.2 asks of If-None-Match: `W/"x"` matches `"x"`; `*` matches any). The ETag covers what
 * identifies the representation's content, not the bytes: a read's body is `{ data, meta }` and `meta`
 * is per request (requestId, generatedAt, freshnessSeconds, cached), so a tag over the whole body would
 * never match. It is the SHA-1 of the body up to its `meta` member (`{"data":…`), i.e. of `data`, or of
 * the whole body where there is no `meta` (the badge). A list page hashes what its `data` is made of
 * instead (RouteResult `identity`: each entry by the digest Postgres keeps of it, migration 018), a
 * few hundred characters where `data` is ~16 K. Two responses with one ETag therefore carry the
 * same `data` and may differ in `meta`: a 304 means "your data is current", and a refetch without
 * If-None-Match brings a new `meta` around the same `data`.
 *
 * Per request this is a few header writes and a SHA-1 of the body's `data` (~1 µs per KB). A body
 * built around a cached `data` string (rest/responseCache.ts `serialisedReadBody`; the sender passes
 * that string) is matched by identity, without slicing or comparing the body, and its gzip / br bytes
 * are built from a prefix compressed once per cached `data` (rest/precompressed.ts): a cached hit pays
 * neither a hash nor a compression.
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
    case '/api/stats': {
      // The values of the last hour's seconds, built once each (the same few repeat on every request).
      const maxAge: string[] = [];
      return {
        cacheControl: () => {
          const seconds = Math.floor(sources.statsExpiresInMs() / 1000);
          if (seconds <= 0) return 'public, no-cache';
          if (seconds > 3600) return `public, max-age=${seconds}`;
          maxAge[seconds] ??= `public, max-age=${seconds}`;
          return maxAge[seconds];
        },
        etag: true,
      };
    }
    case '/api/badge':
      return {
        cacheControl: (text) => `public, max-age=${/"cacheSeconds":(\d+)/.exec(text)?.[1] ?? '300'}`,
        etag: true,
      };
    case '/api/chains':
    case '/api/strategies':
    case '/api/strategy-detail':
    case '/api/makers':
    case '/api/makers/:address':
    case '/api/strategies/:hash/activity':
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

/** The prefix of a `{ data, meta }` body before its `data`. */
const DATA_START = '{"data":';

/** Encodings the `compression` package offers, in its order of preference on equal q. */
const OFFERED = ['br', 'gzip', 'deflate', 'identity'];
const PREFERRED = ['br', 'gzip'];
/** The chosen encoding per Accept-Encoding value: the same few values repeat (bounded). */
const NEGOTIATED = new Map<string, Encoding | null>();

/** br or gzip when the request's Accept-Encoding picks one as the `compression` package would, else null. */
export function negotiatedEncoding(req: IncomingMessage): Encoding | null {
  const accept = req.headers['accept-encoding'];
  if (accept === undefined) return null;
  let chosen = NEGOTIATED.get(accept);
  if (chosen === undefined) {
    // negotiator 1.x takes the preferred order as a second argument (its 0.6 typings do not say so).
    const encoding = (
      new Negotiator(req).encoding as (available: string[], options: { preferred: string[] }) => string
    )(OFFERED, { preferred: PREFERRED });
    chosen = encoding === 'br' || encoding === 'gzip' ? encoding : null;
    if (NEGOTIATED.size < 256) NEGOTIATED.set(accept, chosen);
  }
  return chosen;
}

/**
 * The caching of one path's successful responses. `apply` sets Cache-Control (and ETag) and answers
 * 304 when the request's If-None-Match names the current tag; it returns whether it answered.
 */
export class HttpCache {
  /** The cached `data` string the last identified body was built around, its tag and compressed prefix. */
  private lastData: string | undefined;
  private dataTag = '';
  private prefix: PrecompressedPrefix | undefined;

  constructor(
    private readonly policy: HttpCachePolicy,
    /** Bodies of at least this many bytes are compressed when asked; null: no compression. */
    private readonly compressFrom: number | null = null,
  ) {}

  /**
   * `data`: the cached JSON text of the body's `data` when `text` is `{"data":<data>,"meta":…}` built
   * around it (serialisedReadBody). `identity`: a short text that determines the body's `data` exactly
   * (RouteResult), hashed for the tag instead of `data`.
   */
  apply(req: IncomingMessage, res: ServerResponse, text: string, data?: string, identity?: string): boolean {
    res.setHeader('Cache-Control', this.policy.cacheControl(text));
    if (!this.policy.etag) return false;
    // The body is chosen by Accept-Encoding too (compression): shared caches must key on it.
    res.setHeader('Vary', 'Accept-Encoding');
    const tag =
      identity !== undefined
        ? strongTag(identity)
        : data === undefined
          ? this.tagOf(text)
          : this.tagOfData(data);
    res.setHeader('ETag', tag);
    const condition = req.headers['if-none-match'];
    if (condition === undefined || !noneMatch(condition, tag)) return false;
    res.statusCode = 304;
    res.end();
    return true;
  }

  /**
   * The body br- or gzip-encoded from the compressed prefix of its cached `data`, when the request asks
   * for one of them, the body is over the threshold and `data` is the one `apply` just identified.
   */
  precompressed(
    req: IncomingMessage,
    text: string,
    data: string | undefined,
  ): { encoding: Encoding; bytes: Buffer } | undefined {
    // Most requests ask for no encoding: that answer first, before any string is compared.
    if (this.compressFrom === null || req.headers['accept-encoding'] === undefined) return undefined;
    if (data === undefined || data !== this.lastData) return undefined;
    if (req.method !== 'GET' || !text.startsWith(DATA_START)) return undefined;
    const encoding = negotiatedEncoding(req);
    if (encoding === null) return undefined;
    this.prefix ??= new PrecompressedPrefix(DATA_START + data);
    const suffix = text.slice(DATA_START.length + data.length);
    if (this.prefix.length + suffix.length < this.compressFrom) return undefined;
    const bytes = this.prefix.encode(encoding, suffix);
    return bytes && { encoding, bytes };
  }

  /**
   * The SHA-1 of what identifies the body. Not memoized by content: a body is a new string on every
   * request, so a Map keyed by it would hash all of it each time (V8 caches a string's hash in that
   * string only), which costs more than the SHA-1 itself.
   */
  private tagOf(text: string): string {
    return strongTag(representation(text));
  }

  /** The same tag as `tagOf` gives the body (the SHA-1 of `{"data":<data>`), memoized per `data`. */
  private tagOfData(data: string): string {
    if (data !== this.lastData) {
      this.dataTag = strongTag(DATA_START + data);
      this.lastData = data;
      this.prefix = undefined;
    }
    return this.dataTag;
  }
}

/**
 * One HttpCache per REST path with a policy. HTTP_CACHE=off leaves the public reads without any (no
 * Cache-Control, ETag or 304), but /v1 keeps its `no-store`: a key's prepared transactions and
 * positions are never for a cache to keep, whatever the reads' caching.
 */
export function httpCaches(
  paths: Iterable<string>,
  config: Config,
  sources: CacheSources,
): Map<string, HttpCache> {
  const caches = new Map<string, HttpCache>();
  for (const path of paths) {
    if (!config.httpCache && !path.startsWith('/v1/')) continue;
    const policy = cachePolicy(path, config, sources);
    if (policy)
      caches.set(path, new HttpCache(policy, config.compression ? config.compressionMinBytes : null));
  }
  return caches;
}
