/**
 * Each documented operation's description is one section of docs/api/<tag>.md and each tag's is that
 * file's first paragraph: every route has its section, in the file of its first tag, no section describes
 * an operation that does not exist, and every tag an operation names is declared.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { operationDescriptions, operationDocs } from '../../contract/openapi/descriptions.js';
import { buildOpenApi } from '../../contract/openapi.js';
import { DEFAULT_LIMIT, MAX_LIMIT } from '../../resolvers/catalogue/params.js';
import { routes } from '../../rest/routes/index.js';

const documented = routes.filter((r) => r.doc);
const API_DOCS = new URL('../../docs/api/', import.meta.url);

describe('the operations described in docs/api', () => {
  it('are exactly the documented routes, each in the file of its tag', () => {
    const described = operationDescriptions();
    expect([...described.keys()].sort()).toEqual(documented.map((r) => r.doc!.operationId).sort());
    for (const route of documented) {
      const { tag, summary } = operationDocs(route.doc!.operationId, route.doc!.descriptionValues);
      const file = `${tag.toLowerCase()}.md`;
      expect(readFileSync(new URL(file, API_DOCS), 'utf8'), route.doc!.operationId).toContain(
        `## ${route.doc!.operationId}: ${summary}\n`,
      );
    }
  });

  it('declare every tag an operation of /openapi.json names, each with the description of its file', () => {
    const document = buildOpenApi(routes, {
      publicUrl: 'http://127.0.0.1:8080',
      docsUrl: 'http://127.0.0.1:8080/docs',
    }) as unknown as { tags: { name: string; description: string }[] } & ReturnType<typeof buildOpenApi>;
    const declared = document.tags.map((t) => t.name);
    const used = new Set(
      Object.values(document.paths).flatMap((item) =>
        Object.values(item).flatMap((op) => op.tags as string[]),
      ),
    );
    for (const tag of used) expect(declared, tag).toContain(tag);
    expect(declared).toContain('Swaps');
    const files = readdirSync(API_DOCS).sort();
    expect(files).toEqual(declared.map((t) => `${t.toLowerCase()}.md`).sort());
    for (const tag of document.tags) expect(tag.description.length, tag.name).toBeGreaterThan(20);
  });

  it('give each operation of /openapi.json its section, word for word', () => {
    const document = buildOpenApi(routes, {
      publicUrl: 'http://127.0.0.1:8080',
      docsUrl: 'http://127.0.0.1:8080/docs',
    });
    const described = operationDescriptions();
    for (const item of Object.values(document.paths))
      for (const op of Object.values(item)) {
        const text = described.get(op.operationId)?.split(/^### /m)[0]?.trim();
        if (text !== undefined && !text.includes('{{')) expect(op.description, op.operationId).toBe(text);
      }
    expect(described.get('preparePosition')).toContain('**unsigned** transactions');
    // Bounds come from the routes' constants: every placeholder is filled.
    const all = Object.values(document.paths).flatMap((item) => Object.values(item));
    for (const op of all) expect(String(op.description), op.operationId).not.toMatch(/\{\{/);
    const strategies = all.find((op) => op.operationId === 'getStrategies')!;
    expect(strategies.description).toContain(`\`limit\` is 1 to ${MAX_LIMIT} (default ${DEFAULT_LIMIT})`);
  });

  it("describe every parameter and response header in the section's lists, and no route object does", () => {
    const document = buildOpenApi(routes, {
      publicUrl: 'http://127.0.0.1:8080',
      docsUrl: 'http://127.0.0.1:8080/docs',
    });
    const ops = Object.values(document.paths).flatMap((item) => Object.values(item));
    const strategies = ops.find((op) => op.operationId === 'getStrategies')!;
    const limit = (strategies.parameters as { name: string; description?: string }[]).find(
      (p) => p.name === 'limit',
    )!;
    // The item of docs/api/catalogue.md, its bounds filled from the route's constants.
    expect(limit.description).toBe(
      `resource=list and search: page size, an integer from 1 to ${MAX_LIMIT}; default ${DEFAULT_LIMIT}.`,
    );
    for (const op of ops) {
      for (const p of (op.parameters ?? []) as { name: string; description?: string }[])
        expect(p.description, `${op.operationId} ${p.name}`).toMatch(/\S/);
      // The route's own headers (the conventions' are components, described once).
      const own = documented.find((r) => r.doc?.operationId === op.operationId)?.doc?.responseHeaders ?? {};
      const headers = (op.responses['200'] as { headers: Record<string, { description?: string }> }).headers;
      for (const name of Object.keys(own))
        expect(headers[name]?.description, `${op.operationId} ${name}`).toMatch(/\S/);
    }
    for (const route of documented) {
      const doc = route.doc!;
      for (const object of [doc.query, doc.params, doc.headers])
        for (const [name, schema] of Object.entries(object?.shape ?? {}))
          expect(
            (
              z.toJSONSchema(schema as z.ZodType, { io: 'input', unrepresentable: 'any' }) as {
                description?: string;
              }
            ).description,
            `${doc.operationId} ${name}: its words belong in docs/api`,
          ).toBeUndefined();
    }
  });
});
