import { createConfig, lintFromString } from '@redocly/openapi-core';
import { describe, expect, it } from 'vitest';
import { buildOpenApi, errorCodesOf, openApiPath, undocumentedRoutes } from '../../contract/openapi.js';
import { OpenApiValidator, strictify } from '../../contract/openapiValidator.js';
import { ERROR_DOCS } from '../../contract/schemas/common.js';
import { ERROR_CODE_LIST, ERROR_CODES, type ErrorCode } from '../../lib/errors.js';
import { routes } from '../../rest/routes/index.js';

/** The generated document without a service: complete, lint-clean, self-consistent. */

const document = buildOpenApi(routes, {
  publicUrl: 'https://liquidity.example.org',
  docsUrl: 'https://liquidity.example.org/docs',
});

const headers = (values: Record<string, string>) => ({
  get: (name: string) => values[name.toLowerCase()] ?? null,
});
const okHeaders = headers({
  'x-request-id': '3f2b8c1e-5d4a-4e6f-9b7a-1c2d3e4f5a6b',
  'ratelimit-limit': '120',
  'ratelimit-remaining': '119',
  'ratelimit-reset': '60',
  'ratelimit-policy': 'badge;w=60;limit=120',
  'content-type': 'application/json; charset=utf-8',
});

describe('the OpenAPI document', () => {
  it('documents every route of `routes`, once, with a unique operationId', () => {
    expect(undocumentedRoutes(routes)).toEqual([]);
    const ids = routes.map((r) => r.doc!.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const route of routes) {
      expect(document.paths[openApiPath(route.path)]?.[route.method.toLowerCase()]).toBeDefined();
    }
  });

  it('passes Redocly recommended without errors', async () => {
    const config = await createConfig({
      extends: ['recommended'],
      rules: { 'info-license': 'off', 'info-license-strict': 'off' },
    });
    const problems = await lintFromString({
      source: JSON.stringify(document),
      absoluteRef: 'openapi.json',
      config,
    });
    expect(problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId}: ${p.message}`)).toEqual(
      [],
    );
  });

  it('every example validates against its schema, strictly', () => {
    expect(new OpenApiValidator(document).exampleProblems()).toEqual([]);
  });

  it('lists per status exactly the codes of that status, each with its page and an example', () => {
    for (const route of routes) {
      const op = document.paths[openApiPath(route.path)]![route.method.toLowerCase()]!;
      const codes = errorCodesOf(route);
      const listed: ErrorCode[] = [];
      for (const [status, response] of Object.entries(op.responses)) {
        if (status === '200') continue;
        const examples = Object.keys(response.content?.['application/json']?.examples ?? {}) as ErrorCode[];
        for (const code of examples)
          expect(ERROR_CODES[code].status, `${code} under ${status}`).toBe(Number(status));
        for (const code of examples) expect(response.description).toContain(`/docs/errors/${code}`);
        listed.push(...examples);
      }
      expect(listed.sort()).toEqual([...codes].sort());
      // The conventions: every path can answer 405, 429 and 500.
      expect(codes).toEqual(expect.arrayContaining(['METHOD_NOT_ALLOWED', 'RATE_LIMITED', 'INTERNAL']));
      if (route.auth) expect(codes).toEqual(expect.arrayContaining(['UNAUTHORIZED', 'FORBIDDEN']));
      if (route.body) expect(codes).toContain('BAD_REQUEST');
    }
    for (const code of ERROR_CODE_LIST) expect(ERROR_DOCS[code].meaning.length).toBeGreaterThan(20);
  });

  it('puts the bearer scheme on /v1 and nothing on the reads', () => {
    for (const route of routes) {
      const op = document.paths[openApiPath(route.path)]![route.method.toLowerCase()]!;
      expect(op.security).toEqual(route.auth ? [{ apiKey: [] }] : []);
    }
  });

  it('types every page size as the bounded integer it is, so a generated client sends `limit: 5`', () => {
    const limits = Object.entries(document.paths).flatMap(([path, ops]) =>
      Object.values(ops as Record<string, { parameters?: { name: string; in: string; schema: unknown }[] }>)
        .flatMap((op) => op.parameters ?? [])
        .filter((p) => p.in === 'query' && p.name === 'limit')
        .map((p) => ({ path, schema: p.schema })),
    );
    expect(limits.map((l) => l.path).sort()).toEqual([
      '/api/makers',
      '/api/makers/{address}',
      '/api/strategies',
      '/v1/positions',
      '/v1/webhooks/{webhookId}/deliveries',
    ]);
    for (const { schema } of limits) expect(schema).toEqual({ type: 'integer', minimum: 1, maximum: 100 });
  });
});

describe('the contract validator', () => {
  const validator = new OpenApiValidator(document);
  const badge = { schemaVersion: 1, label: 'strategies', message: '12', color: 'blue', cacheSeconds: 300 };

  it('accepts a documented response', () => {
    expect(
      validator.responseProblems(
        'GET',
        '/api/badge?metric=strategies',
        { status: 200, headers: okHeaders },
        badge,
      ),
    ).toEqual([]);
  });

  it('names an undocumented field, a missing header, an undocumented status and an unknown path', () => {
    expect(
      validator.responseProblems(
        'GET',
        '/api/badge',
        { status: 200, headers: okHeaders },
        { ...badge, extra: 1 },
      ),
    ).toEqual([expect.stringContaining('undocumented: extra')]);
    expect(
      validator.responseProblems(
        'GET',
        '/api/badge',
        { status: 200, headers: headers({ 'content-type': 'application/json' }) },
        badge,
      ),
    ).toEqual(expect.arrayContaining([expect.stringContaining('header X-Request-Id is missing')]));
    expect(validator.responseProblems('GET', '/api/badge', { status: 418, headers: okHeaders }, {})).toEqual([
      expect.stringContaining('status 418 is not documented'),
    ]);
    expect(
      validator.responseProblems('GET', '/api/nothing', { status: 200, headers: okHeaders }, {}),
    ).toEqual([expect.stringContaining('no operation')]);
  });

  it('refuses a code that the status does not carry on that operation', () => {
    const envelope = {
      error: {
        code: 'NOT_FOUND',
        message: 'x',
        requestId: '3f2b8c1e-5d4a-4e6f-9b7a-1c2d3e4f5a6b',
        retryable: false,
      },
    };
    // /api/badge never answers 404 (nor does any 400 carry NOT_FOUND).
    expect(
      validator.responseProblems('GET', '/api/badge?metric=x', { status: 400, headers: okHeaders }, envelope),
    ).toEqual([expect.stringContaining('/error/code')]);
  });

  it('strictify closes named objects and leaves maps open to their value schema', () => {
    expect(
      strictify({
        type: 'object',
        properties: { a: { type: 'object', properties: {}, additionalProperties: {} } },
        additionalProperties: { type: 'string' },
      }),
    ).toEqual({
      type: 'object',
      properties: { a: { type: 'object', properties: {}, additionalProperties: false } },
      additionalProperties: { type: 'string' },
    });
  });
});
