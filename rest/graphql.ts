import { timingSafeEqual } from 'node:crypto';
import { createRedisCache } from '@envelop/response-cache-redis';
import { createInMemoryCache, useResponseCache } from '@graphql-yoga/plugin-response-cache';
import type { Request, RequestHandler, Response } from 'express';
import type { GraphQLSchema } from 'graphql';
import { GraphQLError } from 'graphql';
import { createYoga, type Plugin } from 'graphql-yoga';
import { ApiError, isApiError, toExtensions } from '../lib/errors.js';
import type { Services } from '../lib/services.js';
import { createContext, type GraphQLContext } from '../schema/context.js';
import { sendError } from './envelope.js';

/**
 * TTLs of the GraphQL response cache, per type. Anything not listed is not cached: keys and positions
 * are private, and catalogue data must never outlive the roll-up it comes from.
 */
export const CACHE_TTL_PER_TYPE: Record<string, number> = {};

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
        ttlPerSchemaCoordinate: CACHE_TTL_PER_TYPE,
        includeExtensionMetadata: true,
        cache: services.redis ? createRedisCache({ redis: services.redis }) : createInMemoryCache(),
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
