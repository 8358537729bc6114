import type { IncomingMessage, ServerResponse } from 'node:http';
import compression from 'compression';
import express, {
  type ErrorRequestHandler,
  type NextFunction,
  type Request,
  type RequestHandler,
  type Response,
} from 'express';
import type { GraphQLSchema } from 'graphql';
import qs from 'qs';
import { operationDocs } from '../contract/openapi/descriptions.js';
import type { Bucket } from '../lib/buckets.js';
import { ApiError, isApiError } from '../lib/errors.js';
import { requestObserver } from '../lib/metrics.js';
import type { Services } from '../lib/services.js';
import type { AuthenticatedKey } from '../resolvers/apiKeys.js';
import { createContext } from '../resolvers/context.js';
import { storeError } from '../store/db.js';
import { clientId, onlyMethods, type RateLimitOptions, rateLimit, requestId } from './conventions.js';
import { answerPreflight, keyCors, PUBLIC_READS, publicCors, publicCorsUnbucketed } from './cors.js';
import { sendError, sendJson } from './envelope.js';
import { PersistedOperations } from './execute.js';
import { createGraphqlServer, graphqlGuard } from './graphql.js';
import { type DegradedCheck, healthRoutes, type ReadinessCheck } from './health.js';
import { httpCaches } from './httpCache.js';
import { closeAfterAnswer } from './httpFaults.js';
import { keyGuard } from './keyGuard.js';
import { metricsRoute } from './metricsRoute.js';
import type { RateLimits } from './rateLimit.js';
import { responseCacheFor } from './responseCache.js';
import { type RestRoute, strayQueryCheck } from './route.js';

export interface AppOptions {
  services: Services;
  schema: GraphQLSchema;
  limits: RateLimits;
  routes: RestRoute[];
  readiness: ReadinessCheck[];
  /** What /readyz names as degraded while ready (rest/health.ts). */
  degraded?: DegradedCheck[];
  /** Extra mounts (the operator page, the docs, /mcp), with what they may need of the app. */
  mount?: (app: express.Express, hooks: MountHooks) => void;
}

export interface MountHooks {
  /** The app's own request listener, for a mount that runs REST paths in process. */
  dispatch: (req: IncomingMessage, res: ServerResponse) => void;
  /** A bucket's limiter, counted per client as the REST paths count. */
  limit: (bucket: Bucket) => RequestHandler;
}

/**
 * The HTTP app: a node request listener. Every REST path is served by the same middleware chain
 * (request id, Host check, bucket, method, key, then the route), registered on express. A request whose
 * path is exactly a static REST path runs that chain straight from a map lookup, without express's
 * per-request work (prototype switches, router walk, lazy query getter), which cost as much as the
 * route itself (bench/catalogue.ts: +58% list throughput, p99 at half of peak 10-13 ms instead of
 * 22-48 ms). Anything else, including other spellings of those paths, goes through express.
 */
export function createApp(options: AppOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const { services, schema, limits, routes } = options;
  const { config, logger } = services;
  const docsUrl = config.docsUrl;
  const operations = new PersistedOperations(schema);
  const limitOptions: RateLimitOptions = {
    limits,
    trustProxy: config.trustProxy,
    onRefused: services.metrics && ((bucket) => services.metrics?.rateLimitRefused(bucket)),
  };
  // Latency histogram and access log, recorded when each response ends (lib/metrics.ts).
  const observe = requestObserver(services.metrics, config.accessLog ? logger : undefined);
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'extended');
  // What every request meets first, on both ways in (express and the exact-path chains below).
  const prelude: RequestHandler[] = [requestId, requireSingleHeaders];
  app.use(...prelude);

  healthRoutes(app, services, options.readiness, options.degraded);
  metricsRoute(app, services);

  const yoga = createGraphqlServer(services, schema);
  // yoga is a (req, res) listener; its typings do not name express's handler type.
  app.use(
    '/graphql',
    routeLabel('/graphql'),
    rateLimit('graphql', limitOptions),
    ...graphqlGuard(services),
    yoga as unknown as express.RequestHandler,
  );

  const jsonBody = express.json({ limit: config.bodyLimitBytes, strict: true, type: () => true });
  const requireJson = (req: Request, _res: Response, next: NextFunction) => {
    const type = req.headers['content-type'] ?? '';
    if (!/^application\/(?:[\w.+-]+\+)?json\b/i.test(type)) {
      return next(new ApiError('BAD_REQUEST', 'The body must be JSON with Content-Type: application/json.'));
    }
    next();
  };

  // Group routes by path: one bucket per path, the methods it serves, 405 for the rest.
  const exact = new Map<string, RequestHandler[]>();
  const byPath = new Map<string, RestRoute[]>();
  for (const route of routes) byPath.set(route.path, [...(byPath.get(route.path) ?? []), route]);

  // Cache-Control, ETag and 304 per path (rest/httpCache.ts); CORS (rest/cors.ts) in the guards below.
  const responses = responseCacheFor(services);
  const caches = httpCaches(byPath.keys(), config, {
    statsExpiresInMs: () => responses.expiresInMs('stats'),
  });

  // Every route's words from docs/api, parsed now: a malformed section stops the start, not a later read.
  for (const { doc } of routes) if (doc) operationDocs(doc.operationId, doc.descriptionValues);
  const strayChecks = new Map(routes.map((route) => [route, strayQueryCheck(route)]));
  for (const [path, pathRoutes] of byPath) {
    const first = pathRoutes[0]!;
    const methods = pathRoutes.map((r) => r.method);
    const cache = caches.get(path);
    const browser = config.cors && PUBLIC_READS.has(path);
    const guard = first.auth
      ? keyGuard(services, limitOptions, pathRoutes, config.cors ? keyCors(services.db, methods) : undefined)
      : [
          ...(browser ? [publicCors(methods)] : []),
          rateLimit(
            first.bucket,
            limitOptions,
            first.limit === undefined
              ? undefined
              : (req) => ({ id: clientId(req, config.trustProxy), limit: first.limit! }),
          ),
          browser ? answerPreflight(methods, onlyMethods(methods)) : onlyMethods(methods),
        ];
    const handlers: RequestHandler[] = [
      ...guard,
      (req, res, next) => {
        const route = pathRoutes.find(
          (r) => r.method === req.method || (r.method === 'GET' && req.method === 'HEAD'),
        )!;
        const stray = strayChecks.get(route)!(req.query);
        if (stray) return next(stray);
        const run = () => {
          const apiKey = (res.locals.apiKey as AuthenticatedKey | undefined) ?? null;
          const id = String(res.locals.requestId);
          route
            .handle({
              req,
              res,
              services,
              requestId: id,
              operations,
              apiKey,
              graphql: (extra) => createContext(services, id, { apiKey, ...extra }),
            })
            .then((result) => {
              if (result.streamed) return;
              for (const [name, value] of Object.entries(result.headers ?? {})) res.setHeader(name, value);
              sendJson(res, result.status ?? 200, result.body, cache, result);
            }, next);
        };
        if (!route.body) return run();
        requireJson(req, res, (err?: unknown) => {
          if (err) return next(err);
          jsonBody(req, res, (parseErr?: unknown) => {
            if (parseErr) return next(parseErr);
            const reserved = reservedKeyPath(req.body);
            if (reserved) {
              return next(
                ApiError.invalid(
                  reserved,
                  `${reserved}: "__proto__", "constructor" and "prototype" are not accepted as keys.`,
                ),
              );
            }
            run();
          });
        });
      },
    ];
    app.all(path, ...handlers);
    if (!path.includes(':')) exact.set(path, [...prelude, ...handlers]);
  }

  // The reference and the operator page count per client too (SPEC §1: every endpoint advertises
  // RateLimit-*); only the health probes stay outside the buckets.
  app.use(['/docs', '/openapi.json', '/llms.txt'], rateLimit('docs', limitOptions));
  if (config.cors) app.use('/openapi.json', publicCorsUnbucketed());
  app.all(['/', '/demo', '/favicon.svg', '/favicon.ico'], rateLimit('web', limitOptions));
  app.use('/web', rateLimit('web', limitOptions));
  options.mount?.(app, {
    dispatch: (req, res) => listener(req, res),
    limit: (bucket) => rateLimit(bucket, limitOptions),
  });

  app.use(rateLimit('other', limitOptions), (req, _res, next) => {
    next(new ApiError('NOT_FOUND', `No endpoint at ${req.method} ${req.path}.`));
  });

  // A request refused before any bucket (a malformed or repeated Host, two Authorization headers, a path
  // that cannot be percent-decoded) still counts, in its client's `other` bucket, and says so in
  // RateLimit-*: a client cannot send them without limit, and every answer carries the headers.
  const countRefusal = rateLimit('other', limitOptions);
  const onError: ErrorRequestHandler = (error, req, res, _next) => {
    const apiError = toApiError(error);
    if (apiError.code === 'INTERNAL') {
      logger.error({ err: error, requestId: res.locals.requestId, path: req.path }, 'unexpected fault');
    } else if (apiError.status >= 500) {
      logger.warn({ err: error, requestId: res.locals.requestId, path: req.path }, 'upstream failure');
    }
    if (res.headersSent) return res.end();
    if (apiError.status < 500 && !res.hasHeader('RateLimit-Limit')) {
      countRefusal(req, res, (refused?: unknown) => {
        const answer = isApiError(refused) && refused.code === 'RATE_LIMITED' ? refused : apiError;
        sendError(res, answer, docsUrl, config.httpCache);
      });
      return;
    }
    sendError(res, apiError, docsUrl, config.httpCache);
  };
  app.use(onError);

  // gzip / br of bodies over the threshold, only for a request that asks (Accept-Encoding): the others
  // do not pay for the wrapping of the response.
  const compress = config.compression ? compression({ threshold: config.compressionMinBytes }) : null;
  const serve = (req: IncomingMessage, res: ServerResponse): void => {
    observe?.(req, res);
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    const chain = exact.get(path);
    if (!chain) {
      app(req, res);
      return;
    }
    // What the chain reads of express's request and response, set as express would (its `extended`
    // query parser is qs with allowPrototypes).
    const request = req as Request;
    const response = res as Response;
    request.query = q < 0 ? {} : qs.parse(url.slice(q + 1), { allowPrototypes: true });
    Object.defineProperty(request, 'path', { value: path });
    request.params = {};
    response.locals = { route: path };
    let i = 0;
    const next = (error?: unknown): void => {
      if (error) {
        onError(error, request, response, () => {});
        return;
      }
      const handler = chain[i++];
      if (!handler) return;
      try {
        handler(request, response, next);
      } catch (thrown) {
        onError(thrown, request, response, () => {});
      }
    };
    next();
  };
  const listener: (req: IncomingMessage, res: ServerResponse) => void = !compress
    ? serve
    : (req, res) => {
        if (req.headers['accept-encoding'] === undefined || isStream(req.url)) return serve(req, res);
        compress(req as Request, res as Response, () => serve(req, res));
      };
  return listener;
}

/**
 * GET /api/events writes each message as it happens: a compressor would hold it back until its buffer
 * fills (the route also says `no-transform`, which the compression middleware honours).
 */
function isStream(url: string | undefined): boolean {
  return url === '/api/events' || url?.startsWith('/api/events?') === true;
}

/** Names the route of a mounted handler (no express route pattern) for the metrics and the access log. */
function routeLabel(route: string): RequestHandler {
  return (_req, res, next) => {
    res.locals.route = route;
    next();
  };
}

/**
 * RFC 9112 §3.2: an HTTP/1.1 request without Host, with two, or with one that is not `host[:port]` is a
 * 400. Node's own check (off in service.ts) answered a missing Host without an envelope, and a Host
 * such as `a b` reached /graphql, where yoga could not build the request URL: a 500 with a stack trace.
 * Two Authorization headers are refused alike: node keeps the first and drops the other, so which
 * credential counted would depend on the order a proxy wrote them in. So is a Transfer-Encoding that
 * does not end with chunked.
 */
const VALID_HOSTS = new Set<string>();

/** RFC 9112 §6.3: a request's transfer codings must end with chunked, or its body has no length. */
const FINAL_CHUNKED = /(?:^|,)[ \t]*chunked[ \t]*$/i;

function requireSingleHeaders(req: Request, res: Response, next: NextFunction): void {
  const coding = req.headers['transfer-encoding'];
  if (coding !== undefined && !FINAL_CHUNKED.test(coding)) {
    // Node dispatched such a request, then failed on its body at the connection's end and answered a
    // second time (a 400 after the 404) on the same socket. Its length cannot be known: 400, and close.
    res.setHeader('Connection', 'close');
    closeAfterAnswer(req.socket);
    next(new ApiError('BAD_REQUEST', 'Transfer-Encoding must end with chunked; the connection is closed.'));
    return;
  }
  let hosts = 0;
  let authorizations = 0;
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i]!;
    if (name.length === 4 && name.toLowerCase() === 'host') hosts++;
    else if (name.length === 13 && name.toLowerCase() === 'authorization') authorizations++;
  }
  if (authorizations > 1) {
    next(new ApiError('BAD_REQUEST', 'The Authorization header is repeated.'));
    return;
  }
  const host = req.headers.host;
  let valid = hosts === 1 || (hosts === 0 && req.httpVersion !== '1.1');
  if (valid && host && !VALID_HOSTS.has(host)) {
    try {
      const url = new URL(`http://${host}/`);
      valid = url.username === '' && url.password === '' && url.pathname === '/' && !url.search && !url.hash;
    } catch {
      valid = false;
    }
    // The same few Host values repeat on every request: parse each once (bounded, so junk cannot grow it).
    if (valid && VALID_HOSTS.size < 256) VALID_HOSTS.add(host);
  }
  next(valid ? undefined : new ApiError('BAD_REQUEST', 'The Host header is missing, repeated or malformed.'));
}

const RESERVED_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * The path of the first object key of a JSON body that names a prototype slot, or null. JSON.parse
 * keeps `"__proto__"` as an own key, but most code that copies or validates an object skips or
 * misreads it (zod dropped it from `metadata` and answered 200): such a body is refused by name instead.
 */
export function reservedKeyPath(value: unknown, path = 'body', depth = 0): string | null {
  if (typeof value !== 'object' || value === null || depth > 32) return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = reservedKeyPath(value[i], `${path}[${i}]`, depth + 1);
      if (found) return found;
    }
    return null;
  }
  for (const key of Object.keys(value)) {
    const at = path === 'body' ? key : `${path}.${key}`;
    if (RESERVED_KEYS.has(key)) return at;
    const found = reservedKeyPath((value as Record<string, unknown>)[key], at, depth + 1);
    if (found) return found;
  }
  return null;
}

/** body-parser, store and unexpected errors all become the one envelope. */
function toApiError(error: unknown): ApiError {
  if (isApiError(error)) return error;
  const type = (error as { type?: unknown } | null)?.type;
  if (type === 'entity.parse.failed') return new ApiError('BAD_REQUEST', 'The body is not valid JSON.');
  if (type === 'entity.too.large')
    return new ApiError('BAD_REQUEST', 'The body is larger than the service accepts.');
  if (typeof type === 'string' && /encoding|charset|request\.aborted|stream/.test(type)) {
    return new ApiError('BAD_REQUEST', 'The body could not be read.');
  }
  // express's own client errors (http-errors with a 4xx status): a path parameter that is not valid
  // percent-encoding (`/v1/positions/%E0%A4%A`) was a 500.
  const status = (error as { status?: unknown } | null)?.status;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return new ApiError(
      'BAD_REQUEST',
      error instanceof URIError
        ? 'The path is not valid percent-encoding.'
        : 'The request could not be read.',
    );
  }
  const mapped = storeError(error);
  if (isApiError(mapped)) return mapped;
  return new ApiError('INTERNAL', 'An unexpected error occurred; it has been logged.');
}
