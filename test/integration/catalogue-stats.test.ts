import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeRollup } from '../../store/rollups.js';
import { INTERNAL_TOKEN, type TestService } from '../helpers/service.js';
import { api, at, type Body, base, invalid, json, rollup, startCatalogue } from './catalogue/fixture.js';

/**
 * The catalogue's summary read paths over a socket, against the rows of catalogue/fixture.ts written
 * straight into a fresh database (the indexer is off): /api/stats and /api/badge before the first
 * roll-up, then — once this file has written it — /api/stats (shape, the 60 s cache, the graph's
 * response cache), /api/chains and /api/badge.
 */

let svc: TestService;
/** When the roll-up the reads see was written (its age is measured from here). */
let rollupWrittenAt = 0;
beforeAll(async () => {
  ({ svc } = await startCatalogue({ writeRollup: false }));
});
afterAll(async () => svc?.stop());

describe('before the first roll-up', () => {
  it('/api/stats answers zeros with null dates and does not cache them', async () => {
    const first = await json<{ data: Body; meta: Record<string, unknown> }>('/api/stats');
    expect(first.data.totals).toMatchObject({ strategies: 0, rollup_updated_at: null, last_activity: null });
    expect(first.data.chains).toEqual([]);
    expect(first.meta).toMatchObject({ freshnessSeconds: null, cached: false });
    const second = await json<{ meta: Record<string, unknown> }>('/api/stats');
    expect(second.meta.cached).toBe(false);
  });

  it('/api/badge renders an error badge, not an error page', async () => {
    const body = await json<Record<string, unknown>>('/api/badge');
    expect(body).toEqual({
      schemaVersion: 1,
      label: 'volume 30d',
      message: 'unavailable',
      color: 'lightgrey',
      isError: true,
      cacheSeconds: 30,
    });
  });

  it('writes the roll-up for the rest of the suite', async () => {
    rollupWrittenAt = Date.now();
    await writeRollup(svc.services.db, rollup);
  });
});

describe('GET /api/stats', () => {
  it('has every field of SPEC §2.2, totals consistent with the chains, and the bucket headers', async () => {
    const res = await api('/api/stats');
    expect(res.status).toBe(200);
    expect(res.headers.get('ratelimit-policy')).toBe('stats;w=60;limit=120');
    const body = (await res.json()) as { data: Body; meta: Body };
    const { data, meta } = body;
    expect(typeof data.source).toBe('string');
    expect(Object.keys(data.totals).sort()).toEqual(
      [
        'chains',
        'last_activity',
        'makers',
        'pairs',
        'rollup_updated_at',
        'strategies',
        // Additive (SPEC §9): total value locked, and what the strategies can really pay out.
        'tvl_usd',
        'pullable_usd',
        'volume_1d_usd',
        'volume_30d_usd',
        'volume_7d_usd',
      ].sort(),
    );
    expect(data.totals).toMatchObject({
      strategies: rollup.totals.strategies,
      makers: 5,
      pairs: 2,
      chains: 2,
    });
    expect(Date.parse(data.totals.rollup_updated_at)).not.toBeNaN();
    expect(data.totals.last_activity).toBe(at(500));
    const sum = (k: string) => data.chains.reduce((s: number, c: Record<string, number>) => s + c[k]!, 0);
    expect(sum('count')).toBe(data.totals.strategies);
    expect(sum('volume_30d_usd')).toBeCloseTo(data.totals.volume_30d_usd, 6);
    expect(sum('volume_7d_usd')).toBeCloseTo(data.totals.volume_7d_usd, 6);
    expect(sum('volume_1d_usd')).toBeCloseTo(data.totals.volume_1d_usd, 6);
    expect(sum('tvl_usd')).toBeCloseTo(data.totals.tvl_usd, 6);
    expect(data.chains.length).toBe(data.totals.chains);
    for (const c of data.chains) {
      expect(c).toMatchObject({
        chain: expect.any(String),
        count: expect.any(Number),
        volume_30d_usd: expect.any(Number),
      });
      expect(Date.parse(c.last_activity)).not.toBeNaN();
    }
    expect(data.top_pairs_by_volume.map((p: { pair: string }) => p.pair)).toEqual(['USDC/USDT', 'EURC/USDC']);
    expect(data.top_pairs_by_positions[0]).toMatchObject({
      pair: 'USDC/USDT',
      count: 26,
      chains: ['base', 'arc'],
    });
    expect(meta).toMatchObject({ requestId: res.headers.get('x-request-id'), apiVersion: 'v1' });
    expect(Number.isInteger(meta.freshnessSeconds)).toBe(true);
    expect(meta.freshnessSeconds).toBeGreaterThanOrEqual(0);
    // The age of the roll-up written above: no more than the time since the test wrote it.
    expect(meta.freshnessSeconds).toBeLessThanOrEqual(Math.ceil((Date.now() - rollupWrittenAt) / 1000));
  });

  it('serves hits from the 60 s cache: same data, fresh request id and generatedAt', async () => {
    const a = await api('/api/stats');
    const sentB = Date.now();
    const b = await api('/api/stats');
    const bodyA = (await a.json()) as { data: unknown; meta: Record<string, unknown> };
    const bodyB = (await b.json()) as { data: unknown; meta: Record<string, unknown> };
    expect(bodyA.meta.cached).toBe(true);
    expect(bodyB.meta.cached).toBe(true);
    expect(bodyB.data).toEqual(bodyA.data);
    expect(bodyB.meta.requestId).toBe(b.headers.get('x-request-id'));
    expect(bodyB.meta.requestId).not.toBe(bodyA.meta.requestId);
    expect(Date.parse(String(bodyB.meta.generatedAt))).toBeGreaterThanOrEqual(
      Date.parse(String(bodyA.meta.generatedAt)),
    );
    // Generated for this request (after it was sent), not kept with the cached data.
    expect(Date.parse(String(bodyB.meta.generatedAt))).toBeGreaterThanOrEqual(sentB);
    expect(Date.parse(String(bodyB.meta.generatedAt))).toBeLessThanOrEqual(Date.now());
  });

  it('is cached on /graphql too, and nothing else there is: a result holding any other type is live', async () => {
    const post = async (query: string) => {
      const res = await svc.get('/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${INTERNAL_TOKEN}` },
        body: JSON.stringify({ query }),
      });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { extensions?: { responseCache?: { hit?: boolean } } };
      return body.extensions?.responseCache?.hit ?? false;
    };
    const stats = '{ stats { source totals { strategies volume30dUsd } chains { chain count } } }';
    await post(stats);
    expect(await post(stats)).toBe(true);
    const mixed = '{ stats { source } chains { key strategies } }';
    await post(mixed);
    expect(await post(mixed)).toBe(false);
    // The age of the roll-up is computed when asked: never served from the cache.
    const age = '{ stats { source freshnessSeconds } }';
    await post(age);
    expect(await post(age)).toBe(false);
    const list = `{ strategies(chain: "${base.key}", limit: 1) { page { limit } summaries } }`;
    await post(list);
    expect(await post(list)).toBe(false);
  });

  it('answers 405 to another method, with the bucket headers', async () => {
    const res = await api('/api/stats', { method: 'POST' });
    expect(res.status).toBe(405);
    expect(res.headers.get('ratelimit-policy')).toBe('stats;w=60;limit=120');
  });
});

describe('GET /api/chains', () => {
  it('lists the registry chains with token mappings, contracts, counts and the indexer position', async () => {
    const res = await api('/api/chains');
    expect(res.headers.get('ratelimit-policy')).toBe('chains;w=60;limit=60');
    const body = (await res.json()) as {
      data: { chains: Body[] };
      meta: Record<string, unknown>;
    };
    expect(body.data.chains.map((c) => c.key)).toEqual(['base', 'arc']);
    const b = body.data.chains[0]!;
    expect(b).toMatchObject({
      key: 'base',
      chainId: 8453,
      name: 'Base',
      testnet: false,
      contracts: { aqua: base.aqua.toLowerCase(), router: base.router.toLowerCase() },
      counts: { strategies: rollup.chains[0]!.count, makers: 4, pairs: 2, swaps30d: 12 },
      indexer: { lastBlock: 1234 },
    });
    // Each token priced by the fixed price its chains entry states (additive: price).
    const fixed = (usd: number) => ({ usd, source: 'fixed', feed: null, updatedAt: null });
    expect(b.tokens).toEqual({
      USDC: { address: base.tokens[0]!.address, decimals: 6, price: fixed(1) },
      USDT: { address: base.tokens[1]!.address, decimals: 6, price: fixed(1) },
      EURC: { address: base.tokens[2]!.address, decimals: 6, price: fixed(1.08) },
    });
    expect(Number.isInteger(body.meta.freshnessSeconds)).toBe(true);
  });
});

describe('GET /api/badge', () => {
  const ALLOWED = [
    'schemaVersion',
    'label',
    'message',
    'color',
    'labelColor',
    'isError',
    'namedLogo',
    'logoSvg',
    'logoColor',
    'logoWidth',
    'style',
    'cacheSeconds',
  ];

  it('renders every metric with only keys of the shields.io endpoint schema', async () => {
    const expected: Record<string, [string, string]> = {
      '': ['volume 30d', '$1.2M'],
      volume30: ['volume 30d', '$1.2M'],
      volume7: ['volume 7d', '$950K'],
      volume1: ['volume 24h', '$1.2K'],
      strategies: ['strategies', String(rollup.totals.strategies)],
      makers: ['makers', '5'],
      pairs: ['pairs', '2'],
      chains: ['chains', '2'],
    };
    for (const [metric, [label, message]] of Object.entries(expected)) {
      const res = await api(`/api/badge${metric ? `?metric=${metric}` : ''}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-policy')).toBe('badge;w=60;limit=120');
      const body = (await res.json()) as Record<string, unknown>;
      for (const key of Object.keys(body)) expect(ALLOWED).toContain(key);
      expect(body).toMatchObject({ schemaVersion: 1, label, message, cacheSeconds: 300 });
      expect(body.isError).toBeUndefined();
      expect(typeof body.color).toBe('string');
    }
  });

  it('refuses an unknown metric with the 400 envelope', async () => {
    await invalid('/api/badge?metric=tvl', 'metric');
    await invalid('/api/badge?metric=volume30&metric=volume7', 'metric');
  });
});
