import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertStrategy, type StoredFixture } from '../helpers/catalogue.js';
import type { TestService } from '../helpers/service.js';
import {
  api,
  at,
  base,
  invalid,
  json,
  type ListBody,
  rollup,
  type Strategy,
  startCatalogue,
} from './catalogue/fixture.js';

/**
 * GET /api/strategies over a socket, against the rows of catalogue/fixture.ts written straight into a
 * fresh database with their roll-up (the indexer is off): the list's shape, the graph's connections
 * that serve the same pages, filters, search, cursor pagination (stable when strategies are added:
 * the one added here joins `stored` for the tests after it), the detail/chains/stats resources and
 * the validation matrix.
 */

let svc: TestService;
let stored: StoredFixture[];
let docked: StoredFixture;
let twin: { base: StoredFixture; arc: StoredFixture };
beforeAll(async () => {
  ({ svc, stored, docked, twin } = await startCatalogue({ writeRollup: true }));
});
afterAll(async () => svc?.stop());

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
    const fragment = ['StrategyListFields', 'StrategyFields']
      .map((name) => readFileSync(new URL(`../../rest/operations/${name}.graphql`, import.meta.url), 'utf8'))
      .join('\n');
    type Page = {
      edges: { cursor: string; node: Strategy & { status: string; kind: string; state: string } }[];
      pageInfo: { hasNextPage: boolean; endCursor: string | null };
    };
    // The graph spells the status ACTIVE and the kind XYC; REST keeps `active` and `xyc`.
    const asRest = (page: Page) =>
      page.edges.map((e) => ({
        ...e.node,
        status: e.node.status.toLowerCase(),
        kind: e.node.kind.toLowerCase(),
        state: e.node.state.toLowerCase(),
      }));
    for (const [args, path] of [
      ['first: 7', '/api/strategies?limit=7'],
      ['first: 7, sort: VOLUME', '/api/strategies?limit=7&sort=volume'],
      ['first: 50, chain: "base", pair: "usdt/usdc"', '/api/strategies?limit=50&chain=base&pair=usdt%2Fusdc'],
    ] as const) {
      const data = await svc.graphql<{ strategies: Page }>(
        `query { strategies(${args}) { edges { cursor node { ...StrategyListFields } } pageInfo { hasNextPage endCursor } } } ${fragment}`,
      );
      const body = await json<ListBody>(path);
      expect(data.strategies.edges.length).toBeGreaterThan(0);
      // The same entries in the same field order: the list's rendered entries keep the selection's order.
      expect(JSON.stringify(asRest(data.strategies))).toBe(JSON.stringify(body.data.strategies));
      expect(data.strategies.pageInfo.hasNextPage ? data.strategies.pageInfo.endCursor : null).toBe(
        body.data.page.nextCursor,
      );
      expect(data.strategies.pageInfo.endCursor).toBe(data.strategies.edges.at(-1)!.cursor);
    }
    const search = await svc.graphql<{ searchStrategies: Page & { query: { symbols: string[] } } }>(
      // Pages of 50: the nested fragments count a level of the shape cost, and 100 would pass its bound.
      `query { searchStrategies(q: "eurc", first: 50) { query { symbols } edges { cursor node { ...StrategyListFields } } pageInfo { hasNextPage endCursor } } } ${fragment}`,
    );
    const rest = await json<ListBody>('/api/strategies?resource=search&q=eurc&limit=50');
    expect(search.searchStrategies.query.symbols).toEqual(['EURC']);
    expect(JSON.stringify(asRest(search.searchStrategies))).toBe(JSON.stringify(rest.data.strategies));
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

  it('says the documented rule for every wrong limit, too long ones included', async () => {
    for (const value of ['1000', '0', 'abc', '', '1.5', '99999999999999999999']) {
      const res = await api(`/api/strategies?limit=${value}`);
      const body = (await res.json()) as { error: { parameter?: string; message: string } };
      expect({
        value,
        status: res.status,
        parameter: body.error.parameter,
        message: body.error.message,
      }).toEqual({
        value,
        status: 400,
        parameter: 'limit',
        message: 'limit must be an integer from 1 to 100.',
      });
    }
  });

  it('answers 404 naming hash for an unknown hash in the detail resource', async () => {
    await invalid(`/api/strategies?resource=detail&hash=0x${'ab'.repeat(32)}`, 'hash', 404, 'NOT_FOUND');
  });
});
