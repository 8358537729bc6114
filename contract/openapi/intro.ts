/** The document's `info.description`: what the API is, its conventions, authentication, limits and errors. */

import { BUCKET_LIMITS, WINDOW_SECONDS } from '../../lib/buckets.js';
import { ERROR_CODE_LIST, ERROR_CODES } from '../../lib/errors.js';
import { ERROR_DOCS } from '../schemas/common.js';
import type { OpenApiOptions } from './types.js';

export function describeApi(options: OpenApiOptions): string {
  const buckets = Object.entries(BUCKET_LIMITS)
    .map(([bucket, limit]) => `| \`${bucket}\` | ${limit} | ${WINDOW_SECONDS} s |`)
    .join('\n');
  const errors = ERROR_CODE_LIST.map(
    (c) =>
      `| [\`${c}\`](${options.docsUrl}/errors/${c}) | ${ERROR_CODES[c].status} | ${ERROR_CODES[c].retryable ? 'yes' : 'no'} | ${ERROR_DOCS[c].title} |`,
  ).join('\n');
  return `A public, read-first API over a live catalogue of 1inch Aqua liquidity positions (strategies running SwapVM programs). Anyone reads totals, lists, details and quotes without a key; with a key an integrator prepares the **unsigned** transactions that open a position (their own wallet signs and broadcasts them) and tracks it as it ships and fills. The service never signs, never broadcasts and never holds funds.

## Conventions

- Every response carries \`X-Request-Id\`; the same value is \`meta.requestId\` or \`error.requestId\`.
- Every rate-limited path answers, on success and on failure, \`RateLimit-Limit\`, \`RateLimit-Remaining\`, \`RateLimit-Reset\` and \`RateLimit-Policy\` (\`<bucket>;w=<seconds>;limit=<n>\`); a 429 also carries \`Retry-After\` (seconds).
- Success bodies are \`{ data, meta }\` (the badge excepted: it is the shields.io schema). Money in read models is USD numbers; on-chain amounts are integer strings in base units, with \`decimals\` where a token is described.
- Every error is one envelope: \`{ error: { code, message, requestId, retryable, documentation, parameter?, issues? } }\`. Branch on \`code\`, never on the message; each operation lists, per status, the closed set of codes it can answer with.
- A query parameter an operation does not take (a misspelt \`chian=base\`) is 400 \`INVALID_PARAMETER\` naming it, never silently ignored: an ignored filter would answer for everything it meant to narrow. A chain key is matched in any case; one the live catalogue does not list is 422 \`UNSUPPORTED_CHAIN\` on every path that takes a chain.
- Additive changes (new fields, endpoints, enum values, error codes) may appear at any time: ignore what you do not recognise. Breaking changes ship under a new path version with at least 90 days' notice.

## Authentication

Reads need no key. \`POST /v1/positions\` and \`GET /v1/positions/{positionId}\` need \`Authorization: Bearer <API_KEY>\`: \`svc_live_<keyId>_<secret>\` for live chains, \`svc_test_<keyId>_<secret>\` for test networks. Keys are issued by the operator after a review, are scoped (\`prepare\`), may be restricted to origins, and are revocable. Hold a key server-side only.

## Rate limits (fixed ${WINDOW_SECONDS} s windows)

Read buckets count per client (more keys do not raise them); the prepare and write buckets count per key (6 unless agreed otherwise for the key); the headers are authoritative.

| bucket | limit | window |
|---|---|---|
${buckets}

## Errors

| code | HTTP | retryable | |
|---|---|---|---|
${errors}

Interactive documentation: [/docs](${options.publicUrl}/docs). Guides (the integrator guide, operations, performance): [/docs/guides](${options.publicUrl}/docs/guides).`;
}
