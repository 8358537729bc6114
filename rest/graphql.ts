import { timingSafeEqual } from 'node:crypto';
import { createRedisCache } from '@envelop/response-cache-redis';
import { createInMemoryCache, useResponseCache } from '@graphql-yoga/plugin-response-cache';
import type { Request, RequestHandler, Response } from 'express';
import type { GraphQLSchema } from 'graphql';
import { GraphQLError, isObjectType } from 'graphql';
import { createYoga, type Plugin } from 'graphql-yoga';
import { ApiError, isApiError, toExtensions } from '../lib/errors.js';
import { missOnFailure } from '../lib/redisBreaker.js';
import type { Services } from '../lib/services.js';
import { createContext, type GraphQLContext } from '../schema/context.js';
import { sendError } from './envelope.js';
import { STATS_CACHE_SECONDS } from './routes/catalogue.js';

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

/** Tokens of a /graphql document: bounds the parser's time and recursion depth. */
export const MAX_DOCUMENT_TOKENS = 5_000;

/**
 * A document nested deeper than the parser's stack (`{ a { a { … 2000 levels`) threw a RangeError,
 * masked as a 500: it is the client's syntax error, as any other parse failure.
 */
const boundedParser: Plugin = {
  onParse({ parseFn, setParseFn }) {
    setParseFn((source, options) => {
      try {
        return parseFn(source, { ...options, maxTokens: MAX_DOCUMENT_TOKENS });
      } catch (error) {
        if (!(error instanceof RangeError)) throw error;
        throw new GraphQLError('Syntax Error: the document is nested too deeply.', {
          extensions: { code: 'GRAPHQL_PARSE_FAILED' },
        });
      }
    });
  },
};

export function createGraphqlServer(services: Services, schema: GraphQLSchema) {
  return createYoga<ServerContext, GraphQLContext>({
    schema,
    graphqlEndpoint: '/graphql',
    graphiql: false,
    landingPage: false,
    logging: false,
    maskedErrors: { maskError },
    context: ({ res }) => createContext(services, String(res.locals.requestId ?? '')),
    plugins: [
      boundedParser,
      useResponseCache({
        session: () => null,
        ttl: 0,
        ttlPerSchemaCoordinate: cacheTtlPerType(schema),
        includeExtensionMetadata: true,
        cache: services.redis
          ? createRedisCache({ redis: missOnFailure(services.redis) })
          : createInMemoryCache(),
      }),
    ],
  });
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** /graphql is internal: only `Authorization: Bearer <INTERNAL_TOKEN>` passes. */
export function internalAuth(services: Services): RequestHandler {
  return (req, res, next) => {
    const header = req.headers.authorization ?? '';
    const token = header.startsWith('Bearer ') ? header.slice(7) : '';
    if (token && sameSecret(token, services.config.internalToken)) return next();
    sendError(
      res,
      new ApiError('UNAUTHORIZED', 'A valid internal token is required.'),
      services.config.docsUrl,
    );
  };
}
