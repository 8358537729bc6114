/**
 * The repository's guides, served by the deployment: /docs/guides lists every docs/*.md, each is served
 * as the Markdown in the repository, and /llms.txt and the OpenAPI description link them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';

const DOCS = new URL('../../docs/', import.meta.url);
const files = readdirSync(DOCS).filter((f) => f.endsWith('.md'));
const titleOf = (file: string) =>
  readFileSync(new URL(file, DOCS), 'utf8')
    .split('\n')
    .find((l) => l.startsWith('# '))!
    .slice(2);

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService({ env: { INDEXER: 'off' } });
});
afterAll(async () => {
  await svc?.stop();
});

describe('the guides', () => {
  it('are the integrator guide, the agents (MCP) guide, operations, performance and the terms of use', () => {
    expect(files.sort()).toEqual(['integrators.md', 'mcp.md', 'operations.md', 'performance.md', 'terms.md']);
  });

  it('are listed at /docs/guides, each with its title and a link', async () => {
    const res = await svc.get('/docs/guides');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await res.text();
    for (const file of files) {
      expect(html).toContain(`href="/docs/guides/${file}"`);
      expect(html).toContain(titleOf(file));
    }
  });

  it('serve each guide as the Markdown the repository holds, revalidated by its ETag', async () => {
    for (const file of files) {
      const res = await svc.get(`/docs/guides/${file}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
      expect(res.headers.get('ratelimit-policy')).toMatch(/^docs;/);
      expect(await res.text()).toBe(readFileSync(new URL(file, DOCS), 'utf8'));
      const again = await svc.get(`/docs/guides/${file}`, {
        headers: { 'if-none-match': res.headers.get('etag')! },
      });
      expect(again.status).toBe(304);
    }
  });

  it('answer an unknown guide with a 404 envelope that says where the guides are', async () => {
    for (const name of ['nope.md', 'operations', '..%2FREADME.md']) {
      const res = await svc.get(`/docs/guides/${name}`);
      expect(res.status).toBe(404);
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('NOT_FOUND');
      expect(body.error.message).toContain('/docs/guides');
    }
  });

  it('are linked from /llms.txt and from the OpenAPI description', async () => {
    const llms = await (await svc.get('/llms.txt')).text();
    for (const file of files) expect(llms).toContain(`[${titleOf(file)}](${svc.url}/docs/guides/${file})`);
    const document = (await (await svc.get('/openapi.json')).json()) as { info: { description: string } };
    expect(document.info.description).toContain('/docs/guides');
  });
});
