import { createHash, timingSafeEqual } from 'node:crypto';
import { createInMemoryCache, useResponseCache } from '@graphql-yoga/plugin-response-cache';
import type { Request, RequestHandler, Response } from 'express';
import type { GraphQLSchema } from 'graphql';
import { GraphQLError, getOperationAST, isObjectType } from 'graphql';
import { createYoga, type Plugin } from 'graphql-yoga';
import { ApiError, isApiError, toExtensions } from '../lib/errors.js';
import type { Services } from '../lib/services.js';
import { createContext, type GraphQLContext, type GraphQLRole } from '../resolvers/context.js';
import { sendError } from './envelope.js';
import { cacheableDocument, createPrefixedRedisCache } from './graphqlCache.js';
import {
  ANALYTICS_CONCURRENCY,
  armorPlugin,
  concurrencyGate,
  limitRefusal,
  limitRefusalsAre400,
  listCostPlugin,
} from './graphqlLimits.js';
import { STATS_CACHE_SECONDS } from './routes/catalogueData.js';

/**
 * Types of the GraphQL response cache that may be kept, and for how long: the roll-up behind
 * /api/stats, as long as that path keeps it (SPEC §8). Keys and positions are private, and the rest of
 * the catalogue is live.
 */
const CACHEABLE_TYPES: Record<string, number> = {
  Stats: STATS_CACHE_SECONDS * 1000,
  StatsTotals: STATS_CACHE_SECONDS * 1000,
  ChainStats: STATS_CACHE_SECONDS * 1000,
  PairStats: STATS_CACHE_SECONDS * 1000,
};

/**
 * A TTL for every object type of the schema: the plugin takes the smallest TTL among the types of a
 * result and ignores types it has none for, so each type outside CACHEABLE_TYPES is listed with 0 and
 * a result that holds any of them is not cached.
 */
export function cacheTtlPerType(schema: GraphQLSchema): Record<string, number> {
  const ttls: Record<string, number> = {};
  // Root types are in every result: their fields' types decide.
  const roots = new Set([schema.getQueryType()?.name, schema.getMutationType()?.name]);
  for (const type of Object.values(schema.getTypeMap())) {
    if (isObjectType(type) && !type.name.startsWith('__') && !roots.has(type.name))
      ttls[type.name] = CACHEABLE_TYPES[type.name] ?? 0;
  }
  // The roll-up's age is computed when asked.
  ttls['Stats.freshnessSeconds'] = 0;
  return ttls;
}

/** An ApiError thrown by a resolver keeps its code and HTTP status through GraphQL. */
export function maskError(error: unknown, message: string): Error {
  const original = error instanceof GraphQLError ? error.originalError : error;
  if (isApiError(original)) return new GraphQLError(original.message, { extensions: toExtensions(original) });
  // graphql-js's own errors pass as they are; a variable of the wrong type (`$limit: 1e308`) wraps the
  // scalar's GraphQLError and was masked as a 500.
  if (error instanceof GraphQLError && (!error.originalError || error.originalError instanceof GraphQLError))
    return error;
  return new GraphQLError(message, {
    extensions: { code: 'INTERNAL', http: { status: 500 }, retryable: true },
  });
}

type ServerContext = { req: Request; res: Response };

/**
 * A document nested deeper than the parser's stack (`{ a { a { … 2000 levels`) threw a RangeError,
 * masked as a 500: it is the client's syntax error, as any other parse failure. graphql-armor's token
 * limit (registered before, so its parser is the one wrapped here) stops most such documents first;
 * its refusal becomes a limit refusal (400, see limitRefusalsAre400).
 */
const parseLimitsAre400: Plugin = {
  onParse({ parseFn, setParseFn }) {
    setParseFn((source, options) => {
      try {
        return parseFn(source, options);
      } catch (error) {
        if (!(error instanceof RangeError)) throw error;
        throw new GraphQLError('Syntax Error: the document is nested too deeply.', {
          extensions: { code: 'GRAPHQL_PARSE_FAILED' },
        });
      }
    });
    return ({ result, replaceParseResult }) => {
      if (result instanceof GraphQLError && /^Syntax Error: Token limit/.test(result.message)) {
        replaceParseResult(
          limitRefusal(result.message.replace(/^Syntax Error: /, ''), 'GRAPHQL_PARSE_FAILED'),
        );
      }
    };
  },
};

/** The analytics token runs queries only: a mutation is refused before it runs (403 FORBIDDEN). */
const queriesOnlyForAnalytics: Plugin<GraphQLContext> = {
  onExecute({ args, setResultAndStopExecution }) {
    if (args.contextValue.role !== 'analytics') return;
    const operation = getOperationAST(args.document, args.operationName ?? undefined);
    if (operation?.operation === 'query') return;
    const error = new ApiError('FORBIDDEN', 'The analytics token runs queries only.');
    setResultAndStopExecution({
      errors: [new GraphQLError(error.message, { extensions: toExtensions(error) })],
    });
  },
};

export function createGraphqlServer(services: Services, schema: GraphQLSchema) {
  // Every /graphql operation reads and writes through the analytics pool (small, statement timeout):
  // the resolvers and loaders take the db from the context's services. One object for the server's
  // life, as the per-services caches (pilot, tokens, list batchers) key on it.
  const analytics: Services = { ...services, db: services.analyticsDb ?? services.db };
  const ttls = cacheTtlPerType(schema);
  const cacheable = cacheableDocument(schema, ttls);
  return createYoga<ServerContext, GraphQLContext>({
    schema,
    graphqlEndpoint: '/graphql',
    graphiql: false,
    landingPage: false,
    logging: false,
    maskedErrors: { maskError },
    context: ({ res }) =>
      createContext(analytics, String(res.locals.requestId ?? ''), {
        role: (res.locals.graphqlRole as GraphQLRole | undefined) ?? 'analytics',
      }),
    plugins: [
      armorPlugin(),
      parseLimitsAre400,
      limitRefusalsAre400,
      listCostPlugin(),
      queriesOnlyForAnalytics,
      useResponseCache({
        session: () => null,
        ttl: 0,
        ttlPerSchemaCoordinate: ttls,
        // Only for a document whose result it could keep (the walk over the result costs the others).
        enabled: (_request, context) => cacheable((context as { params?: { query?: string } }).params?.query),
        // The cached types (the roll-up's) change with time, never through a mutation.
        invalidateViaMutation: false,
        includeExtensionMetadata: true,
        cache: services.redis
          ? createPrefixedRedisCache(services.redis, services.config.redisPrefix)
          : createInMemoryCache(),
      }),
    ],
  });
}

/** Constant-time, whatever the lengths: the digests are compared, never the strings. */
function sameSecret(a: string, b: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(a), digest(b));
}

/**
 * /graphql is internal: `Authorization: Bearer <INTERNAL_TOKEN>` administers (every query and
 * mutation, keys included), `Bearer <ANALYTICS_TOKEN>` (when configured) runs queries without key
 * data. Both compared in constant time; anything else is the same 401.
 */
export function internalAuth(services: Services): RequestHandler {
  const { internalToken, analyticsToken } = services.config;
  return (req, res, next) => {
    const header = req.headers.authorization ?? '';
    const token = header.startsWith('Bearer ') ? header.slice(7) : '';
    const admin = token !== '' && sameSecret(token, internalToken);
    const analytics = token !== '' && analyticsToken !== undefined && sameSecret(token, analyticsToken);
    if (admin || analytics) {
      res.locals.graphqlRole = (admin ? 'admin' : 'analytics') satisfies GraphQLRole;
      return next();
    }
    sendError(
      res,
      new ApiError('UNAUTHORIZED', 'A valid internal token is required.'),
      services.config.docsUrl,
    );
  };
}

/**
 * The body of a /graphql request is bounded as the REST bodies are (BODY_LIMIT_BYTES), before yoga reads
 * any of it: yoga parsed a 20 MB variables body (940 ms, +120 MB) for any holder of a token. The bound
 * is read from Content-Length, so a body without one (chunked) is refused: every GraphQL client sends it.
 */
export function bodyBound(services: Services): RequestHandler {
  const limit = services.config.bodyLimitBytes;
  return (req, res, next) => {
    if (req.method === 'GET' || req.method === 'HEAD' || req.method === 'OPTIONS') return next();
    const length = Number(req.headers['content-length'] ?? Number.NaN);
    if (Number.isInteger(length) && length <= limit) return next();
    // The rest of a body refused unread is not waited for: the connection closes after the answer.
    res.setHeader('Connection', 'close');
    sendError(
      res,
      new ApiError(
        'BAD_REQUEST',
        Number.isInteger(length)
          ? `The body is larger than the service accepts (${limit} bytes).`
          : 'The body must come with a Content-Length.',
      ),
      services.config.docsUrl,
    );
  };
}

/** What runs before yoga on /graphql: the token, the body's bound, then the bound on concurrent operations. */
export function graphqlGuard(services: Services): RequestHandler[] {
  const analyticsGate = concurrencyGate(services.config.docsUrl, ANALYTICS_CONCURRENCY);
  const analyticsTurn: RequestHandler = (req, res, next) =>
    res.locals.graphqlRole === 'analytics' ? analyticsGate(req, res, next) : next();
  return [
    internalAuth(services),
    bodyBound(services),
    analyticsTurn,
    concurrencyGate(services.config.docsUrl),
  ];
}
