import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import type express from 'express';
import type { NextFunction, Request, Response } from 'express';
import { operationDescriptions, tagDescriptions } from '../contract/openapi/descriptions.js';
import { buildOpenApi, errorExample, type OpenApiDocument } from '../contract/openapi.js';
import { ERROR_DOCS } from '../contract/schemas/common.js';
import { ApiError, ERROR_CODE_LIST, ERROR_CODES, type ErrorCode } from '../lib/errors.js';
import { type Asset, asset, escapeHtml, inlineCode, page, STYLE, send } from './docsPage.js';
import { type Guide, mountGuides } from './guides.js';
import type { RestRoute } from './route.js';

/**
 * The published contract, outside the rate-limit buckets (createApp's `mount`):
 *   GET /openapi.json          the OpenAPI 3.1 document (contract/openapi.ts), built once (first use)
 *   GET /docs                  Swagger UI (swagger-ui-dist from node_modules, same origin, no CDN)
 *   GET /docs/errors           the error codes
 *   GET /docs/errors/{CODE}    one page per code: what every `error.documentation` link points to;
 *                              an unknown code is a 404 envelope
 */

/** Which operations of the document can answer with each code, with their Swagger UI deep links. */
function operationsByCode(document: OpenApiDocument): Map<ErrorCode, { label: string; href: string }[]> {
  const out = new Map<ErrorCode, { label: string; href: string }[]>(ERROR_CODE_LIST.map((c) => [c, []]));
  for (const [p, item] of Object.entries(document.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const tag = Array.isArray(op.tags) && typeof op.tags[0] === 'string' ? op.tags[0] : 'default';
      const href = `/docs#/${encodeURIComponent(tag)}/${encodeURIComponent(op.operationId)}`;
      for (const [status, response] of Object.entries(op.responses)) {
        const examples = response.content?.['application/json']?.examples ?? {};
        for (const code of Object.keys(examples)) {
          if (code in ERROR_CODES && ERROR_CODES[code as ErrorCode].status === Number(status)) {
            out.get(code as ErrorCode)!.push({ label: `${method.toUpperCase()} ${p}`, href });
          }
        }
      }
    }
  }
  return out;
}

function errorPage(code: ErrorCode, operations: { label: string; href: string }[], docsUrl: string): string {
  const { status, retryable } = ERROR_CODES[code];
  const doc = ERROR_DOCS[code];
  const example = JSON.stringify(errorExample(code, docsUrl), null, 2);
  const list = operations.length
    ? `<ul>${operations.map((o) => `<li><a href="${escapeHtml(o.href)}"><code>${escapeHtml(o.label)}</code></a></li>`).join('')}</ul>`
    : '<p>Any path (the service-wide conventions).</p>';
  return page(
    `${code} — error code`,
    `<h1><code>${code}</code></h1>
<p>${escapeHtml(doc.title)}</p>
<dl>
<dt>HTTP status</dt><dd><code>${status}</code></dd>
<dt>Retryable</dt><dd>${retryable ? 'Yes: the same request may succeed after a backoff.' : 'No: the same request gives the same answer; change it first.'}</dd>
<dt>Meaning</dt><dd>${inlineCode(doc.meaning)}</dd>
<dt>What to do</dt><dd>${inlineCode(doc.action)}</dd>
</dl>
<h2>The envelope</h2>
<pre><code>${escapeHtml(example)}</code></pre>
<p>Branch on <code>error.code</code>, never on <code>error.message</code> (its wording may change). Quote <code>error.requestId</code> (also the <code>X-Request-Id</code> header) when you report a problem. New codes may be added at any time: handle the ones you know and fall back on <code>error.retryable</code> for the rest.</p>
<h2>Operations that answer with it</h2>
${list}`,
  );
}

function errorsIndex(): string {
  const rows = ERROR_CODE_LIST.map(
    (c) =>
      `<tr><td><a href="/docs/errors/${c}"><code>${c}</code></a></td><td>${ERROR_CODES[c].status}</td><td>${ERROR_CODES[c].retryable ? 'yes' : 'no'}</td><td>${escapeHtml(ERROR_DOCS[c].title)}</td></tr>`,
  ).join('\n');
  return page(
    'Error codes',
    `<h1>Error codes</h1>
<p>Every error is one envelope, <code>{ "error": { "code", "message", "requestId", "retryable", "documentation", "parameter"?, "issues"? } }</code>, with the HTTP status of its code.</p>
<table><thead><tr><th>code</th><th>HTTP</th><th>retryable</th><th></th></tr></thead><tbody>
${rows}
</tbody></table>`,
  );
}

const SWAGGER_INIT = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
    defaultModelsExpandDepth: 0,
    tryItOutEnabled: false,
  });
});
`;

const SWAGGER_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8" />
<meta name="viewport" content="width=device-width, initial-scale=1" />
<title>Liquidity catalogue gateway — API reference</title>
<link rel="stylesheet" href="/docs/swagger-ui.css" />
<link rel="icon" type="image/png" href="/docs/favicon-32x32.png" sizes="32x32" />
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/swagger-init.js"></script>
</body>
</html>
`;

function swaggerDist(): string {
  const require = createRequire(import.meta.url);
  return path.dirname(require.resolve('swagger-ui-dist/package.json'));
}

export interface DocsOptions {
  /** The documented routes (rest/routes/index.ts). */
  routes: readonly RestRoute[];
  publicUrl: string;
  docsUrl: string;
  version?: string;
  /** The repository's guides (rest/guides.ts); read from docs/ when not given. */
  guides?: readonly Guide[];
  /** The document, when its builder is shared with another mount (the MCP tools derive from it). */
  document?: () => OpenApiDocument;
}

/** The OpenAPI document of the routes, built once on first use. */
export function lazyOpenApi(options: DocsOptions): () => OpenApiDocument {
  return once(() =>
    buildOpenApi(options.routes, { ...options, version: options.version ?? packageVersion() }),
  );
}

/** The service's version (package.json). */
export function packageVersion(): string {
  const require = createRequire(import.meta.url);
  return (require('../package.json') as { version: string }).version;
}

/** Computed once, on first use. */
function once<T>(make: () => T): () => T {
  let value: T | undefined;
  let made = false;
  return () => {
    if (!made) {
      value = make();
      made = true;
    }
    return value as T;
  };
}

/**
 * Mounts /openapi.json, /docs and /docs/errors. The document (and the pages derived from it) is built
 * once, on the first request that needs it, so a service that is never asked pays nothing at start.
 */
export function mountDocs(app: express.Express, options: DocsOptions): void {
  const built = once(() => {
    const document = (options.document ?? lazyOpenApi(options))();
    const json = asset(JSON.stringify(document), 'application/json; charset=utf-8');
    json.gzip = gzipSync(json.body);
    const byCode = operationsByCode(document);
    const errorPages = new Map<string, Asset>(
      ERROR_CODE_LIST.map((c) => [
        c,
        asset(
          errorPage(c, byCode.get(c) ?? [], options.docsUrl),
          'text/html; charset=utf-8',
          'public, max-age=300',
        ),
      ]),
    );
    return { json, errorPages };
  });

  const publicOrigin = new URL(options.publicUrl).origin;
  // Swagger UI sets inline styles and loads its icons as data: URIs; "Try it out" calls PUBLIC_URL.
  const swaggerCsp = `default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self' ${publicOrigin}; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;
  const pageCsp =
    "default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
  const swagger = once(() => {
    const dist = swaggerDist();
    const long = 'public, max-age=86400';
    const files: Record<string, Asset> = {
      'swagger-ui.css': asset(
        readFileSync(path.join(dist, 'swagger-ui.css')),
        'text/css; charset=utf-8',
        long,
      ),
      'swagger-ui-bundle.js': asset(
        readFileSync(path.join(dist, 'swagger-ui-bundle.js')),
        'text/javascript; charset=utf-8',
        long,
      ),
      'favicon-32x32.png': asset(readFileSync(path.join(dist, 'favicon-32x32.png')), 'image/png', long),
      'swagger-init.js': asset(SWAGGER_INIT, 'text/javascript; charset=utf-8'),
      'docs.css': asset(STYLE, 'text/css; charset=utf-8'),
    };
    for (const file of Object.values(files))
      if (/css|javascript/.test(file.type)) file.gzip = gzipSync(file.body);
    return files;
  });
  // Fail at start, not on a first request, when the package or the operations' docs are missing.
  swaggerDist();
  operationDescriptions();
  tagDescriptions();
  const swaggerPage = asset(SWAGGER_PAGE, 'text/html; charset=utf-8');
  const index = asset(errorsIndex(), 'text/html; charset=utf-8', 'public, max-age=300');

  // Public and static: any page or tool may read it.
  app.get('/openapi.json', (req, res) =>
    send(req, res, built().json, { 'Access-Control-Allow-Origin': '*' }),
  );
  app.get('/docs', (req, res) => send(req, res, swaggerPage, { 'Content-Security-Policy': swaggerCsp }));
  app.get('/docs/errors', (req, res) => send(req, res, index, { 'Content-Security-Policy': pageCsp }));
  app.get('/docs/errors/:code', (req: Request, res: Response, next: NextFunction) => {
    const code = String(req.params.code);
    const file = built().errorPages.get(code);
    if (!file) {
      return next(
        new ApiError(
          'NOT_FOUND',
          `No error code "${code.slice(0, 64)}"; the codes are listed at /docs/errors.`,
        ),
      );
    }
    send(req, res, file, { 'Content-Security-Policy': pageCsp });
  });
  mountGuides(app, options.guides);
  app.get('/docs/:file', (req: Request, res: Response, next: NextFunction) => {
    const files = swagger();
    const file = Object.hasOwn(files, String(req.params.file)) ? files[String(req.params.file)] : undefined;
    if (!file) return next();
    send(req, res, file);
  });
}
