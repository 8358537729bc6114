import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MACHINE_REDIS } from '../helpers/postgres.js';
import { probeRoutes } from '../helpers/routes.js';
import { startTestService, type TestService } from '../helpers/service.js';

// Two app instances on one Redis (and one database) share every bucket exactly.
const prefix = `test:${randomBytes(4).toString('hex')}:`;
/** Shared windows are exact only while Redis answers: a busy box's slow reply must not fall back. */
const SHARED_EXACTLY = '5000';
let a: TestService;
let b: TestService;

beforeAll(async () => {
  a = await startTestService({
    env: { REDIS_URL: MACHINE_REDIS, REDIS_PREFIX: prefix, REDIS_COMMAND_TIMEOUT_MS: SHARED_EXACTLY },
    extraRoutes: probeRoutes,
  });
  b = await startTestService({
    env: { REDIS_URL: MACHINE_REDIS, REDIS_PREFIX: prefix, REDIS_COMMAND_TIMEOUT_MS: SHARED_EXACTLY },
    extraRoutes: probeRoutes,
  });
});
afterAll(async () => {
  await a?.stop();
  await b?.stop();
});

describe('rate limits in Redis', () => {
  it('shares one window between two instances: the 21st request of the strategies bucket is 429 on either', async () => {
    const statuses: number[] = [];
    const remaining: number[] = [];
    for (let i = 0; i < 20; i++) {
      const res = await (i % 2 === 0 ? a : b).get('/probe/fixed');
      statuses.push(res.status);
      remaining.push(Number(res.headers.get('ratelimit-remaining')));
    }
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect(remaining).toEqual(Array.from({ length: 20 }, (_, i) => 19 - i));
    for (const svc of [a, b]) {
      const res = await svc.get('/probe/fixed');
      expect(res.status).toBe(429);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    }
  });

  it('counts concurrent requests exactly (atomic increments)', async () => {
    // The quote bucket: 60 a minute, fired 70 at once across both instances.
    const results = await Promise.all(
      Array.from({ length: 70 }, (_, i) =>
        (i % 2 === 0 ? a : b).get('/probe/echo', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{}',
        }),
      ),
    );
    const ok = results.filter((r) => r.status === 200).length;
    const limited = results.filter((r) => r.status === 429).length;
    expect(ok).toBe(60);
    expect(limited).toBe(10);
  });
});
