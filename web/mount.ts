import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type express from 'express';
import type { Request, Response } from 'express';

/**
 * The operator's page: one HTML, its script (app.js and the ES modules it imports, SCRIPTS), one stylesheet
 * and the icon, read once at start and served from memory outside the rate-limit buckets (createApp's
 * `mount`). Only these files are served; nothing else of `web/` is reachable. The page calls the demo
 * endpoints from the same origin.
 */

interface Asset {
  body: Buffer;
  type: string;
  etag: string;
}

const HERE = new URL('./', import.meta.url);

/** The page's script: app.js and the modules it imports, each served at /web/<name>. */
const SCRIPTS = [
  'app.js',
  'api.js',
  'badges.js',
  'balances.js',
  'dom.js',
  'events.js',
  'format.js',
  'pilot.js',
  'schedule.js',
  'stats.js',
  'status.js',
];

function asset(name: string, type: string, transform: (text: string) => string = (t) => t): Asset {
  const body = Buffer.from(transform(readFileSync(new URL(name, HERE), 'utf8')));
  return { body, type, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"` };
}

function escapeAttribute(value: string): string {
  return value.replace(/[&"'<>]/g, (c) => `&#${c.charCodeAt(0)};`);
}

const SECURITY_HEADERS = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  // The demo endpoints read the Referer of same-origin calls: it must be sent, and only there.
  'Referrer-Policy': 'same-origin',
};

export function mountWeb(app: express.Express, options: { publicUrl: string }): void {
  const page = asset('index.html', 'text/html; charset=utf-8', (html) =>
    html.replaceAll('%PUBLIC_URL%', escapeAttribute(options.publicUrl)),
  );
  const scripts = SCRIPTS.map((name) => [name, asset(name, 'text/javascript; charset=utf-8')] as const);
  const style = asset('style.css', 'text/css; charset=utf-8');
  const icon = asset('favicon.svg', 'image/svg+xml');

  const serve = (file: Asset) => (req: Request, res: Response) => {
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
    res.setHeader('Content-Type', file.type);
    res.setHeader('Cache-Control', 'no-cache');
    res.setHeader('ETag', file.etag);
    if (req.headers['if-none-match'] === file.etag) {
      res.statusCode = 304;
      return res.end();
    }
    res.setHeader('Content-Length', file.body.length);
    res.statusCode = 200;
    res.end(req.method === 'HEAD' ? undefined : file.body);
  };

  app.get(['/', '/demo'], serve(page));
  for (const [name, script] of scripts) app.get(`/web/${name}`, serve(script));
  app.get('/web/style.css', serve(style));
  // Browsers ask for /favicon.ico on every page of the origin (docs, JSON too): an SVG, which they take.
  app.get(['/favicon.svg', '/favicon.ico'], serve(icon));
}
