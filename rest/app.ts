import type { IncomingMessage, ServerResponse } from 'node:http';
import express, {
  type ErrorRequestHandler,
  type NextFunction,
  type Request,
  type RequestHandler,
  type Response,
} from 'express';
import type { GraphQLSchema } from 'graphql';
import qs from 'qs';
import { ApiError, isApiError } from '../lib/errors.js';
import { requestObserver } from '../lib/metrics.js';
import type { Services } from '../lib/services.js';
import { type AuthenticatedKey, authenticate, authorize } from '../resolvers/apiKeys.js';
import { createContext } from '../schema/context.js';
import { storeError } from '../store/db.js';
import { BUCKET_LIMITS } from './buckets.js';
import { clientId, onlyMethods, type RateLimitOptions, rateLimit, requestId } from './conventions.js';
import { sendError, sendJson } from './envelope.js';
import { PersistedOperations } from './execute.js';
import { createGraphqlServer, internalAuth } from './graphql.js';
import { healthRoutes, type ReadinessCheck } from './health.js';
import { metricsRoute } from './metricsRoute.js';
import type { RateLimits } from './rateLimit.js';
import type { RestRoute } from './route.js';

export interface AppOptions {
  services: Services;
  schema: GraphQLSchema;
  limits: RateLimits;
  routes: RestRoute[];
  readiness: ReadinessCheck[];
  /** Extra mounts outside the buckets (the operator page, the docs). */
  mount?: (app: express.Express) => void;
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
  const prelude: RequestHandler[] = [requestId, requireValidHost];
  app.use(...prelude);

  healthRoutes(app, services, options.readiness);
  metricsRoute(app, services);

  const yoga = createGraphqlServer(services, schema);
  // yoga is a (req, res) listener; its typings do not name express's handler type.
  app.use(
    '/graphql',
    routeLabel('/graphql'),
    internalAuth(services),
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

  for (const [path, pathRoutes] of byPath) {
    const first = pathRoutes[0]!;
    const methods = pathRoutes.map((r) => r.method);
    const guard = first.auth
      ? keyGuard(services, limitOptions, pathRoutes)
      : [
          rateLimit(
            first.bucket,
            limitOptions,
            first.limit === undefined
              ? undefined
              : (req) => ({ id: clientId(req, config.trustProxy), limit: first.limit! }),
          ),
          onlyMethods(methods),
        ];
    const handlers: RequestHandler[] = [
      ...guard,
      (req, res, next) => {
        const route = pathRoutes.find(
          (r) => r.method === req.method || (r.method === 'GET' && req.method === 'HEAD'),
        )!;
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
              for (const [name, value] of Object.entries(result.headers ?? {})) res.setHeader(name, value);
              sendJson(res, result.status ?? 200, result.body);
            }, next);
        };
        if (!route.body) return run();
        requireJson(req, res, (err?: unknown) => {
          if (err) return next(err);
          jsonBody(req, res, (parseErr?: unknown) => (parseErr ? next(parseErr) : run()));
        });
      },
    ];
    app.all(path, ...handlers);
    if (!path.includes(':')) exact.set(path, [...prelude, ...handlers]);
  }

  options.mount?.(app);

  app.use(rateLimit('other', limitOptions), (req, _res, next) => {
    next(new ApiError('NOT_FOUND', `No endpoint at ${req.method} ${req.path}.`));
  });

  const onError: ErrorRequestHandler = (error, req, res, _next) => {
    const apiError = toApiError(error);
    if (apiError.code === 'INTERNAL') {
      logger.error({ err: error, requestId: res.locals.requestId, path: req.path }, 'unexpected fault');
    } else if (apiError.status >= 500) {
      logger.warn({ err: error, requestId: res.locals.requestId, path: req.path }, 'upstream failure');
    }
    if (res.headersSent) return res.end();
    sendError(res, apiError, docsUrl);
  };
  app.use(onError);

  return (req, res) => {
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
 */
const VALID_HOSTS = new Set<string>();

function requireValidHost(req: Request, _res: Response, next: NextFunction): void {
  let count = 0;
  for (let i = 0; i < req.rawHeaders.length; i += 2) if (req.rawHeaders[i]!.toLowerCase() === 'host') count++;
  const host = req.headers.host;
  let valid = count === 1 || (count === 0 && req.httpVersion !== '1.1');
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

/**
 * Key-protected paths: the bucket counts per key at the key's agreed limit once the key is known, and
 * per client before that, so a 401 or 405 carries the headers too. Then method, key, scope and origin.
 */
function keyGuard(services: Services, limitOptions: RateLimitOptions, pathRoutes: RestRoute[]) {
  const bucket = pathRoutes[0]!.bucket;
  const scopes = new Map<string, string | null>(pathRoutes.map((r) => [r.method, r.auth?.scope ?? null]));
  return [
    (req: Request, res: Response, next: NextFunction) => {
      authenticate(services.db, req.headers.authorization).then(
        (key) => {
          res.locals.apiKey = key;
          next();
        },
        (error: unknown) => {
          // A 401 and a store failure alike are reported after the bucket (per client here), so
          // they carry the RateLimit-* headers too.
          res.locals.authError = error;
          next();
        },
      );
    },
    rateLimit(bucket, limitOptions, (req, res) => {
      const key = res.locals.apiKey as AuthenticatedKey | undefined;
      if (!key) return { id: `ip:${clientId(req, limitOptions.trustProxy)}`, limit: BUCKET_LIMITS[bucket] };
      return {
        id: `key:${key.keyId}`,
        limit: bucket === 'prepare' ? key.prepareLimitPerMinute : BUCKET_LIMITS[bucket],
      };
    }),
    onlyMethods([...scopes.keys()]),
    (req: Request, res: Response, next: NextFunction) => {
      if (res.locals.authError) return next(res.locals.authError);
      try {
        authorize(res.locals.apiKey as AuthenticatedKey, scopes.get(req.method) ?? null, req.headers.origin);
        next();
      } catch (error) {
        next(error);
      }
    },
  ];
}
