import type express from 'express';
import { operationDocs } from '../contract/openapi/descriptions.js';
import { openApiPath } from '../contract/openapi.js';
import { ERROR_DOCS } from '../contract/schemas/common.js';
import { BUCKET_LIMITS, WINDOW_SECONDS } from '../lib/buckets.js';
import { ERROR_CODE_LIST, ERROR_CODES } from '../lib/errors.js';
import { type Guide, guidePath } from './guides.js';
import type { RestRoute } from './route.js';

/**
 * GET /llms.txt (the llms.txt convention: a Markdown page for language models and the people who
 * prompt them): what the API is, its endpoints (from the routes' own docs), authentication, errors and
 * where the full reference lives. Built once, served from memory outside the buckets.
 */
export function llmsText(
  routes: readonly RestRoute[],
  options: { publicUrl: string; docsUrl: string; guides?: readonly Guide[] },
): string {
  const base = options.publicUrl;
  const endpoints = routes
    .filter((r) => r.doc)
    .map((r) => {
      const auth = r.auth ? ' (API key)' : '';
      const { tag, summary } = operationDocs(r.doc!.operationId, r.doc!.descriptionValues);
      return `- [${r.method} ${openApiPath(r.path)}](${options.docsUrl}#/${encodeURIComponent(tag)}/${r.doc!.operationId})${auth}: ${summary}. Bucket \`${r.bucket}\`.`;
    });
  const buckets = Object.entries(BUCKET_LIMITS).map(([b, n]) => `\`${b}\` ${n}`);
  const errors = ERROR_CODE_LIST.map(
    (c) =>
      `- [${c}](${options.docsUrl}/errors/${c}) (${ERROR_CODES[c].status}${ERROR_CODES[c].retryable ? ', retryable' : ''}): ${ERROR_DOCS[c].title}.`,
  );
  return `# Liquidity catalogue gateway

> A public, read-first HTTP API over a live catalogue of 1inch Aqua / SwapVM liquidity positions (strategies): totals, per-chain and per-pair roll-ups, lists, details, indicative quotes and badges without a key; with an API key, the UNSIGNED transactions that open a position and its tracking. The service never signs, broadcasts or holds funds.

Base URL: ${base}. Every success body is \`{ data, meta }\` (the badge is the shields.io endpoint schema); on-chain amounts are integer strings in base units. Chains and tokens come from \`GET /api/chains\`: never hardcode them.

## Endpoints

${endpoints.join('\n')}

## Agents (MCP)

\`POST ${base}/mcp\` is a Model Context Protocol server (Streamable HTTP, stateless): one tool per operation above that an agent needs (reads without a key; prepare, dock, swap, status and list with the API key as \`Authorization: Bearer …\` on the MCP request), the guides and the OpenAPI document as resources. A tool answers the REST body; a refused call is a tool error whose structured content is the error envelope below.

## Authentication

Reads need no key. \`/v1/*\` takes \`Authorization: Bearer svc_live_<keyId>_<secret>\` (live chains) or \`svc_test_<keyId>_<secret>\` (test networks), issued by the operator; keep it server-side. \`POST /v1/positions\` takes an \`Idempotency-Key\` header per intended position.

## Rate limits

Fixed ${WINDOW_SECONDS} s windows per bucket (${buckets.join(', ')} requests); read buckets count per client, prepare per key. Every response carries \`RateLimit-Limit\`, \`RateLimit-Remaining\`, \`RateLimit-Reset\`, \`RateLimit-Policy\`; a 429 carries \`Retry-After\` (seconds).

## Errors

One envelope: \`{ "error": { "code", "message", "requestId", "retryable", "documentation", "parameter"?, "issues"? } }\`. Branch on \`code\`, never on \`message\`; retry only when \`retryable\` is true, after a backoff. Send your own \`X-Request-Id\` (1-128 visible ASCII characters) to trace a call; it is echoed.

${errors.join('\n')}

## Docs

- [OpenAPI 3.1 document](${base}/openapi.json): every path, parameter, body, header and error code; generate a client from it.
- [Interactive reference](${options.docsUrl}): Swagger UI.
- [Error codes](${options.docsUrl}/errors): one page per code.
${(options.guides ?? []).map((g) => `- [${g.title}](${base}${guidePath(g.name)})${g.summary ? `: ${g.summary}` : ''}`).join('\n')}

## Optional

- [Operator page](${base}/demo): the catalogue at a glance.
`;
}

export function mountLlms(
  app: express.Express,
  options: { routes: readonly RestRoute[]; publicUrl: string; docsUrl: string; guides?: readonly Guide[] },
): void {
  let body: Buffer | undefined;
  app.get('/llms.txt', (req, res) => {
    body ??= Buffer.from(llmsText(options.routes, options));
    res.setHeader('Content-Type', 'text/plain; charset=utf-8');
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.setHeader('Content-Length', body.length);
    res.end(req.method === 'HEAD' ? undefined : body);
  });
}
