/** The shapes of the generated OpenAPI document and of what builds it (contract/openapi.ts). */
import type { z } from 'zod';
import type { Bucket } from '../../lib/buckets.js';
import type { Response } from './responses.js';
import type { JsonSchema } from './schemaSet.js';

export type OpenApiDocument = Record<string, unknown> & {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, JsonSchema>; [section: string]: unknown };
};
export interface Operation {
  operationId: string;
  responses: Record<string, Response>;
  [field: string]: unknown;
}

export interface OpenApiOptions {
  /** PUBLIC_URL: the one server of the document. */
  publicUrl: string;
  /** DOCS_URL: base of the error documentation links. */
  docsUrl: string;
  /** The service's version (package.json). */
  version?: string;
}

/** What the document takes of a REST route (rest/route.ts `RestRoute`, which adds its handler). */
export interface DocumentedRoute {
  method: 'GET' | 'POST' | 'DELETE';
  /** An express 5 path, e.g. `/api/stats` or `/v1/positions/:positionId`. */
  path: string;
  bucket: Bucket;
  /** Key-protected paths: the scope needed (null: any valid key); their bucket counts per key. */
  auth?: { scope: string | null };
  /** POST bodies: JSON, bounded by BODY_LIMIT_BYTES. */
  body?: boolean;
  /** The published contract of the path; every route of `routes` has one (openapi:check). */
  doc?: RouteDoc;
}

/**
 * What the published document (contract/openapi.ts) takes from the route itself: its identity, the zod
 * objects it validates with (so the document cannot drift from the code) and the bounds its prose
 * quotes. Everything said of it in words (summary, tag, description, parameters, errors, examples) is
 * its section of docs/api/<tag>.md (contract/openapi/descriptions.ts). What the conventions add is derived
 * from the route: the bearer scheme and 401/403 from `auth`, 400 BAD_REQUEST from `body`, and on every
 * route 405, 429, 500 and the X-Request-Id and RateLimit-* headers.
 */
export interface RouteDoc {
  /** Unique, URL-safe, e.g. `getStats`: its section of docs/api is `## getStats: <summary>`. */
  operationId: string;
  /** The values of the `{{NAME}}` placeholders of its section: the bounds it enforces. */
  descriptionValues?: Record<string, string | number>;
  /** Query parameters: one per property. */
  query?: z.ZodObject;
  /** Path parameters: one per `:name` of `path`. */
  params?: z.ZodObject;
  /** Request headers the route reads (Authorization comes from `auth`). */
  headers?: z.ZodObject;
  /** The JSON request body. */
  body?: z.ZodType;
  /** The 200 body. */
  response: z.ZodType;
  /** A 200 that is not JSON (a streamed export): its media types and what each carries, instead of `response`. */
  responseTypes?: Record<string, z.ZodType>;
  /** Headers of the 200 response beyond the conventions' ones. */
  responseHeaders?: Record<string, { schema?: z.ZodType }>;
}
