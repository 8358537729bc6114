import type { Request, Response } from 'express';
import type { z } from 'zod';
import type { DocumentedRoute } from '../contract/openapi/types.js';
import { ApiError } from '../lib/errors.js';
import type { Services } from '../lib/services.js';
import type { AuthenticatedKey } from '../resolvers/apiKeys.js';
import type { GraphQLContext } from '../resolvers/context.js';
import type { PersistedOperations } from './execute.js';
import { readValue, requiredValue } from './queryValues.js';

/** What a REST handler gets: the HTTP request, the services and a way to run persisted operations. */
export interface RouteContext {
  req: Request;
  res: Response;
  services: Services;
  requestId: string;
  operations: PersistedOperations;
  /** The caller's key on /v1 paths. */
  apiKey: AuthenticatedKey | null;
  /** A fresh GraphQL context for this request (new DataLoaders each call). */
  graphql(extra?: { idempotencyKey?: string | null }): GraphQLContext;
}

export interface RouteResult {
  status?: number;
  /** A JSON value, or an already serialised JSON string. */
  body: unknown;
  /**
   * The cached JSON text of `data` when `body` is the string `{"data":<it>,"meta":…}` built around it
   * (serialisedReadBody): its ETag and compressed bytes are then memoized with it (rest/httpCache.ts).
   */
  cachedData?: string;
  /**
   * A text that determines the body's `data` exactly and is much shorter than it (a list page: its
   * entries by their digests): the ETag is the SHA-1 of this instead of `data` (rest/httpCache.ts).
   */
  identity?: string;
  headers?: Record<string, string>;
  /** The handler wrote the response itself (a streamed body): nothing more is sent. */
  streamed?: boolean;
}

/** A documented route (contract/openapi/types.ts) and what answers it. */
export interface RestRoute extends DocumentedRoute {
  /** A limit other than the bucket's for this path alone (the conventions bench mounts one). */
  limit?: number;
  handle(ctx: RouteContext): Promise<RouteResult>;
}

/** `{ data, meta }` of SPEC §1.4 with the meta every read carries. */
export function readBody<T>(
  ctx: RouteContext,
  data: T,
  meta: { freshnessSeconds?: number | null; cached?: boolean; [extra: string]: unknown } = {},
): { data: T; meta: Record<string, unknown> } {
  return {
    data,
    meta: {
      requestId: ctx.requestId,
      generatedAt: new Date().toISOString(),
      apiVersion: 'v1',
      freshnessSeconds: meta.freshnessSeconds ?? null,
      cached: meta.cached ?? false,
      ...meta,
    },
  };
}

/**
 * The query parameter `name`, validated by its schema in `schemas`: a missing optional one is
 * undefined; a missing required one or a value its schema refuses is a 400 naming it.
 */
export function queryParam<S extends Record<string, z.ZodType>, K extends keyof S & string>(
  ctx: RouteContext,
  schemas: S,
  name: K,
  required = false,
): z.infer<S[K]> | undefined {
  const raw = (ctx.req.query as Record<string, unknown>)[name];
  return readValue(name, schemas[name]!, raw, required ? requiredValue(name) : () => undefined) as
    | z.infer<S[K]>
    | undefined;
}

/**
 * The check for a query parameter the route does not take (`chian=base`), as a 400 naming it: silently
 * ignored, a misspelt filter would answer for everything it meant to narrow. The route's documented
 * query is the list of what it takes, so the document and the check cannot disagree. Built once per
 * route when the app is mounted; a request only looks its parameters up.
 */
export function strayQueryCheck(route: RestRoute): (query: unknown) => ApiError | null {
  if (!route.doc) return () => null;
  const names = Object.keys(route.doc.query?.shape ?? {});
  const takes = new Set(names);
  const path = `${route.method} ${route.path.replace(/:(\w+)/g, '{$1}')}`;
  const offer = names.length === 0 ? 'it takes no query parameters' : `it takes ${names.join(', ')}`;
  return (query) => {
    if (typeof query !== 'object' || query === null) return null;
    for (const stray of Object.keys(query)) {
      if (takes.has(stray)) continue;
      const name = stray.length > 64 ? `${stray.slice(0, 64)}…` : stray;
      return ApiError.invalid(name, `${name} is not a parameter of ${path}: ${offer}.`);
    }
    return null;
  };
}
