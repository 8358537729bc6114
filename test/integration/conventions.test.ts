import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeRoutes } from '../helpers/routes.js';
import { startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ extraRoutes: probeRoutes });
});
afterAll(async () => svc?.stop());

async function envelope(res: Response) {
  const body = (await res.json()) as { error: Record<string, unknown> };
  return body.error;
}

function expectRateHeaders(res: Response, bucket: string, limit: number) {
  expect(res.headers.get('ratelimit-limit')).toBe(String(limit));
  expect(Number(res.headers.get('ratelimit-remaining'))).toBeGreaterThanOrEqual(0);
  expect(Number(res.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
  expect(res.headers.get('ratelimit-policy')).toBe(`${bucket};w=60;limit=${limit}`);
}

describe('conventions on every path', () => {
  it('gives each response its own X-Request-Id, echoed in meta', async () => {
    const a = await svc.get('/probe/fixed');
    const b = await svc.get('/probe/fixed');
    const idA = a.headers.get('x-request-id');
    expect(idA).toMatch(/^[0-9a-f-]{36}$/);
    expect(idA).not.toBe(b.headers.get('x-request-id'));
    const body = (await a.json()) as { meta: Record<string, unknown> };
    expect(body.meta.requestId).toBe(idA);
    expect(body.meta.apiVersion).toBe('v1');
    expectRateHeaders(a, 'strategies', 20);
  });

  it('answers an unknown path with a 404 envelope carrying the headers', async () => {
    const res = await svc.get('/no/such/path');
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    const error = await envelope(res);
    expect(error.code).toBe('NOT_FOUND');
    expect(error.retryable).toBe(false);
    expect(error.requestId).toBe(res.headers.get('x-request-id'));
    expect(error.documentation).toBe(`${svc.url}/docs/errors/NOT_FOUND`);
    expectRateHeaders(res, 'other', 120);
  });

  it('answers a wrong method with 405 and the bucket headers', async () => {
    const res = await svc.get('/probe/fixed', { method: 'DELETE' });
    expect(res.status).toBe(405);
    expect((await envelope(res)).code).toBe('METHOD_NOT_ALLOWED');
    expect(res.headers.get('allow')).toContain('GET');
    expectRateHeaders(res, 'strategies', 20);
  });

  it('refuses a body that is not JSON with 400 BAD_REQUEST', async () => {
    for (const [type, body] of [
      ['application/json', '{"a":'],
      ['text/plain', '{"a":1}'],
      ['application/json', '"just a string"'],
    ] as const) {
      const res = await svc.get('/probe/echo', { method: 'POST', headers: { 'content-type': type }, body });
      expect(res.status).toBe(400);
      const error = await envelope(res);
      expect(error.code).toBe('BAD_REQUEST');
      expectRateHeaders(res, 'quote', 60);
    }
    const ok = await svc.get('/probe/echo', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"a":1}',
    });
    expect(((await ok.json()) as { data: unknown }).data).toEqual({ a: 1 });
  });

  it('refuses an oversized body with 400, not a crash', async () => {
    const res = await svc.get('/probe/echo', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ pad: 'x'.repeat(200_000) }),
    });
    expect(res.status).toBe(400);
    expect((await envelope(res)).code).toBe('BAD_REQUEST');
  });

  it('turns an unexpected fault into a 500 INTERNAL envelope without internals', async () => {
    const res = await svc.get('/probe/boom');
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(text).not.toContain('secret internals');
    expect(text).not.toContain('.ts:');
    const error = JSON.parse(text).error;
    expect(error.code).toBe('INTERNAL');
    expect(error.retryable).toBe(true);
  });

  it('serves /healthz and /readyz outside the buckets', async () => {
    const health = await svc.get('/healthz');
    expect(health.status).toBe(200);
    expect(health.headers.get('ratelimit-limit')).toBeNull();
    const ready = await svc.get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.headers.get('x-request-id')).toBeTruthy();
  });

  it('keeps /graphql behind the internal token', async () => {
    for (const authorization of [undefined, 'Bearer wrong-token-wrong-token', 'Basic abc']) {
      const res = await svc.get('/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
        body: JSON.stringify({ query: '{ serviceVersion }' }),
      });
      expect(res.status).toBe(401);
      expect((await envelope(res)).code).toBe('UNAUTHORIZED');
    }
    expect(await svc.graphql('{ serviceVersion }')).toEqual({ serviceVersion: 'v1' });
  });

  it('rate-limits exactly at the bucket limit, then 429 with Retry-After', async () => {
    // /probe/fixed is in the strategies bucket (20 a minute); earlier tests used some of it.
    let last: Response | undefined;
    let allowed = 0;
    for (let i = 0; i < 25; i++) {
      last = await svc.get('/probe/fixed');
      if (last.status === 200) allowed++;
      else break;
    }
    expect(last?.status).toBe(429);
    expect(Number(last?.headers.get('ratelimit-remaining'))).toBe(0);
    const error = await envelope(last!);
    expect(error.code).toBe('RATE_LIMITED');
    expect(error.retryable).toBe(true);
    expect(Number(last?.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(last?.headers.get('x-request-id')).toBeTruthy();
    expect(allowed).toBeLessThanOrEqual(20);
  });
});
