/**
 * The oracle: which statuses and codes each endpoint may answer, and whether an answer is right (a valid
 * success body, or the SPEC §7 envelope; no 5xx, no leaked stack, no injected header).
 */
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { ERROR_CODES, type ErrorCode } from '../../../lib/errors.js';
import { WALLET_PATTERN } from '../../../resolvers/positions/request.js';
import type { RawResponse } from '../../helpers/rawHttp.js';
import type { Endpoint } from './config.js';
import type { Case } from './request.js';

/**
 * What each endpoint may answer: SPEC §4 lists, plus what the conventions add to every path (405 for a
 * wrong method, 429, and 400 BAD_REQUEST for a request that cannot be parsed at all). Where the code
 * answers more than SPEC's list (the facade's parameter validation on strategies, strategy-detail and
 * badge; 404 for an unknown hash) it is marked: those are reported to the lead as SPEC gaps.
 * 503/504 are not allowed: every upstream is up in this suite.
 */
export const BASE: Record<number, ErrorCode[]> = {
  400: ['BAD_REQUEST'],
  405: ['METHOD_NOT_ALLOWED'],
  429: ['RATE_LIMITED'],
};
export const INVALID: Record<number, ErrorCode[]> = { 400: ['BAD_REQUEST', 'INVALID_PARAMETER'] };
export const ALLOWED: Record<Endpoint, Record<number, ErrorCode[]>> = {
  // Every path refuses a query parameter it does not take: 400 INVALID_PARAMETER naming it.
  stats: { 200: [], ...BASE, ...INVALID },
  chains: { 200: [], ...BASE, ...INVALID },
  // SPEC §4.3 lists 405, 429 (and 500); 400, 404 (resource=detail) and 422 (a chain not served) are the route's.
  strategies: { 200: [], ...BASE, ...INVALID, 404: ['NOT_FOUND'], 422: ['UNSUPPORTED_CHAIN'] },
  // SPEC §4.5 lists 429 only; 400 (hash missing or malformed), 404 (unknown) and 422 (a chain not served) are the route's.
  'strategy-detail': { 200: [], ...BASE, ...INVALID, 404: ['NOT_FOUND'], 422: ['UNSUPPORTED_CHAIN'] },
  // SPEC §4.4: 400, 422, 429; 404 (no such strategy) is the resolver's.
  quote: {
    200: [],
    ...BASE,
    ...INVALID,
    404: ['NOT_FOUND'],
    422: ['UNPROCESSABLE', 'UNSUPPORTED_CHAIN'],
  },
  // SPEC §4.6 lists no error; 400 (unknown metric) is the route's.
  badge: { 200: [], ...BASE, ...INVALID },
  pilot: { 200: [], ...BASE, ...INVALID, 403: ['FORBIDDEN'] },
  balances: { 200: [], ...BASE, ...INVALID, 403: ['FORBIDDEN'] },
  prepare: {
    200: [],
    ...BASE,
    ...INVALID,
    401: ['UNAUTHORIZED'],
    403: ['FORBIDDEN'],
    422: ['UNPROCESSABLE', 'UNSUPPORTED_CHAIN'],
  },
  // SPEC §4.10: 400, 401, 404, 429; 403 for a key's non-permitted origin is §5.7's.
  position: {
    200: [],
    ...BASE,
    ...INVALID,
    401: ['UNAUTHORIZED'],
    403: ['FORBIDDEN'],
    404: ['NOT_FOUND'],
  },
  // /graphql without the internal token: 401 envelope (DESIGN.md), before anything is read.
  graphql: { 400: ['BAD_REQUEST'], 401: ['UNAUTHORIZED'], 405: ['METHOD_NOT_ALLOWED'] },
  unknown: { 400: ['BAD_REQUEST'], 404: ['NOT_FOUND'], 405: ['METHOD_NOT_ALLOWED'], 429: ['RATE_LIMITED'] },
};
/** With the internal token, /graphql answers as GraphQL over HTTP (yoga): never a 5xx. */
export const GRAPHQL_AUTHED = new Set([200, 204, 400, 401, 403, 404, 405, 406, 415, 422]);

const STACK = /\n\s+at .+:\d+:\d+|node_modules|\/work\/|ECONNREFUSED/;
/** The reads with an ETag, which answer If-None-Match with 304. */
const REVALIDATED = new Set<Endpoint>(['stats', 'chains', 'strategies', 'strategy-detail', 'badge']);

function decoded(res: RawResponse): Buffer {
  const encoding = res.headers['content-encoding'];
  if (encoding === 'gzip') return gunzipSync(res.body);
  if (encoding === 'br') return brotliDecompressSync(res.body);
  return res.body;
}

/** The endpoints that answer a CORS preflight (the demo endpoints do not: 405). */
const PREFLIGHT = new Set<Endpoint>([
  'stats',
  'chains',
  'strategies',
  'strategy-detail',
  'quote',
  'badge',
  'prepare',
  'position',
]);
const RATE_HEADERS = ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'ratelimit-policy'];

/**
 * Why `res` is not a right answer to `c`, or null. The positions of the 200 prepares go into
 * `preparedIds` (to compare with the store afterwards).
 */
export function check(c: Case, res: RawResponse, preparedIds: Set<string>): string | null {
  if (res.empty) return 'the server closed the socket without an answer';
  if (res.status >= 500) return `a ${res.status}`;
  const requestId = res.headers['x-request-id'];
  if (!requestId) return 'no X-Request-Id';
  if (res.headers['x-injected'] !== undefined || res.headers['set-cookie'] !== undefined)
    return 'an injected header came back';
  // Bodies over the threshold come compressed when Accept-Encoding asks (COMPRESSION).
  let text: string;
  try {
    text = decoded(res).toString('utf8');
  } catch {
    return `a body that is not valid ${res.headers['content-encoding']}`;
  }
  if (STACK.test(text)) return 'a stack trace or a path leaked';
  const head = c.request.method === 'HEAD';
  // If-None-Match: * on a read with an ETag (rest/httpCache.ts) is a 304: no body, the tag.
  if (res.status === 304 && REVALIDATED.has(c.endpoint)) {
    const asked = c.request.headers?.some(([k]) => k.toLowerCase() === 'if-none-match');
    if (!asked) return 'a 304 without If-None-Match';
    if (res.body.length > 0) return 'a 304 with a body';
    if (!/^"[\w-]+"$/.test(res.headers.etag ?? '')) return 'a 304 without a strong ETag';
    return null;
  }

  if (c.endpoint === 'graphql' && c.internal) {
    if (!GRAPHQL_AUTHED.has(res.status)) return `status ${res.status} is not GraphQL over HTTP`;
    if (text === '' || head) return null;
    try {
      const body = JSON.parse(text) as { errors?: { extensions?: { code?: string } }[] };
      if (body.errors?.some((e) => e.extensions?.code === 'INTERNAL')) return 'an INTERNAL GraphQL error';
    } catch {
      return 'a body that is not JSON';
    }
    return null;
  }

  // A CORS preflight (rest/cors.ts): an OPTIONS to a public read or a /v1 path is a 204 after the bucket.
  if (c.request.method === 'OPTIONS' && res.status === 204 && PREFLIGHT.has(c.endpoint)) {
    if (res.body.length > 0) return 'a 204 with a body';
    if (!res.headers['access-control-allow-methods'])
      return 'a preflight without Access-Control-Allow-Methods';
    if (RATE_HEADERS.some((h) => res.headers[h] === undefined)) return 'no RateLimit-* headers';
    return null;
  }
  const allowed = ALLOWED[c.endpoint];
  const codes = allowed[res.status];
  if (codes === undefined) return `status ${res.status} is not documented for ${c.endpoint}`;
  if (!/^application\/json\b/.test(res.headers['content-type'] ?? '')) return 'not application/json';
  if (res.status === 200)
    return head ? null : checkSuccess(c.endpoint, text, requestId, c.request.method, preparedIds);

  // Every error: the envelope.
  if (res.status === 429 && !/^\d+$/.test(res.headers['retry-after'] ?? '')) return '429 without Retry-After';
  if (res.status === 405 && !res.headers.allow) return '405 without Allow';
  if (head) return null;
  let error: Record<string, unknown>;
  try {
    const parsed = JSON.parse(text) as { error?: Record<string, unknown> };
    if (typeof parsed.error !== 'object' || parsed.error === null) return 'no error envelope';
    error = parsed.error;
  } catch {
    return 'an error body that is not JSON';
  }
  const code = error.code as ErrorCode;
  if (!codes.includes(code)) return `code ${String(code)} is not one of ${codes.join('/')} for ${res.status}`;
  if (error.requestId !== requestId) return 'error.requestId differs from X-Request-Id';
  if (error.retryable !== ERROR_CODES[code].retryable) return 'error.retryable is not the table value';
  if (typeof error.message !== 'string' || error.message === '') return 'no error.message';
  // The bucketed paths carry the rate-limit headers on failure too, except a request too broken to reach one.
  const unparsed = (res.status === 400 && code === 'BAD_REQUEST') || c.request.method === 'CONNECT';
  if (c.endpoint !== 'graphql' && !unparsed && RATE_HEADERS.some((h) => res.headers[h] === undefined))
    return 'no RateLimit-* headers';
  return null;
}

function checkSuccess(
  endpoint: Endpoint,
  text: string,
  requestId: string,
  method: string,
  preparedIds: Set<string>,
): string | null {
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return 'a 200 body that is not JSON';
  }
  if (endpoint === 'badge') {
    const extra = Object.keys(body).filter(
      (k) => !['schemaVersion', 'label', 'message', 'color', 'cacheSeconds', 'isError'].includes(k),
    );
    if (
      body.schemaVersion !== 1 ||
      typeof body.label !== 'string' ||
      typeof body.message !== 'string' ||
      extra.length > 0
    )
      return 'not a badge payload';
    return null;
  }
  const meta = body.meta as Record<string, unknown> | undefined;
  const data = body.data as Record<string, unknown> | undefined;
  if (typeof data !== 'object' || data === null || typeof meta !== 'object' || meta === null)
    return 'not { data, meta }';
  if (meta.requestId !== requestId || meta.apiVersion !== 'v1') return 'meta.requestId or apiVersion wrong';
  // A GET of /v1/positions (in any spelling express routes there, and with an empty id) is the key's list.
  if (
    (endpoint === 'prepare' || endpoint === 'position') &&
    method === 'GET' &&
    Array.isArray(data.positions)
  ) {
    const page = data.page as Record<string, unknown> | undefined;
    if (typeof page !== 'object' || page === null || typeof page.limit !== 'number')
      return 'not a position list';
    return (data.positions as Record<string, unknown>[]).every((p) =>
      /^0x[0-9a-f]{64}$/.test(String(p.positionId)),
    )
      ? null
      : 'not a position list';
  }
  if (endpoint === 'prepare') {
    const fee = data.fee as Record<string, unknown>;
    const txs = data.transactions as { purpose: string }[];
    if (
      data.status !== 'prepared' ||
      !/^0x[0-9a-f]{64}$/i.test(String(data.strategyHash)) ||
      !WALLET_PATTERN.test(String(data.wallet)) ||
      fee?.protocolFeeBps !== 5000 ||
      fee?.removable !== false ||
      !Array.isArray(txs) ||
      txs.at(-1)?.purpose !== 'ship'
    )
      return 'not a prepared position';
    preparedIds.add(String(data.strategyHash).toLowerCase());
  }
  if (endpoint === 'position' && !['prepared', 'shipped', 'filled', 'docked'].includes(String(data.status)))
    return 'not a position status';
  return null;
}
