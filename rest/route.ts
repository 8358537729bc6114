import type { Request, Response } from 'express';
import type { Services } from '../lib/services.js';
import type { AuthenticatedKey } from '../resolvers/apiKeys.js';
import type { GraphQLContext } from '../schema/context.js';
import type { Bucket } from './buckets.js';
import type { PersistedOperations } from './execute.js';

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
  headers?: Record<string, string>;
}

export interface RestRoute {
  method: 'GET' | 'POST';
  /** An express 5 path, e.g. `/api/stats` or `/v1/positions/:positionId`. */
  path: string;
  bucket: Bucket;
  /** A limit other than the bucket's for this path alone (the conventions bench mounts one). */
  limit?: number;
  /** Key-protected paths: the scope needed (null: any valid key); their bucket counts per key. */
  auth?: { scope: string | null };
  /** POST bodies: JSON, bounded by BODY_LIMIT_BYTES. */
  body?: boolean;
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
