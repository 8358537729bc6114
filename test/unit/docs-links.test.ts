/**
 * The README, CONTRIBUTING and the guides link only what a clone has: every relative link names a file
 * of the repository (and, for a Markdown file, a heading it has), and none leaves the repository.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const markdownIn = (dir: string) =>
  readdirSync(path.join(ROOT, dir))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `${dir}/${f}`);
/** The guides (served at /docs/guides) and the operations' descriptions (docs/api, in /openapi.json). */
const GUIDES = markdownIn('docs');
const PAGES = ['README.md', 'CONTRIBUTING.md', ...GUIDES, ...markdownIn('docs/api')];

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
const anchorOf = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');

function anchors(file: string): Set<string> {
  const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchorOf(m[1]!.trim())));
}

function links(page: string): string[] {
  const text = readFileSync(path.join(ROOT, page), 'utf8').replace(/```[\s\S]*?```/g, '');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((l) => !/^[a-z]+:/.test(l));
}

describe('the repository documents', () => {
  it.each(PAGES)('%s links files and headings the repository has', (page) => {
    const found = links(page);
    const broken = found.filter((link) => {
      const [target, anchor] = link.split('#') as [string, string | undefined];
      const file =
        target === '' ? path.join(ROOT, page) : path.resolve(path.dirname(path.join(ROOT, page)), target);
      if (!file.startsWith(ROOT) || !existsSync(file)) return true;
      return anchor !== undefined && file.endsWith('.md') && !anchors(file).has(anchor);
    });
    expect(broken).toEqual([]);
  });

  it('keep the README short: what it is, the two commands, a quick start and links', () => {
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    expect(readme).toContain('npm ci && npm start');
    expect(readme).toContain('npm ci && npm test');
    for (const page of GUIDES) expect(readme).toContain(`](${page})`);
  });
});
