/**
 * The smaller holes a hostile client found (issue: hardening, item 5), over a socket to a started
 * service: RateLimit-* on every answer but the health probes (node-level 400s, the reference, the
 * operator page, /graphql), `nosniff` on JSON, prototype-named keys in a body refused by name, and two
 * Authorization headers refused like two Host headers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RawResponse, rawRequest } from '../helpers/rawHttp.js';
import { INTERNAL_TOKEN, startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
let port: number;
let key: string;

beforeAll(async () => {
  svc = await startTestService({ env: { INDEXER: 'off' } });
  port = Number(new URL(svc.url).port);
  key = (await svc.createKey({ environment: 'TEST' })).key;
}, 60_000);

afterAll(async () => {
  await svc?.stop();
});

function expectBucketHeaders(res: RawResponse | Response, bucket: string): void {
  const get = (name: string) => (res instanceof Response ? res.headers.get(name) : res.headers[name]);
  expect(get('ratelimit-policy')).toMatch(new RegExp(`^${bucket};w=60;limit=\\d+$`));
  expect(Number(get('ratelimit-limit'))).toBeGreaterThan(0);
  expect(get('ratelimit-remaining')).toMatch(/^\d+$/);
  expect(Number(get('ratelimit-reset'))).toBeGreaterThan(0);
}

describe('RateLimit-* on every endpoint but health', () => {
  it('on the 400s node answers before routing: an oversized head and a bad request line', async () => {
    const oversized = await rawRequest(port, {
      method: 'GET',
      target: '/api/stats',
      headers: [['X-Filler', 'a'.repeat(20_000)]],
    });
    expect(oversized.status).toBe(400);
    expectBucketHeaders(oversized, 'other');
    expect(oversized.headers['x-content-type-options']).toBe('nosniff');

    const garbage = await rawRequest(port, Buffer.from('NOT A REQUEST LINE\r\n\r\n'));
    expect(garbage.status).toBe(400);
    expectBucketHeaders(garbage, 'other');
    expect(JSON.parse(garbage.body.toString()).error.code).toBe('BAD_REQUEST');
  });

  it('on the reference, the OpenAPI document and the operator page', async () => {
    for (const path of ['/docs', '/docs/errors', '/docs/errors/RATE_LIMITED', '/openapi.json']) {
      const res = await svc.get(path);
      expect(res.status, path).toBe(200);
      expectBucketHeaders(res, 'docs');
      await res.arrayBuffer();
    }
    for (const path of ['/', '/demo', '/web/app.js']) {
      const res = await svc.get(path);
      expect(res.status, path).toBe(200);
      expectBucketHeaders(res, 'web');
      await res.arrayBuffer();
    }
  });

  it('on /graphql, with the token and without', async () => {
    const denied = await svc.get('/graphql', { method: 'POST', body: '{}' });
    expect(denied.status).toBe(401);
    expectBucketHeaders(denied, 'graphql');
    const ok = await svc.get('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${INTERNAL_TOKEN}` },
      body: JSON.stringify({ query: '{ __typename }' }),
    });
    expect(ok.status).toBe(200);
    expectBucketHeaders(ok, 'graphql');
  });

  it('not on the health probes (documented as exempt)', async () => {
    for (const path of ['/healthz', '/readyz']) {
      const res = await svc.get(path);
      expect(res.headers.get('ratelimit-policy'), path).toBeNull();
      await res.arrayBuffer();
    }
  });
});

describe('JSON answers are not sniffed', () => {
  it('carry X-Content-Type-Options: nosniff, errors and /graphql included', async () => {
    for (const [path, init] of [
      ['/api/chains', {}],
      ['/no/such/path', {}],
      ['/graphql', { method: 'POST', body: '{}' }],
      ['/healthz', {}],
    ] as const) {
      const res = await svc.get(path, init);
      expect(res.headers.get('content-type'), path).toMatch(/json/);
      expect(res.headers.get('x-content-type-options'), path).toBe('nosniff');
      await res.arrayBuffer();
    }
  });
});

describe('bodies with prototype-named keys', () => {
  const prepare = (metadata: string) =>
    svc.get('/v1/positions', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: `{"chain":"baseSepolia","wallet":"0x90F79bf6EB2c4f870365E785982E1f101E93b906","deposits":[{"symbol":"USDC","amount":"1"},{"symbol":"USDT","amount":"1"}],"metadata":${metadata}}`,
    });

  it.each([
    ['__proto__', '{"__proto__":"x","note":"a"}', 'metadata.__proto__'],
    ['constructor', '{"constructor":"x"}', 'metadata.constructor'],
    ['prototype', '{"note":"a","prototype":"x"}', 'metadata.prototype'],
  ])('refuses metadata key %s with 400 naming it', async (_name, metadata, parameter) => {
    const res = await prepare(metadata);
    expect(res.status).toBe(400);
    const { error } = (await res.json()) as { error: { code: string; parameter: string } };
    expect(error.code).toBe('INVALID_PARAMETER');
    expect(error.parameter).toBe(parameter);
  });

  it('refuses one at the top of the body too', async () => {
    const res = await svc.get('/v1/positions', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: '{"__proto__":{"chain":"base"}}',
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { parameter: string } }).error.parameter).toBe('__proto__');
  });
});

describe('two Authorization headers', () => {
  it('are refused with 400 BAD_REQUEST, on the key paths and on /graphql', async () => {
    for (const target of [`/v1/positions/0x${'ab'.repeat(32)}`, '/graphql']) {
      const res = await rawRequest(port, {
        method: target === '/graphql' ? 'POST' : 'GET',
        target,
        headers: [
          ['Authorization', `Bearer ${key}`],
          ['Authorization', `Bearer ${INTERNAL_TOKEN}`],
          ['Content-Type', 'application/json'],
        ],
        body: target === '/graphql' ? '{"query":"{ __typename }"}' : undefined,
      });
      expect(res.status, target).toBe(400);
      expect(JSON.parse(res.body.toString()).error.code, target).toBe('BAD_REQUEST');
    }
  });
});
