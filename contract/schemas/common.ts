import { z } from 'zod';
import { BUCKET_LIMITS, WINDOW_SECONDS } from '../../lib/buckets.js';
import { ERROR_CODE_LIST, ERROR_CODES, type ErrorCode } from '../../lib/errors.js';

/**
 * The building blocks of the published contract (contract/openapi.ts): zod schemas of the documented
 * bodies. The schemas registered with `component()` become `components.schemas` of the OpenAPI document,
 * under their id; the e2e suites validate live responses against that document, so a body that
 * drifts from these schemas fails a test.
 */
export const COMPONENTS = new Map<string, z.ZodType>();

/** Registers a schema as a named component of the document and returns it. */
/** The component name a schema was registered under (for a discriminator's mapping). */
export function componentName(schema: z.ZodType): string {
  for (const [id, registered] of COMPONENTS) if (registered === schema) return id;
  throw new Error('not a component of the contract');
}

export function component<T extends z.ZodType>(id: string, schema: T): T {
  const existing = COMPONENTS.get(id);
  if (existing && existing !== schema) throw new Error(`two schemas named ${id} in the contract`);
  COMPONENTS.set(id, schema);
  return schema;
}

export const dateTime = z.string().meta({ format: 'date-time', examples: ['2026-11-22T19:04:05.123Z'] });
export const address = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/)
  .meta({ examples: ['0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'] });
export const hash32 = z
  .string()
  .regex(/^0x[0-9a-fA-F]{64}$/)
  .meta({ examples: ['0x5f1c3a0e1b6b0f7f2d86d8e3d1c2a0f9c3b4e5d6a7b8c9d0e1f2a3b4c5d6e7f8'] });
/** On-chain amounts: integer strings of base units. */
export const baseUnits = z
  .string()
  .regex(/^[0-9]+$/)
  .meta({ description: 'Integer string in base units.', examples: ['1000000'] });
export const uuid = z.string().meta({ format: 'uuid' });
/** The caller's valid X-Request-Id (rest/conventions.ts), else a UUID the service made. */
export const requestIdValue = z
  .string()
  .regex(/^[\x21\x23-\x5b\x5d-\x7e]{1,128}$/)
  .meta({ examples: ['3f0b6c1e-9a52-4d7e-8c1a-2b5e6f7a8d90'] });
/** A webhook endpoint's id and a delivery's (resolvers/webhooks). */
export const webhookIdValue = z
  .string()
  .regex(/^wh_[A-Za-z0-9]{24}$/)
  .meta({ examples: ['wh_3fK9qLm2Xv8RtY1bN6cZpA0d'] });
export const deliveryIdValue = z
  .string()
  .regex(/^msg_[0-9a-f]{32}$/)
  .meta({ examples: ['msg_6c1d0f2a9b8e4c7d8f0a1b2c3d4e5f60'] });
export const usd = z.number().meta({ description: 'US dollars.' });
export const count = z.int().min(0);

/** The `page` of a keyset-paged body: its size and where the next page starts (`nextCursor`, as said). */
export const pageSchema = (nextCursor: string) =>
  z.object({ limit: z.int().min(1), nextCursor: z.string().nullable().meta({ description: nextCursor }) });

// ---------------------------------------------------------------------------------------------------
// meta

export const meta = component(
  'Meta',
  z
    .object({
      requestId: requestIdValue.meta({ description: 'Same value as the X-Request-Id header.' }),
      generatedAt: dateTime,
      apiVersion: z.literal('v1'),
      freshnessSeconds: count.nullable().optional().meta({
        description: 'Age in seconds of the underlying roll-up; null when the body is not derived from one.',
      }),
      cached: z
        .boolean()
        .optional()
        .meta({ description: 'True when served from the short-lived response cache.' }),
    })
    .meta({ description: 'Member of every `{ data, meta }` body.' }),
);

/** `{ data, meta }` of SPEC §1.4. */
export function readBody<T extends z.ZodType>(data: T, metaSchema: z.ZodType = meta) {
  return z.object({ data, meta: metaSchema });
}

// ---------------------------------------------------------------------------------------------------
// The error envelope (SPEC §7, lib/errors.ts, rest/envelope.ts)

/** What each code means and what a client should do about it: the /docs/errors pages too. */
export interface ErrorDoc {
  title: string;
  meaning: string;
  action: string;
  /** An envelope's message (and parameter, issues) as the service words them, for the examples. */
  example: ErrorExample;
}

export interface ErrorExample {
  message: string;
  parameter?: string;
  issues?: { type: string; expected?: string; actual?: string }[];
}

export const ERROR_DOCS: Record<ErrorCode, ErrorDoc> = {
  BAD_REQUEST: {
    title: 'Bad request',
    meaning:
      'The request could not be parsed: the body is not JSON, is sent without `Content-Type: application/json`, is larger than the service accepts, or could not be read.',
    action:
      'Fix the request (send a JSON object with the JSON content type) before sending it again. Do not retry it unchanged.',
    example: { message: 'The body is not valid JSON.' },
  },
  INVALID_PARAMETER: {
    title: 'Invalid parameter',
    meaning:
      'A parameter (query, path, header or body field) is missing, malformed or out of range. `error.parameter` names it, e.g. `metric`, `deposits[1].amount` or `Idempotency-Key`. A query parameter the operation does not take is refused too, named as sent.',
    action:
      'Correct the parameter that `error.parameter` names, using the documented type and range. Do not retry it unchanged.',
    example: { message: 'limit must be an integer from 1 to 100.', parameter: 'limit' },
  },
  UNAUTHORIZED: {
    title: 'Unauthorized',
    meaning:
      'A key-protected path (`/v1/…`) was called without a valid key. A missing, malformed, revoked or unknown key all give the same answer, deliberately.',
    action:
      'Send `Authorization: Bearer <API_KEY>` with a current key (`svc_live_…` or `svc_test_…`). If the key was revoked, ask the operator for a new one.',
    example: { message: 'A valid API key is required: Authorization: Bearer <API_KEY>.' },
  },
  FORBIDDEN: {
    title: 'Forbidden',
    meaning:
      'The key is valid but not allowed to do this: it lacks the scope (`prepare`), the request comes from an Origin the key does not list, a test key names a live chain (or a live key a test network), or a demo endpoint was called from outside an operator page.',
    action:
      'Use a key with the needed scope and environment, call from a permitted origin (server-side calls send no Origin), or, for the demo endpoints, call them from the operator page only.',
    example: { message: 'This key does not have the "prepare" scope.' },
  },
  NOT_FOUND: {
    title: 'Not found',
    meaning:
      'No such resource: an unknown path, a strategy the catalogue does not hold, or a position this key did not prepare (a position of another key and a missing one are deliberately indistinguishable).',
    action:
      'Check the path and the identifier. A strategy may appear once indexed; a position is visible only to the key that prepared it.',
    example: { message: 'No position with this id was prepared by this key.' },
  },
  METHOD_NOT_ALLOWED: {
    title: 'Method not allowed',
    meaning:
      'The path exists but does not serve this HTTP method. The `Allow` header lists the methods it serves.',
    action: 'Use one of the methods in the `Allow` header.',
    example: { message: 'POST is not allowed here; use GET.' },
  },
  UNSUPPORTED_CHAIN: {
    title: 'Unsupported chain',
    meaning:
      'The chain named is not in the live catalogue: every path that takes a chain (reads, quote, prepare, lists, analytics) answers this for a key it does not serve, matched in any case. `error.issues[]` carries `expected` (the live chain keys) and `actual` (the value sent).',
    action: 'Use a chain key listed by `GET /api/chains`; never hardcode the list.',
    example: {
      message: 'Chain "polygon" is not supported. Supported chains: base, arc, baseSepolia.',
      parameter: 'chain',
      issues: [{ type: 'UNSUPPORTED_CHAIN', expected: 'base, arc, baseSepolia', actual: 'polygon' }],
    },
  },
  UNPROCESSABLE: {
    title: 'Unprocessable',
    meaning:
      'The request is well-formed but cannot be executed as asked: for example a token the chain does not list, a pair that is not live, a strategy not attached to the verified router (no quote), a simulation the router refuses, or an `Idempotency-Key` reused with a different body.',
    action:
      'Read `error.message` and `error.issues[]` (`expected` / `actual`) and change the request; retrying it unchanged gives the same answer.',
    example: { message: 'Token "WETH" is not supported on chain "base". Supported: USDC, USDT, EURC.' },
  },
  RATE_LIMITED: {
    title: 'Rate limited',
    meaning:
      'The bucket of this path is exhausted for the current window. Read buckets count per client, the prepare and write buckets per key. The `RateLimit-*` headers describe the bucket; `Retry-After` says when it resets.',
    action:
      'Wait `Retry-After` seconds, then retry. Spread calls over the window; splitting one integration across several keys to raise the ceiling breaches the acceptable-use rules: ask the operator for a raised bucket instead.',
    example: { message: 'Rate limit of the stats bucket reached; retry after the window resets.' },
  },
  INTERNAL: {
    title: 'Internal error',
    meaning: 'An unexpected fault. It is logged with the request id.',
    action:
      'Retry after a backoff (exponential, with jitter). If it persists, report `error.requestId` to the operator.',
    example: { message: 'An unexpected error occurred; it has been logged.' },
  },
  UPSTREAM_UNAVAILABLE: {
    title: 'Upstream unavailable',
    meaning: 'A data source (the store or a chain node) is briefly unavailable.',
    action: 'Retry after a backoff (exponential, with jitter).',
    example: { message: 'The data store is briefly unavailable.' },
  },
  UPSTREAM_TIMEOUT: {
    title: 'Upstream timeout',
    meaning: 'A data source (a chain node) did not answer in time.',
    action: 'Retry after a backoff (exponential, with jitter).',
    example: { message: 'The RPC node of base did not answer in time.' },
  },
};

export const errorIssue = component(
  'ErrorIssue',
  z
    .object({
      type: z.string().meta({
        description:
          'What is wrong, e.g. UNSUPPORTED_CHAIN, UNSUPPORTED_TOKEN, INSUFFICIENT_ALLOWANCE, SIMULATION_REVERTED. The set may grow; handle unknown values.',
      }),
      expected: z.string().optional(),
      actual: z.string().optional(),
      spender: z.string().nullable().optional(),
      token: z.string().optional(),
      step: z.int().min(1).optional().meta({
        description:
          'SIMULATION_REVERTED of a prepared bundle (`simulate`): the step that would revert, as `transactions[].step`.',
      }),
      purpose: z.string().optional().meta({
        description: 'With `step`: what that step does (approve, ship, swap, dock).',
      }),
    })
    .meta({ description: 'A structured, client-fixable problem.' }),
);

const errorBody = (codes: readonly ErrorCode[]) => {
  const retryable = [...new Set(codes.map((c) => ERROR_CODES[c].retryable))];
  return z.object({
    code: z.enum(codes as [ErrorCode, ...ErrorCode[]]).meta({
      description: 'Stable and machine-mappable: branch on it, never on the message.',
    }),
    message: z.string().meta({ description: 'Human-readable; may change without notice.' }),
    requestId: requestIdValue.meta({ description: 'Same value as the X-Request-Id header.' }),
    retryable: (retryable.length === 1 ? z.literal(retryable[0]!) : z.boolean()).meta({
      description: 'True when the same request may be retried after a backoff.',
    }),
    documentation: z
      .url()
      .optional()
      .meta({ description: 'The definition of the code: `{DOCS_URL}/errors/{code}`.' }),
    parameter: z.string().optional().meta({
      description: 'The parameter (query, path, header or body field) at fault, when there is one.',
    }),
    issues: z.array(errorIssue).optional(),
  });
};

/**
 * The envelope of every error response, any code: the `Error` component every operation references
 * (contract/openapi.ts narrows `error.code` per status beside the reference).
 */
export const errorEnvelope = component(
  'Error',
  z.object({ error: errorBody(ERROR_CODE_LIST) }).meta({ description: 'The one error envelope.' }),
);

// ---------------------------------------------------------------------------------------------------
// Headers (SPEC §1, §8; rest/conventions.ts)

const BUCKET_NAMES = Object.keys(BUCKET_LIMITS).join('|');

export const HEADERS = {
  'X-Request-Id': {
    description:
      'The request id: the caller\'s own `X-Request-Id` when it is 1-128 visible ASCII characters without `"` or `\\`, else a UUID the service makes. The same value as `meta.requestId` or `error.requestId`; quote it to the operator.',
    schema: requestIdValue,
  },
  'RateLimit-Limit': {
    description: 'Requests allowed in the current window of the bucket.',
    schema: z.int().min(0),
  },
  'RateLimit-Remaining': {
    description: 'Requests remaining in the current window.',
    schema: z.int().min(0),
  },
  'RateLimit-Reset': {
    description: `Seconds until the window resets (windows are fixed, ${WINDOW_SECONDS} s).`,
    schema: z.int().min(0),
  },
  'RateLimit-Policy': {
    description:
      'The bucket, its window and its limit: `<bucket>;w=<seconds>;limit=<n>`, e.g. `stats;w=60;limit=120`. The headers are authoritative and may change before the documentation does.',
    schema: z
      .string()
      .regex(new RegExp(`^(?:${BUCKET_NAMES});w=\\d+;limit=\\d+$`))
      .meta({ examples: ['stats;w=60;limit=120'] }),
  },
  'Retry-After': {
    description: 'Seconds to wait before retrying (429 only).',
    schema: z.int().min(0),
  },
  Allow: {
    description: 'The methods the path serves (405 only).',
    schema: z.string().meta({ examples: ['GET, HEAD'] }),
  },
} as const;

export type HeaderName = keyof typeof HEADERS;
