import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CatalogueRollup } from '../../store/rollups.js';
import { writeRollup } from '../../store/rollups.js';
import { fixtureChains, insertStrategy, insertSwap, type StoredFixture } from '../helpers/catalogue.js';
import { INTERNAL_TOKEN, startTestService, type TestService } from '../helpers/service.js';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are JSON checked field by field by the assertions.
type Body = Record<string, any>;
/**
 * The catalogue read paths over a socket, against catalogue rows written straight into a fresh
 * database (the indexer is off): /api/stats, /api/chains, /api/strategies, /api/strategy-detail and
 * /api/badge — shapes, the validation matrix, pagination and the stats cache.
 */

const chains = fixtureChains();
const [base, arc] = chains as [(typeof chains)[0], (typeof chains)[0]];
let svc: TestService;
let client = 0;
const T0 = Date.parse('2025-06-01T00:00:00Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString();

/** Every call is its own client (TRUST_PROXY), so the 20-a-minute strategies bucket never interferes. */
function api(path: string, init: RequestInit = {}) {
  client++;
  return svc.get(path, {
    ...init,
    headers: { 'x-forwarded-for': `198.51.${client >> 8}.${client & 255}`, ...(init.headers ?? {}) },
  });
}

async function json<T = Record<string, unknown>>(path: string, status = 200): Promise<T> {
  const res = await api(path);
  const body = (await res.json()) as T;
  if (res.status !== status) throw new Error(`${path}: ${res.status} ${JSON.stringify(body)}`);
  expect(res.status).toBe(status);
  return body;
}

async function invalid(path: string, parameter: string, status = 400, code = 'INVALID_PARAMETER') {
  const res = await api(path);
  const body = (await res.json()) as { error: { code: string; parameter?: string; requestId: string } };
  expect({ path, status: res.status, code: body.error?.code, parameter: body.error?.parameter }).toEqual({
    path,
    status,
    code,
    parameter,
  });
  expect(body.error.requestId).toBe(res.headers.get('x-request-id'));
}

interface Strategy {
  hash: string;
  chain: string;
  chainId: number;
  maker: string;
  app: string;
  verifiedRouter: boolean;
  pair: string;
  tokens: {
    symbol: string;
    address: string;
    decimals: number;
    initialAmount: string;
    currentAmount: string;
  }[];
  status: string;
  volumeUsd: number;
  swapCount: number;
  lastSwapAt: string | null;
  shipped: { at: string; block: number; tx: string };
  docked: { at: string; block: number } | null;
}
interface ListBody {
  data: {
    resource: string;
    strategies: Strategy[];
    page: { limit: number; nextCursor: string | null; sort: string };
    query?: { q: string; chains: string[]; symbols: string[]; unmatched: string[] };
  };
  meta: Record<string, unknown>;
}

const stored: StoredFixture[] = [];
let docked: StoredFixture;
let twin: { base: StoredFixture; arc: StoredFixture };

const rollup: CatalogueRollup = {
  totals: {
    strategies: 0,
    makers: 5,
    pairs: 2,
    chains: 2,
    volume_1d_usd: 1234.5,
    volume_7d_usd: 950_000,
    volume_30d_usd: 1_234_567,
    last_activity: at(500),
  },
  chains: [],
  pairs: [],
};

beforeAll(async () => {
  svc = await startTestService({ chains, env: { TRUST_PROXY: '1', INDEXER: 'off' } });
  const db = svc.services.db;
  // base: 24 open USDC/USDT (two share a shipped time), 5 open EURC/USDC, 1 docked USDC/USDT; arc: 4 open.
  for (let i = 0; i < 24; i++) {
    stored.push(
      await insertStrategy(db, {
        chain: base,
        symbols: i % 2 === 0 ? ['USDC', 'USDT'] : ['USDT', 'USDC'],
        shippedAt: at(i === 5 ? 4 : i),
        volumeUsd: (i * 37) % 11,
        swapCount: i % 3,
        salt: BigInt(i),
      }),
    );
  }
  for (let i = 0; i < 5; i++) {
    stored.push(
      await insertStrategy(db, {
        chain: base,
        symbols: ['EURC', 'USDC'],
        shippedAt: at(100 + i),
        salt: 1000n + BigInt(i),
      }),
    );
  }
  docked = await insertStrategy(db, {
    chain: base,
    symbols: ['USDC', 'USDT'],
    status: 'docked',
    shippedAt: at(200),
    salt: 2000n,
  });
  for (let i = 0; i < 4; i++) {
    stored.push(
      await insertStrategy(db, {
        chain: arc,
        symbols: ['USDC', 'EURC'],
        shippedAt: at(300 + i),
        salt: 3000n + BigInt(i),
      }),
    );
  }
  // The same bytes shipped on both chains: two strategies with one hash.
  const maker = '0x00000000000000000000000000000000000abcde' as const;
  const { strategyBytes } = await import('../helpers/catalogue.js');
  const bytes = strategyBytes(maker, 4242n, base.feeReceiver as `0x${string}`);
  twin = {
    base: await insertStrategy(db, {
      chain: base,
      symbols: ['USDC', 'USDT'],
      maker,
      shippedAt: at(400),
      salt: 4242n,
      strategy: bytes,
    }),
    arc: await insertStrategy(db, {
      chain: arc,
      symbols: ['USDC', 'USDT'],
      maker,
      shippedAt: at(401),
      salt: 4243n,
      strategy: bytes,
    }),
  };
  stored.push(twin.base, twin.arc);
  await insertSwap(db, {
    chain: 'base',
    hash: stored[0]!.hash,
    maker: '0x0000000000000000000000000000000000000001',
    tokenIn: base.tokens[0]!.address.toLowerCase(),
    tokenOut: base.tokens[1]!.address.toLowerCase(),
    block: 777,
    at: at(10),
  });
  await db.query(
    `INSERT INTO indexer_checkpoints (chain_key, chain_id, last_block) VALUES ('base', 8453, 1234), ('arc', 5042, 99)`,
  );
  const open = (chain: string) => stored.filter((s) => s.chain === chain && s.status === 'active').length;
  rollup.chains = [
    {
      chain: 'base',
      chain_id: 8453,
      count: open('base'),
      makers: 4,
      pairs: 2,
      swaps_30d: 12,
      volume_1d_usd: 1000,
      volume_7d_usd: 900_000,
      volume_30d_usd: 1_200_000,
      last_activity: at(500),
    },
    {
      chain: 'arc',
      chain_id: 5042,
      count: open('arc'),
      makers: 2,
      pairs: 2,
      swaps_30d: 3,
      volume_1d_usd: 234.5,
      volume_7d_usd: 50_000,
      volume_30d_usd: 34_567,
      last_activity: at(450),
    },
  ];
  rollup.totals.strategies = open('base') + open('arc');
  rollup.pairs = [
    {
      pair: 'USDC/USDT',
      count: 26,
      chains: ['base', 'arc'],
      volume_1d_usd: 1000,
      volume_7d_usd: 900_000,
      volume_30d_usd: 1_200_000,
      last_activity: at(500),
    },
    {
      pair: 'EURC/USDC',
      count: 9,
      chains: ['base', 'arc'],
      volume_1d_usd: 234.5,
      volume_7d_usd: 50_000,
      volume_30d_usd: 34_567,
      last_activity: at(450),
    },
  ];
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
        // Additive (SPEC §9, issue 21): total value locked.
        'tvl_usd',
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
    expect(meta.freshnessSeconds).toBeLessThan(60);
  });

  it('serves hits from the 60 s cache: same data, fresh request id and generatedAt', async () => {
    const a = await api('/api/stats');
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
    expect(Date.now() - Date.parse(String(bodyB.meta.generatedAt))).toBeLessThan(5000);
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
    expect(b.tokens).toEqual({
      USDC: { address: base.tokens[0]!.address, decimals: 6 },
      USDT: { address: base.tokens[1]!.address, decimals: 6 },
      EURC: { address: base.tokens[2]!.address, decimals: 6 },
    });
    expect(Number.isInteger(body.meta.freshnessSeconds)).toBe(true);
  });
});

describe('GET /api/strategies', () => {
  const openOn = (chain?: string, pair?: string) =>
    stored.filter(
      (s) => s.status === 'active' && (!chain || s.chain === chain) && (!pair || s.pair === pair),
    );

  it('lists open strategies, newest first, with every documented field', async () => {
    const res = await api('/api/strategies');
    expect(res.headers.get('ratelimit-policy')).toBe('strategies;w=60;limit=20');
    const body = (await res.json()) as ListBody;
    expect(body.data.resource).toBe('list');
    expect(body.data.page).toMatchObject({ limit: 20, sort: 'recent' });
    expect(body.data.page.nextCursor).toEqual(expect.any(String));
    expect(body.data.strategies).toHaveLength(20);
    const times = body.data.strategies.map((s) => Date.parse(s.shipped.at));
    expect([...times].sort((x, y) => y - x)).toEqual(times);
    const first = body.data.strategies[0]!;
    expect(first).toMatchObject({
      chain: 'arc',
      chainId: 5042,
      hash: twin.arc.hash,
      status: 'active',
      docked: null,
    });
    const s = body.data.strategies.find((x) => x.chain === 'base' && x.pair === 'USDC/USDT')!;
    expect(s).toMatchObject({
      chainId: 8453,
      maker: expect.stringMatching(/^0x[0-9a-f]{40}$/),
      app: base.router.toLowerCase(),
      verifiedRouter: true,
      volumeUsd: expect.any(Number),
      swapCount: expect.any(Number),
      shipped: {
        at: expect.any(String),
        block: expect.any(Number),
        tx: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      },
    });
    expect(s.tokens).toEqual([
      {
        symbol: 'USDC',
        address: base.tokens[0]!.address.toLowerCase(),
        decimals: 6,
        initialAmount: '1000000000',
        currentAmount: '1000500000',
      },
      {
        symbol: 'USDT',
        address: base.tokens[1]!.address.toLowerCase(),
        decimals: 6,
        initialAmount: '2000000000',
        currentAmount: '1999000000',
      },
    ]);
    expect(body.meta).toMatchObject({ apiVersion: 'v1', cached: false, freshnessSeconds: null });
  });

  it("serves in the graph's connections the strategies the REST list shows, page by page", async () => {
    const fragment = readFileSync(
      new URL('../../rest/operations/StrategyFields.graphql', import.meta.url),
      'utf8',
    );
    type Page = {
      edges: { cursor: string; node: Strategy & { status: string } }[];
      pageInfo: { hasNextPage: boolean; endCursor: string | null };
    };
    // The graph spells the status ACTIVE; REST keeps `active`.
    const asRest = (page: Page) =>
      page.edges.map((e) => ({ ...e.node, status: e.node.status.toLowerCase() }));
    for (const [args, path] of [
      ['first: 7', '/api/strategies?limit=7'],
      ['first: 7, sort: VOLUME', '/api/strategies?limit=7&sort=volume'],
      ['first: 50, chain: "base", pair: "usdt/usdc"', '/api/strategies?limit=50&chain=base&pair=usdt%2Fusdc'],
    ] as const) {
      const data = await svc.graphql<{ strategies: Page }>(
        `query { strategies(${args}) { edges { cursor node { ...StrategyFields } } pageInfo { hasNextPage endCursor } } } ${fragment}`,
      );
      const body = await json<ListBody>(path);
      expect(data.strategies.edges.length).toBeGreaterThan(0);
      expect(asRest(data.strategies)).toEqual(body.data.strategies);
      expect(data.strategies.pageInfo.hasNextPage ? data.strategies.pageInfo.endCursor : null).toBe(
        body.data.page.nextCursor,
      );
      expect(data.strategies.pageInfo.endCursor).toBe(data.strategies.edges.at(-1)!.cursor);
    }
    const search = await svc.graphql<{ searchStrategies: Page & { query: { symbols: string[] } } }>(
      `query { searchStrategies(q: "eurc", first: 100) { query { symbols } edges { cursor node { ...StrategyFields } } pageInfo { hasNextPage endCursor } } } ${fragment}`,
    );
    const rest = await json<ListBody>('/api/strategies?resource=search&q=eurc&limit=100');
    expect(search.searchStrategies.query.symbols).toEqual(['EURC']);
    expect(asRest(search.searchStrategies)).toEqual(rest.data.strategies);
  });

  it('filters the graph by maker, token, status and shipped time, and pages with first/after', async () => {
    type Hashes = {
      strategies: {
        edges: { node: { hash: string; chain: string } }[];
        pageInfo: { hasNextPage: boolean; endCursor: string | null };
      };
    };
    const walk = async (args: string, first = 3) => {
      const seen: string[] = [];
      let after: string | null = null;
      for (let guard = 0; guard < 50; guard++) {
        const data: Hashes = await svc.graphql<Hashes>(
          `query ($after: String) { strategies(${args}, first: ${first}, after: $after) { edges { node { hash chain } } pageInfo { hasNextPage endCursor } } }`,
          { after },
        );
        seen.push(...data.strategies.edges.map((e) => `${e.node.chain}:${e.node.hash}`));
        if (!data.strategies.pageInfo.hasNextPage) return seen;
        after = data.strategies.pageInfo.endCursor;
      }
      throw new Error('no last page');
    };
    const keys = (list: StoredFixture[]) => list.map((s) => `${s.chain}:${s.hash}`).sort();
    const open = stored.filter((s) => s.status === 'active');

    expect((await walk('status: DOCKED')).sort()).toEqual([`base:${docked.hash}`]);
    expect((await walk('status: null', 10)).sort()).toEqual(keys([...open, docked]));
    expect((await walk(`maker: "${'0x00000000000000000000000000000000000ABCDE'}"`, 1)).sort()).toEqual(
      keys([twin.base, twin.arc]),
    );
    expect((await walk('token: "eurc"')).sort()).toEqual(keys(open.filter((s) => s.pair.includes('EURC'))));
    const eurcAddress = base.tokens.find((t) => t.symbol === 'EURC')!.address;
    expect((await walk(`token: "${eurcAddress}", chain: "base"`)).sort()).toEqual(
      keys(open.filter((s) => s.pair.includes('EURC') && s.chain === 'base')),
    );
    // Shipped at(100) … at(104): the five base EURC/USDC strategies of the set-up.
    const from = new Date(at(100)).toISOString();
    const to = new Date(at(105)).toISOString();
    const ranged = await walk(`shippedFrom: "${from}", shippedTo: "${to}"`, 2);
    expect(ranged).toHaveLength(5);
    expect(ranged.every((k) => k.startsWith('base:'))).toBe(true);
    // By volume, a window of a week or less is read by shipped time then sorted: the same five.
    expect((await walk(`shippedFrom: "${from}", shippedTo: "${to}", sort: VOLUME`, 2)).sort()).toEqual(
      [...ranged].sort(),
    );

    for (const [args, parameter] of [
      ['first: 0', 'first'],
      ['after: "bm90IGEgY3Vyc29y"', 'after'],
      ['maker: "0x12"', 'maker'],
      ['token: "DOGE"', 'token'],
      ['shippedFrom: "0000-01-01T00:00:00Z"', 'shippedFrom'],
    ]) {
      await expect(svc.graphql(`query { strategies(${args}) { pageInfo { hasNextPage } } }`)).rejects.toThrow(
        `"parameter":"${parameter}"`,
      );
    }
  });

  it('never lists a docked strategy', async () => {
    const all = await collect('/api/strategies?limit=100');
    expect(all.map((s) => s.hash)).not.toContain(docked.hash);
    expect(all).toHaveLength(openOn().length);
  });

  async function collect(first: string): Promise<Strategy[]> {
    const out: Strategy[] = [];
    let path: string | null = first;
    for (let guard = 0; path && guard < 50; guard++) {
      const body: ListBody = await json<ListBody>(path);
      out.push(...body.data.strategies);
      const next = body.data.page.nextCursor;
      path = next ? `${first}&cursor=${encodeURIComponent(next)}` : null;
    }
    return out;
  }

  it('pages with the cursor through every open strategy exactly once, in both sorts', async () => {
    for (const sort of ['recent', 'volume']) {
      const pages = await collect(`/api/strategies?limit=7&sort=${sort}`);
      const keys = pages.map((s) => `${s.chain}:${s.hash}`);
      expect(new Set(keys).size).toBe(keys.length);
      expect(new Set(keys)).toEqual(new Set(openOn().map((s) => `${s.chain}:${s.hash}`)));
      if (sort === 'volume') {
        const volumes = pages.map((s) => s.volumeUsd);
        expect([...volumes].sort((x, y) => y - x)).toEqual(volumes);
      }
    }
  });

  it('keeps pages stable when strategies are added between two pages', async () => {
    const page1 = await json<ListBody>('/api/strategies?limit=3&chain=base&pair=EURC/USDC');
    const added = await insertStrategy(svc.services.db, {
      chain: base,
      symbols: ['EURC', 'USDC'],
      shippedAt: at(150),
      salt: 5000n,
    });
    const page2 = await json<ListBody>(
      `/api/strategies?limit=3&chain=base&pair=EURC/USDC&cursor=${page1.data.page.nextCursor}`,
    );
    const seen = [...page1.data.strategies, ...page2.data.strategies].map((s) => s.hash);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).not.toContain(added.hash);
    const fresh = await json<ListBody>('/api/strategies?limit=1&chain=base&pair=EURC/USDC');
    expect(fresh.data.strategies[0]!.hash).toBe(added.hash);
    stored.push(added);
  });

  it('filters by pair in either order and any case, and by chain', async () => {
    const expected = new Set(openOn('base', 'USDC/USDT').map((s) => s.hash));
    for (const pair of ['USDC/USDT', 'USDT/USDC', 'usdt/usdc']) {
      const got = await collect(`/api/strategies?limit=100&chain=base&pair=${encodeURIComponent(pair)}`);
      expect(new Set(got.map((s) => s.hash))).toEqual(expected);
      expect(got.every((s) => s.pair === 'USDC/USDT' && s.chain === 'base')).toBe(true);
    }
    const arcOnly = await collect('/api/strategies?limit=100&chain=arc');
    expect(arcOnly.length).toBe(openOn('arc').length);
    const pairOnly = await collect('/api/strategies?limit=100&pair=EURC/USDC');
    expect(pairOnly.length).toBe(openOn(undefined, 'EURC/USDC').length);
    const none = await json<ListBody>('/api/strategies?pair=USDC/DAI');
    expect(none.data.strategies).toEqual([]);
    expect(none.data.page.nextCursor).toBeNull();
  });

  it('searches free text over pair and chain', async () => {
    const body = await json<ListBody>('/api/strategies?resource=search&q=eurc%20arc&limit=100');
    expect(body.data.resource).toBe('search');
    expect(body.data.query).toMatchObject({ chains: ['arc'], symbols: ['EURC'], unmatched: [] });
    expect(body.data.strategies.length).toBe(openOn('arc', 'EURC/USDC').length);
    const prefix = await json<ListBody>('/api/strategies?resource=search&q=usd&limit=100');
    expect(prefix.data.strategies.length).toBe(openOn().length);
    const pair = await json<ListBody>('/api/strategies?resource=search&q=USDT/USDC&limit=100');
    expect(new Set(pair.data.strategies.map((s) => s.pair))).toEqual(new Set(['USDC/USDT']));
    const nothing = await json<ListBody>('/api/strategies?resource=search&q=dogecoin');
    expect(nothing.data.strategies).toEqual([]);
    expect(nothing.data.query?.unmatched).toEqual(['dogecoin']);
  });

  it('serves the detail, chains and stats resources', async () => {
    const detail = await json<{ data: { resource: string; strategy: Strategy } }>(
      `/api/strategies?resource=detail&hash=${docked.hash}`,
    );
    expect(detail.data).toMatchObject({
      resource: 'detail',
      strategy: { hash: docked.hash, status: 'docked' },
    });
    const chainsBody = await json<{ data: { resource: string; chains: { key: string }[] } }>(
      '/api/strategies?resource=chains',
    );
    expect(chainsBody.data.chains.map((c) => c.key)).toEqual(['base', 'arc']);
    const stats = await json<{
      data: { resource: string; stats: { totals: { strategies: number } } };
      meta: { cached: boolean };
    }>('/api/strategies?resource=stats');
    expect(stats.data.stats.totals.strategies).toBe(rollup.totals.strategies);
  });

  it('refuses bad parameters with 400 INVALID_PARAMETER naming them', async () => {
    const cases: [string, string][] = [
      ['resource=everything', 'resource'],
      ['resource=', 'resource'],
      ['chain=mars', 'chain'],
      ['chain=', 'chain'],
      ['pair=USDC', 'pair'],
      ['pair=USDC/USDT/EURC', 'pair'],
      ['pair=USDC/USDC', 'pair'],
      ['pair=US%20DC/USDT', 'pair'],
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=abc', 'limit'],
      ['limit=1.5', 'limit'],
      ['limit=-1', 'limit'],
      ['limit=5&limit=6', 'limit'],
      ['sort=oldest', 'sort'],
      ['cursor=not-a-cursor', 'cursor'],
      ['cursor=%%%', 'cursor'],
      [
        `cursor=${Buffer.from('["r","2025-01-01 00:00:00+00","0x12","base"]').toString('base64url')}`,
        'cursor',
      ],
      ['chain[x]=base', 'chain'],
      ['q=usdc', 'q'],
      ['hash=0x00', 'hash'],
      ['resource=search', 'q'],
      ['resource=search&q=', 'q'],
      [`resource=search&q=${'x'.repeat(101)}`, 'q'],
      ['resource=search&q=usdc&pair=USDC/USDT', 'pair'],
      ['resource=detail', 'hash'],
      ['resource=detail&hash=0x1234', 'hash'],
      ['resource=chains&limit=5', 'limit'],
      ['resource=stats&sort=volume', 'sort'],
    ];
    for (const [query, parameter] of cases) await invalid(`/api/strategies?${query}`, parameter);
    // A cursor of one sort used with the other.
    const page = await json<ListBody>('/api/strategies?limit=1&sort=volume');
    await invalid(`/api/strategies?limit=1&sort=recent&cursor=${page.data.page.nextCursor}`, 'cursor');
  });

  it('answers 404 for an unknown hash in the detail resource', async () => {
    await invalid(
      `/api/strategies?resource=detail&hash=0x${'ab'.repeat(32)}`,
      undefined as unknown as string,
      404,
      'NOT_FOUND',
    );
  });
});

describe('GET /api/strategy-detail', () => {
  it('describes an open strategy with its decoded program and recent swaps', async () => {
    const res = await api(`/api/strategy-detail?hash=${stored[0]!.hash.toUpperCase().replace('0X', '0x')}`);
    expect(res.headers.get('ratelimit-policy')).toBe('strategy-detail;w=60;limit=60');
    const body = (await res.json()) as { data: Body };
    const d = body.data;
    expect(d).toMatchObject({
      hash: stored[0]!.hash,
      chain: 'base',
      status: 'active',
      docked: null,
      alsoOnChains: [],
    });
    expect(d.strategy).toBe(stored[0]!.strategy);
    expect(d.decoded.order).toMatchObject({ useAqua: true, traits: (1n << 254n).toString() });
    expect(d.decoded.program.map((i: { name: string }) => i.name)).toEqual([
      'AquaProtocolFeeAmountIn',
      'XYCSwap',
      'Salt',
    ]);
    expect(d.decoded.program[0].decoded).toMatchObject({ fee1e9: 500_000 });
    expect(d.recentSwaps).toHaveLength(1);
    expect(d.recentSwaps[0]).toMatchObject({
      block: 777,
      amountIn: '1000000',
      amountOut: '999000',
      volumeUsd: 1,
    });
    expect(typeof d.firstSeenAt).toBe('string');

    // The graph says the same with types: the order and the program's instructions and arguments.
    const typed = await svc.graphql<{
      strategy: {
        order: Record<string, unknown>;
        program: { instructions: { name: string; args: { name: string; value: string }[] }[] };
      };
    }>(
      `query { strategy(hash: "${stored[0]!.hash}", chain: "base") { order { maker traits useAqua data } program { instructions { name args { name value } } } } }`,
    );
    expect(typed.strategy.order).toEqual(d.decoded.order);
    expect(typed.strategy.program.instructions.map((i) => i.name)).toEqual(
      d.decoded.program.map((i: { name: string }) => i.name),
    );
    expect(typed.strategy.program.instructions[0]!.args).toContainEqual({ name: 'fee1e9', value: '500000' });
  });

  it('shows a docked strategy with its dock', async () => {
    const body = await json<{ data: Strategy }>(`/api/strategy-detail?hash=${docked.hash}`);
    expect(body.data.status).toBe('docked');
    expect(body.data.docked).toEqual({ at: at(200), block: 2200 });
    expect(body.data.tokens.map((t) => t.currentAmount)).toEqual(['0', '0']);
  });

  it('tells the same hash on two chains apart', async () => {
    const either = await json<{ data: Body }>(`/api/strategy-detail?hash=${twin.base.hash}`);
    expect(either.data.chain).toBe('arc');
    expect(either.data.alsoOnChains).toEqual(['base']);
    const onBase = await json<{ data: Body }>(`/api/strategy-detail?hash=${twin.base.hash}&chain=base`);
    expect(onBase.data).toMatchObject({ chain: 'base', alsoOnChains: ['arc'] });
  });

  it('validates hash and chain, and answers 404 for an unknown strategy', async () => {
    await invalid('/api/strategy-detail', 'hash');
    await invalid('/api/strategy-detail?hash=', 'hash');
    await invalid('/api/strategy-detail?hash=0x1234', 'hash');
    await invalid(`/api/strategy-detail?hash=${'ab'.repeat(32)}`, 'hash');
    await invalid(`/api/strategy-detail?hash=0x${'zz'.repeat(32)}`, 'hash');
    await invalid(`/api/strategy-detail?hash=${docked.hash}&chain=mars`, 'chain');
    await invalid(
      `/api/strategy-detail?hash=0x${'ab'.repeat(32)}`,
      undefined as unknown as string,
      404,
      'NOT_FOUND',
    );
    await invalid(
      `/api/strategy-detail?hash=${docked.hash}&chain=arc`,
      undefined as unknown as string,
      404,
      'NOT_FOUND',
    );
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
