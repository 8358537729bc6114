/**
 * A request that its bucket will refuse costs no key look-up: the key is looked up only for requests
 * the bucket lets through. Counted where every look-up goes (the service's key cache,
 * store/apiKeyCache.ts, whether it answers from its rows or reads the table; the count only watches
 * the calls go by). Twice: with the windows in memory, and in the machine's Redis (where the read of a
 * window before the look-up rides in the batched script call of rest/windowCounter.ts).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MACHINE_REDIS } from '../helpers/postgres.js';
import { startTestService, type TestService } from '../helpers/service.js';

/** The service of the block running (blocks run one after the other). */
let svc: TestService;
/** Key look-ups since the test reset it. */
let lookups = 0;

const POSITION = `/v1/positions/0x${'ab'.repeat(32)}`;

async function send(path: string, init: { method?: string; key: string; client: string }) {
  const res = await svc.get(path, {
    method: init.method ?? 'GET',
    headers: {
      authorization: `Bearer ${init.key}`,
      'x-forwarded-for': init.client,
      'content-type': 'application/json',
    },
    ...(init.method === 'POST' ? { body: '{}' } : {}),
  });
  await res.arrayBuffer();
  return res.status;
}

function tally(statuses: number[]): Record<number, number> {
  const out: Record<number, number> = {};
  for (const status of statuses) out[status] = (out[status] ?? 0) + 1;
  return out;
}

const STORES: Array<[string, Record<string, string>]> = [
  ['in memory', {}],
  [
    'in Redis',
    {
      REDIS_URL: MACHINE_REDIS,
      REDIS_PREFIX: `test:kb:${randomBytes(4).toString('hex')}:`,
      // Exact counts need every count in Redis: past the 50 ms default a busy box's slow reply would
      // count in the process's fallback instead (redis-hang.test.ts holds that behaviour).
      REDIS_COMMAND_TIMEOUT_MS: '5000',
    },
  ],
];

describe.each(STORES)(
  'key-protected paths count the bucket before the key look-up (windows %s)',
  (_name, env) => {
    beforeAll(async () => {
      svc = await startTestService({ env: { INDEXER: 'off', TRUST_PROXY: '1', ...env } });
      const cache = svc.services.apiKeys!;
      const find = cache.find.bind(cache);
      cache.find = (keyId: string) => {
        lookups++;
        return find(keyId);
      };
    }, 60_000);

    afterAll(async () => {
      await svc?.stop();
    });

    it('300 POSTs with made-up keys from one client: 6 look-ups, 6 × 401, 294 × 429', async () => {
      lookups = 0;
      const statuses: number[] = [];
      for (let i = 0; i < 300; i++) {
        const key = `svc_test_madeup${String(i).padStart(4, '0')}_${'x'.repeat(32)}`;
        statuses.push(await send('/v1/positions', { method: 'POST', key, client: '203.0.113.10' }));
      }
      expect(tally(statuses)).toEqual({ 401: 6, 429: 294 });
      expect(lookups).toBe(6);
    });

    it('a valid key past its own window is refused without a look-up, and counts per key', async () => {
      const { key } = await svc.createKey({ environment: 'TEST' });
      lookups = 0;
      const statuses: number[] = [];
      for (let i = 0; i < 70; i++) statuses.push(await send(POSITION, { key, client: '203.0.113.20' }));
      // positions bucket: 60 per key; an unknown position is a 404.
      expect(tally(statuses)).toEqual({ 404: 60, 429: 10 });
      expect(lookups).toBe(60);
    });

    it('a key past its agreed write window is refused without a look-up, at that limit', async () => {
      // A write limit above the prepare default: remembering the wrong one of the two would refuse at 6, or
      // look the key up for every refused request.
      const { key } = await svc.createKey({ environment: 'TEST', writeLimitPerMinute: 8 });
      lookups = 0;
      const statuses: number[] = [];
      for (let i = 0; i < 20; i++) {
        statuses.push(await send('/v1/swaps', { method: 'POST', key, client: '203.0.113.25' }));
      }
      // An empty body is a 400 from the handler, counted by the bucket before it.
      expect(tally(statuses)).toEqual({ 400: 8, 429: 12 });
      expect(lookups).toBe(8);
    });

    it('a client whose failed attempts used its window is refused before any look-up', async () => {
      const { key } = await svc.createKey({ environment: 'TEST' });
      for (let i = 0; i < 60; i++) {
        const madeUp = `svc_test_nokey${String(i).padStart(4, '0')}_${'y'.repeat(32)}`;
        await send(POSITION, { key: madeUp, client: '203.0.113.30' });
      }
      lookups = 0;
      // From that client even a valid key this process has not seen yet waits for the window.
      expect(await send(POSITION, { key, client: '203.0.113.30' })).toBe(429);
      expect(lookups).toBe(0);
      // Another client with the same key is served.
      expect(await send(POSITION, { key, client: '203.0.113.31' })).toBe(404);
      expect(lookups).toBe(1);
    });

    it('a revoked key is refused on its next request though its limit is remembered', async () => {
      const { key, keyId } = await svc.createKey({ environment: 'TEST' });
      expect(await send(POSITION, { key, client: '203.0.113.40' })).toBe(404);
      await svc.graphql('mutation($id: String!) { revokeApiKey(keyId: $id) }', { id: keyId });
      expect(await send(POSITION, { key, client: '203.0.113.40' })).toBe(401);
    });
  },
);
