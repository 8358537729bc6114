import cors from 'cors';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { AuthenticatedKey } from '../resolvers/apiKeys.js';
import { anyKeyAllowsOrigin } from '../store/apiKeys.js';
import type { Db } from '../store/db.js';

/**
 * Browser access (CORS, the Fetch standard).
 *
 * Public reads (/api/stats, /api/chains, /api/strategies, /api/strategy-detail, /api/quote, /api/badge,
 * /api/events, /openapi.json): any page may read them, without credentials: `Access-Control-Allow-Origin: *` on
 * every response, errors and 429s included (a page can read the envelope and Retry-After), with the
 * headers a page needs exposed (EXPOSED). A preflight (OPTIONS) is answered 204 with the allowed
 * methods and request headers and a Max-Age; it counts against the path's bucket like any request
 * (SPEC: every endpoint advertises RateLimit-*, and OPTIONS must not be a free way to load the
 * service). Browsers send none for a plain GET, and one per URL per Max-Age otherwise.
 *
 * /v1 (key-protected): a browser may read a response only when the calling key's `origins` list names
 * the page's Origin; then the Origin is reflected (with `Vary: Origin`), never `*`. A key without an
 * `origins` list gets no CORS at all: such a key belongs on a server (docs/operations.md, API keys). A preflight
 * carries no Authorization, so the key is unknown there: it is answered 204, and allows the Origin
 * when some active key lists it (the actual request is then checked against its own key: 403 and no
 * CORS header for an Origin that key does not list).
 *
 * The demo endpoints (/api/pilot, /api/balances) get none of this: they answer the operator's own
 * pages (rest/sameOrigin.ts); an OPTIONS there is a 405.
 */

/** Response headers a page may read beyond the CORS-safelisted ones. */
export const EXPOSED = [
  'X-Request-Id',
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
  'RateLimit-Policy',
  'Retry-After',
  'ETag',
];
/**
 * Request headers a page may send to a public read (If-None-Match: its own revalidation; Last-Event-ID:
 * an EventSource resuming GET /api/events).
 */
const PUBLIC_REQUEST_HEADERS = ['If-None-Match', 'X-Request-Id', 'Last-Event-ID'];
/** Request headers a page may send to /v1. */
const KEY_REQUEST_HEADERS = ['Authorization', 'Content-Type', 'Idempotency-Key', 'X-Request-Id'];
/** Seconds a browser may keep a preflight's answer (Chromium caps it at 7200, Firefox at 86400). */
export const PREFLIGHT_MAX_AGE = 86400;

/** The public read paths (the REST ones; /openapi.json is mounted beside them). */
export const PUBLIC_READS = new Set([
  '/api/stats',
  '/api/chains',
  '/api/strategies',
  '/api/strategy-detail',
  '/api/quote',
  '/api/badge',
  '/api/events',
]);

/** The allowed methods of a path serving `methods` (GET brings HEAD). */
function allowed(methods: string[]): string[] {
  return [...new Set(methods.flatMap((m) => (m === 'GET' ? ['GET', 'HEAD'] : [m])))];
}

/**
 * CORS of a public read: the headers on every response; an OPTIONS is left to `answerPreflight`
 * (after the bucket) with its preflight headers set. The package answers the preflight; the two
 * headers of every other request, the same for all of them, are set here directly (the package builds
 * its options and header list anew per request, a cost on the hottest paths for a constant result).
 */
export function publicCors(methods: string[]): RequestHandler {
  const preflight = cors({
    origin: '*',
    methods: [...allowed(methods), 'OPTIONS'],
    allowedHeaders: PUBLIC_REQUEST_HEADERS,
    exposedHeaders: EXPOSED,
    maxAge: PREFLIGHT_MAX_AGE,
    preflightContinue: true,
  });
  const exposed = EXPOSED.join(',');
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.method === 'OPTIONS') return preflight(req, res, next);
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Access-Control-Expose-Headers', exposed);
    next();
  };
}

/** The same, answering a preflight at once (paths outside the buckets: /openapi.json). */
export function publicCorsUnbucketed(): RequestHandler {
  return cors({
    origin: '*',
    methods: ['GET', 'HEAD', 'OPTIONS'],
    allowedHeaders: PUBLIC_REQUEST_HEADERS,
    exposedHeaders: EXPOSED,
    maxAge: PREFLIGHT_MAX_AGE,
    optionsSuccessStatus: 204,
  });
}

/**
 * Ends an OPTIONS request with 204 (its preflight headers are already set); other methods go on to
 * `otherwise` (the path's method check: one step of the chain instead of two on every request).
 */
export function answerPreflight(
  methods: string[],
  otherwise: RequestHandler = (_req, _res, next) => next(),
): RequestHandler {
  const allow = [...allowed(methods), 'OPTIONS'].join(', ');
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.method !== 'OPTIONS') return otherwise(req, res, next);
    res.statusCode = 204;
    res.setHeader('Allow', allow);
    // Safari waits for a body on a 204 without it.
    res.setHeader('Content-Length', '0');
    res.end();
  };
}

/**
 * /v1, after the key is authenticated and the bucket counted. An OPTIONS is the preflight: 204, with
 * the Origin allowed when an active key lists it. Any other request: the Origin reflected when the
 * calling key lists it.
 */
export function keyCors(db: Db, methods: string[]): RequestHandler {
  const preflight = cors({
    origin: (origin, callback) => {
      if (origin === undefined) return callback(null, false);
      anyKeyAllowsOrigin(db, origin).then(
        (listed) => callback(null, listed ? origin : false),
        // The store failing: no CORS, the browser's request is then refused on its side.
        () => callback(null, false),
      );
    },
    methods: [...allowed(methods), 'OPTIONS'],
    allowedHeaders: KEY_REQUEST_HEADERS,
    exposedHeaders: EXPOSED,
    maxAge: PREFLIGHT_MAX_AGE,
    preflightContinue: true,
  });
  const end = answerPreflight(methods);
  const exposed = EXPOSED.join(',');
  return (req: Request, res: Response, next: NextFunction) => {
    res.setHeader('Vary', 'Origin');
    if (req.method === 'OPTIONS') {
      // Without a listed Origin the cors package sets nothing: the preflight still gets its 204 and
      // the methods, headers and Max-Age, but no Access-Control-Allow-Origin.
      res.setHeader('Access-Control-Allow-Methods', [...allowed(methods), 'OPTIONS'].join(','));
      res.setHeader('Access-Control-Allow-Headers', KEY_REQUEST_HEADERS.join(','));
      res.setHeader('Access-Control-Max-Age', String(PREFLIGHT_MAX_AGE));
      return preflight(req, res, (error?: unknown) => (error ? next(error) : end(req, res, next)));
    }
    const origin = req.headers.origin;
    const key = res.locals.apiKey as AuthenticatedKey | undefined;
    if (origin !== undefined && key?.origins?.includes(origin)) {
      res.setHeader('Access-Control-Allow-Origin', origin);
      res.setHeader('Access-Control-Expose-Headers', exposed);
    }
    next();
  };
}
