/**
 * The repository's guides (docs/*.md), served by the deployment itself so that /docs, /llms.txt and the
 * OpenAPI description can link them:
 *   GET /docs/guides             an HTML index of the guides
 *   GET /docs/guides/{name}.md   one guide, as the Markdown it is written in
 * Read once at start: the image carries docs/ beside the code.
 */
import { readdirSync, readFileSync } from 'node:fs';
import type express from 'express';
import type { NextFunction, Request, Response } from 'express';
import { ApiError } from '../lib/errors.js';
import { asset, escapeHtml, page, send } from './docsPage.js';

const DOCS_DIR = new URL('../docs/', import.meta.url);

export interface Guide {
  /** The file's name without `.md`: `integrators`. */
  name: string;
  /** Its first heading. */
  title: string;
  /** Its first paragraph after the heading, or ''. */
  summary: string;
  markdown: string;
}

/** The guides in docs/, in file-name order. */
export function readGuides(): Guide[] {
  return readdirSync(DOCS_DIR)
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((file) => {
      const markdown = readFileSync(new URL(file, DOCS_DIR), 'utf8');
      const lines = markdown.split('\n');
      const heading = lines.findIndex((l) => l.startsWith('# '));
      const title = heading >= 0 ? lines[heading]!.slice(2).trim() : file;
      const rest = lines.slice(heading + 1);
      const first = rest.findIndex((l) => l.trim() !== '');
      const end = rest.findIndex((l, i) => i > first && l.trim() === '');
      const paragraph =
        first >= 0 && !rest[first]!.startsWith('#') ? rest.slice(first, end < 0 ? undefined : end) : [];
      return { name: file.slice(0, -3), title, summary: paragraph.join(' ').trim(), markdown };
    });
}

/** The path a guide is served at. */
export const guidePath = (name: string) => `/docs/guides/${name}.md`;

export function mountGuides(app: express.Express, guides: readonly Guide[] = readGuides()): void {
  const pageCsp =
    "default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
  const cache = 'public, max-age=300';
  const files = new Map(
    guides.map((g) => [`${g.name}.md`, asset(g.markdown, 'text/markdown; charset=utf-8', cache)]),
  );
  const items = guides
    .map(
      (g) =>
        `<dt><a href="${escapeHtml(guidePath(g.name))}">${escapeHtml(g.title)}</a></dt><dd>${escapeHtml(g.summary)}</dd>`,
    )
    .join('\n');
  const index = asset(
    page(
      'Guides',
      `<h1>Guides</h1>\n<p>Markdown, as kept in the repository's docs/ folder.</p>\n<dl>\n${items}\n</dl>`,
    ),
    'text/html; charset=utf-8',
    cache,
  );
  app.get('/docs/guides', (req, res) => send(req, res, index, { 'Content-Security-Policy': pageCsp }));
  app.get('/docs/guides/:file', (req: Request, res: Response, next: NextFunction) => {
    const name = String(req.params.file);
    const file = files.get(name);
    if (!file)
      return next(
        new ApiError('NOT_FOUND', `No guide "${name.slice(0, 64)}"; the guides are listed at /docs/guides.`),
      );
    send(req, res, file, { 'Content-Security-Policy': "default-src 'none'" });
  });
}
