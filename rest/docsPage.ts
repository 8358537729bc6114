/** What the documentation pages share: cached assets with ETags and gzip, headers, and one page frame. */
import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';

export interface Asset {
  body: Buffer;
  gzip?: Buffer;
  type: string;
  etag: string;
  cache: string;
}

export function asset(body: Buffer | string, type: string, cache = 'no-cache'): Asset {
  const buffer = Buffer.isBuffer(body) ? body : Buffer.from(body);
  const etag = `"${createHash('sha256').update(buffer).digest('base64url').slice(0, 22)}"`;
  return { body: buffer, type, etag, cache };
}

export function send(req: Request, res: Response, file: Asset, headers: Record<string, string> = {}): void {
  for (const [name, value] of Object.entries({ ...SECURITY_HEADERS, ...headers })) res.setHeader(name, value);
  res.setHeader('Content-Type', file.type);
  res.setHeader('Cache-Control', file.cache);
  res.setHeader('ETag', file.etag);
  res.setHeader('Vary', 'Accept-Encoding');
  if (req.headers['if-none-match'] === file.etag) {
    res.statusCode = 304;
    res.end();
    return;
  }
  const gzip = file.gzip && /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
  const body = gzip ? file.gzip! : file.body;
  if (gzip) res.setHeader('Content-Encoding', 'gzip');
  res.setHeader('Content-Length', body.length);
  res.statusCode = 200;
  res.end(req.method === 'HEAD' ? undefined : body);
}

const SECURITY_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

export function escapeHtml(value: string): string {
  return value.replace(/[&"'<>]/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The `code` spans of the SPEC-style texts as HTML. */
export function inlineCode(text: string): string {
  return escapeHtml(text).replace(/`([^`]+)`/g, '<code>$1</code>');
}

/**
 * The pages' one stylesheet (/docs/docs.css). Nothing scrolls the page sideways on a phone: a code block
 * wraps its lines (pre-wrap, and a URL or a long code breaks anywhere), as do inline code and the cells.
 */
export const STYLE = `:root{color-scheme:light dark;font-family:system-ui,sans-serif;line-height:1.5}
body{max-width:52rem;margin:2rem auto;padding:0 1rem;overflow-wrap:break-word}
code{font-family:ui-monospace,monospace;background:rgba(127,127,127,.15);padding:0 .25em;border-radius:3px;overflow-wrap:anywhere}
pre{background:rgba(127,127,127,.15);padding:.8rem 1rem;border-radius:4px;white-space:pre-wrap;overflow-wrap:anywhere}pre code{background:none;padding:0}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.35rem .6rem;border-bottom:1px solid rgba(127,127,127,.3);vertical-align:top;overflow-wrap:anywhere}
dt{font-weight:600;margin-top:.8rem}dd{margin:0}nav{display:flex;flex-wrap:wrap;gap:.25rem 1rem}
@media (max-width:480px){body{margin:1rem auto}h1{font-size:1.5rem}th,td{padding:.3rem .35rem}}`;

export function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8" />
<meta name="viewport" content="width=device-width, initial-scale=1" />
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="/docs/docs.css" />
</head>
<body>
<nav><a href="/docs">API reference</a><a href="/docs/errors">Error codes</a><a href="/docs/guides">Guides</a><a href="/openapi.json">openapi.json</a></nav>
${body}
</body>
</html>
`;
}
