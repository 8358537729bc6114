/**
 * Analytics over a socket against a started service on the machine's Postgres: rows go in
 * through the indexer's own write path (indexer/write.ts `writeChunk`, one chunk = one transaction), so
 * the roll-ups of migration 014 are the ones the indexer keeps; then the roll-up refresh prices TVL.
 * - maker(chain, address): open/docked counts, live TVL, 1/7/30-day and lifetime volume and fees (maker
 *   fee and protocol fee from each strategy's program), its strategies as a Relay connection;
 * - makers: ordered by TVL and by volume, keyset pages, a foreign cursor refused naming `after`;
 * - volumeSeries: HOUR and DAY buckets, dense, filtered by chain, pair, token, maker, strategy; ranges checked;
 * - replaying a chunk changes nothing (the roll-ups move only for rows actually inserted);
 * - /api/stats carries tvl_usd (totals, chains, pairs); GET /api/makers/{address} and
 *   GET /api/strategies/{hash}/activity answer the documented bodies, 400 naming the parameter, 404.
 */
import type { Address } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  aquaProtocolFeeAmountIn,
  buildProgram,
  flatFeeAmountIn,
  salt,
  xycSwap,
} from '../../chain/program.js';
import type { ChunkBatch } from '../../indexer/batch.js';
import { refreshRollup } from '../../indexer/rollup.js';
import { writeChunk } from '../../indexer/write.js';
import { fixtureChains, shippedRow } from '../helpers/catalogue.js';
import { catalogueSnapshot } from '../helpers/indexerSnapshot.js';
import { INTERNAL_TOKEN, startTestService, type TestService } from '../helpers/service.js';

const chains = fixtureChains();
const base = chains[0]!;
const token = (symbol: string) => base.tokens.find((t) => t.symbol === symbol)!;
const USDC = token('USDC');
const USDT = token('USDT');
const EURC = token('EURC');
const M1 = '0x00000000000000000000000000000000000a1001';
const M2 = '0x00000000000000000000000000000000000a1002';
const router = base.router.toLowerCase();
const HOUR = 3_600_000;
const now = Date.now();
const hourStart = Math.floor(now / HOUR) * HOUR;
/** Inside the current UTC hour, `hoursAgo` hours back (so it falls in a known bucket). */
const at = (hoursAgo: number) => new Date(hourStart - hoursAgo * HOUR + 60_000).toISOString();

function strategyOf(maker: string, symbols: [string, string], fees: { maker?: number }, n: bigint) {
  return shippedRow({
    maker,
    router,
    data: buildProgram([
      aquaProtocolFeeAmountIn(500_000, base.feeReceiver as Address),
      ...(fees.maker ? [flatFeeAmountIn(fees.maker)] : []),
      xycSwap(),
      salt(n),
    ]),
    tokens: [token(symbols[0]), token(symbols[1])],
    block: 10 + Number(n),
    tx: `0x${n.toString(16).padStart(64, 'a')}`,
    time: at(24 * 40 - Number(n)),
  });
}

// S1: M1, USDC/USDT, maker fee 0.3%; S2: M1, EURC/USDC, docked later; S3: M2, USDC/USDT.
const S1 = strategyOf(M1, ['USDC', 'USDT'], { maker: 3_000_000 }, 1n);
const S2 = strategyOf(M1, ['USDC', 'EURC'], {}, 2n);
const S3 = strategyOf(M2, ['USDC', 'USDT'], {}, 3n);

let log = 0;
const push = (s: typeof S1, tok: { address: string }, amount: string) => ({
  tx: `0x${(1000 + log).toString(16).padStart(64, '0')}`,
  logIndex: log++,
  block: 50,
  hash: s.hash,
  maker: s.maker,
  app: router,
  token: tok.address.toLowerCase(),
  kind: 'push' as const,
  amount,
  time: s.time,
});
const swap = (s: typeof S1, hoursAgo: number, volumeUsd: number) => ({
  tx: `0x${(5000 + log).toString(16).padStart(64, '0')}`,
  logIndex: log++,
  block: 60 + log,
  time: at(hoursAgo),
  hash: s.hash,
  maker: s.maker,
  taker: '0x00000000000000000000000000000000000b0001',
  tokenIn: s.tokenA,
  tokenOut: s.tokenB,
  amountIn: String(volumeUsd * 1e6),
  amountOut: String(volumeUsd * 1e6 - 1),
  volumeUsd,
});

const chunk: ChunkBatch = {
  strategies: [S1, S2, S3],
  balances: [
    push(S1, USDC, '1000000000'), // 1,000 USDC
    push(S1, USDT, '2000000000'), // 2,000 USDT
    push(S2, USDC, '500000000'),
    push(S2, EURC, '500000000'),
    push(S3, USDC, '100000000'),
    push(S3, USDT, '100000000'),
  ],
  swaps: [
    swap(S1, 2, 10_000),
    swap(S1, 2, 5_000),
    swap(S1, 24 * 10, 100_000),
    swap(S2, 24 * 3, 20_000),
    swap(S3, 1, 1_000),
  ],
  docks: [],
};
const dockChunk: ChunkBatch = {
  strategies: [],
  balances: [],
  swaps: [],
  docks: [{ hash: S2.hash, maker: M1, app: router, block: 70, tx: `0x${'d'.repeat(64)}`, time: at(1) }],
};

let svc: TestService;

async function gql<T = Record<string, unknown>>(query: string, variables: Record<string, unknown> = {}) {
  const res = await svc.get('/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${INTERNAL_TOKEN}` },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await res.json()) as {
    data?: T;
    errors?: { message: string; extensions?: { code?: string; parameter?: string } }[];
  };
  return body;
}

async function write(batch: ChunkBatch, lastBlock: number) {
  const client = await svc.services.db.connect();
  try {
    const hash = `0x${lastBlock.toString(16).padStart(64, '0')}`;
    await writeChunk(client, { key: base.key, chainId: base.chainId, router }, batch, {
      lastBlock,
      lastBlockHash: hash,
      genesisHash: hash,
      indexedThroughAt: new Date(),
      headers: [],
      reorgWindow: 256,
    });
  } finally {
    client.release();
  }
}

beforeAll(async () => {
  svc = await startTestService({ chains, env: { INDEXER: 'off' } });
  await write(chunk, 65);
  await write(chunk, 65); // a replayed range changes nothing
  await write(dockChunk, 70);
  await refreshRollup(svc.services.db, chains, { prices: await svc.services.prices.usd() });
}, 60_000);

afterAll(async () => {
  await svc?.stop();
});

const MAKER_QUERY = `query ($chain: String!, $address: String!, $first: Int, $after: String) {
  maker(chain: $chain, address: $address) {
    address chain chainId positions { open docked total }
    tvl { usd tokens { symbol amount usd } }
    rankedTvlUsd
    activity { days volumeUsd swapCount makerFeesUsd protocolFeesUsd }
    strategies(first: $first, after: $after) { edges { cursor node { hash status } } pageInfo { hasNextPage endCursor } }
  }
}`;

interface MakerAnswer {
  maker: {
    positions: { open: number; docked: number; total: number };
    tvl: { usd: number; tokens: { symbol: string; amount: string; usd: number }[] };
    rankedTvlUsd: number;
    activity: {
      days: number | null;
      volumeUsd: number;
      swapCount: number;
      makerFeesUsd: number;
      protocolFeesUsd: number;
    }[];
    strategies: {
      edges: { cursor: string; node: { hash: string; status: string } }[];
      pageInfo: { hasNextPage: boolean; endCursor: string | null };
    };
  } | null;
}

describe('maker', () => {
  it('counts positions, prices live TVL and sums volume and fees over 1/7/30 days and the lifetime', async () => {
    const { data, errors } = await gql<MakerAnswer>(MAKER_QUERY, {
      chain: 'base',
      address: M1.toUpperCase().replace('0X', '0x'),
    });
    expect(errors).toBeUndefined();
    const m = data!.maker!;
    expect(m.positions).toEqual({ open: 1, docked: 1, total: 2 });
    // S2 docked: its balances are zero; S1 holds 1,000 USDC and 2,000 USDT at $1.
    expect(m.tvl.usd).toBe(3000);
    expect(m.tvl.tokens.map((t) => [t.symbol, t.amount]).sort()).toEqual([
      ['USDC', '1000000000'],
      ['USDT', '2000000000'],
    ]);
    expect(m.rankedTvlUsd).toBe(3000);
    const [d1, d7, d30, life] = m.activity;
    // Protocol fee 0.05% of every swap; S1's maker fee 0.3% of what the protocol fee leaves.
    expect(d1).toMatchObject({
      days: 1,
      volumeUsd: 15_000,
      swapCount: 2,
      protocolFeesUsd: 7.5,
      makerFeesUsd: 44.98,
    });
    expect(d7).toMatchObject({
      days: 7,
      volumeUsd: 35_000,
      swapCount: 3,
      protocolFeesUsd: 17.5,
      makerFeesUsd: 44.98,
    });
    expect(d30).toMatchObject({ days: 30, volumeUsd: 135_000, swapCount: 4, protocolFeesUsd: 67.5 });
    expect(d30!.makerFeesUsd).toBeCloseTo(344.83, 2);
    expect(life).toMatchObject({ days: null, volumeUsd: 135_000, swapCount: 4 });
  });

  it('pages its strategies as a Relay connection, newest shipped first', async () => {
    const first = await gql<MakerAnswer>(MAKER_QUERY, { chain: 'base', address: M1, first: 1 });
    const page1 = first.data!.maker!.strategies;
    expect(page1.edges.map((e) => e.node.hash)).toEqual([S2.hash]);
    expect(page1.pageInfo.hasNextPage).toBe(true);
    const next = await gql<MakerAnswer>(MAKER_QUERY, {
      chain: 'base',
      address: M1,
      first: 1,
      after: page1.pageInfo.endCursor,
    });
    const page2 = next.data!.maker!.strategies;
    expect(page2.edges.map((e) => e.node.hash)).toEqual([S1.hash]);
    expect(page2.pageInfo.hasNextPage).toBe(false);
  });

  it('is null for an address that never shipped, and refuses a malformed one naming it', async () => {
    const none = await gql<MakerAnswer>(MAKER_QUERY, { chain: 'base', address: `0x${'9'.repeat(40)}` });
    expect(none.data!.maker).toBeNull();
    const bad = await gql(MAKER_QUERY, { chain: 'base', address: '0x12' });
    expect(bad.errors?.[0]?.extensions?.code).toBe('INVALID_PARAMETER');
    expect(bad.errors?.[0]?.message).toMatch(/address/);
  });
});

describe('makers', () => {
  const LIST = `query ($sort: MakerSort, $first: Int, $after: String) {
    makers(sort: $sort, first: $first, after: $after) { edges { node { address rankedTvlUsd } } pageInfo { hasNextPage endCursor } }
  }`;
  type ListAnswer = {
    makers: {
      edges: { node: { address: string; rankedTvlUsd: number } }[];
      pageInfo: { hasNextPage: boolean; endCursor: string };
    };
  };

  it('orders by TVL, one keyset page at a time', async () => {
    const p1 = await gql<ListAnswer>(LIST, { sort: 'TVL', first: 1 });
    expect(p1.data!.makers.edges.map((e) => e.node.address)).toEqual([M1]);
    expect(p1.data!.makers.pageInfo.hasNextPage).toBe(true);
    const p2 = await gql<ListAnswer>(LIST, {
      sort: 'TVL',
      first: 1,
      after: p1.data!.makers.pageInfo.endCursor,
    });
    expect(p2.data!.makers.edges.map((e) => [e.node.address, e.node.rankedTvlUsd])).toEqual([[M2, 200]]);
    expect(p2.data!.makers.pageInfo.hasNextPage).toBe(false);
    // A cursor of the other sort is refused, naming `after`.
    const mixed = await gql<ListAnswer>(LIST, {
      sort: 'VOLUME',
      first: 1,
      after: p1.data!.makers.pageInfo.endCursor,
    });
    expect(mixed.errors?.[0]?.extensions?.code).toBe('INVALID_PARAMETER');
    expect(mixed.errors?.[0]?.message).toMatch(/after/);
  });

  it('orders by lifetime volume', async () => {
    const { data } = await gql<ListAnswer>(LIST, { sort: 'VOLUME', first: 10 });
    expect(data!.makers.edges.map((e) => e.node.address)).toEqual([M1, M2]);
  });
});

describe('volumeSeries', () => {
  const SERIES = `query ($g: Granularity!, $from: DateTime, $to: DateTime, $chain: String, $pair: String, $token: String, $maker: String, $strategy: String) {
    volumeSeries(granularity: $g, from: $from, to: $to, chain: $chain, pair: $pair, token: $token, maker: $maker, strategy: $strategy) {
      from to filters { token } buckets { start volumeUsd swapCount protocolFeesUsd makerFeesUsd feesUsd }
    }
  }`;
  type SeriesAnswer = {
    volumeSeries: {
      from: string;
      to: string;
      buckets: {
        start: string;
        volumeUsd: number;
        swapCount: number;
        protocolFeesUsd: number;
        makerFeesUsd: number;
        feesUsd: number;
      }[];
    };
  };
  const total = (a: SeriesAnswer) => a.volumeSeries.buckets.reduce((s, b) => s + b.volumeUsd, 0);

  it('lists every hour of the range, oldest first, the empty ones as zeros', async () => {
    const { data, errors } = await gql<SeriesAnswer>(SERIES, {
      g: 'HOUR',
      from: new Date(hourStart - 3 * HOUR).toISOString(),
      to: new Date(hourStart + HOUR).toISOString(),
    });
    expect(errors).toBeUndefined();
    const buckets = data!.volumeSeries.buckets;
    expect(buckets.map((b) => Date.parse(b.start))).toEqual([3, 2, 1, 0].map((h) => hourStart - h * HOUR));
    expect(buckets.map((b) => [b.volumeUsd, b.swapCount])).toEqual([
      [0, 0],
      [15_000, 2],
      [1_000, 1],
      [0, 0],
    ]);
    expect(buckets[1]).toMatchObject({ protocolFeesUsd: 7.5, makerFeesUsd: 44.98, feesUsd: 52.48 });
  });

  it('sums 30 days by day, filtered by chain, pair, token, maker and strategy', async () => {
    const day = async (filters: Record<string, string>) =>
      total((await gql<SeriesAnswer>(SERIES, { g: 'DAY', ...filters })).data!);
    expect(await day({})).toBe(136_000);
    expect(await day({ chain: 'base' })).toBe(136_000);
    expect(await day({ chain: 'arc' })).toBe(0);
    expect(await day({ pair: 'usdt/usdc' })).toBe(116_000);
    expect(await day({ maker: M1 })).toBe(135_000);
    expect(await day({ maker: M1, pair: 'USDC/USDT' })).toBe(115_000);
    expect(await day({ strategy: S2.hash })).toBe(20_000);
    expect(await day({ strategy: S2.hash, maker: M2 })).toBe(0);
    // A token: every pair holding it (by symbol in any case, or by its listed address).
    expect(await day({ token: 'usdt' })).toBe(116_000);
    expect(await day({ token: 'EURC' })).toBe(20_000);
    expect(await day({ token: EURC.address })).toBe(20_000);
    expect(await day({ token: 'USDC' })).toBe(136_000);
    expect(await day({ token: 'EURC', pair: 'USDC/USDT' })).toBe(0);
    expect(await day({ token: 'USDT', maker: M1 })).toBe(115_000);
    const named = await gql<{ volumeSeries: { filters: { token: string } } }>(SERIES, {
      g: 'DAY',
      token: EURC.address.toUpperCase().replace('0X', '0x'),
    });
    expect(named.data!.volumeSeries.filters.token).toBe('EURC');
    const unknown = await gql(SERIES, { g: 'DAY', token: 'DOGE' });
    expect(unknown.errors?.[0]?.extensions?.parameter).toBe('token');
    const { data } = await gql<SeriesAnswer>(SERIES, { g: 'DAY' });
    expect(data!.volumeSeries.buckets).toHaveLength(30);
  });

  it('refuses a range the wrong way round or too long, naming the parameter', async () => {
    const reversed = await gql(SERIES, {
      g: 'DAY',
      from: '2026-02-01T00:00:00Z',
      to: '2026-01-01T00:00:00Z',
    });
    expect(reversed.errors?.[0]?.extensions?.code).toBe('INVALID_PARAMETER');
    expect(reversed.errors?.[0]?.message).toMatch(/from/);
    const long = await gql(SERIES, { g: 'HOUR', from: '2025-01-01T00:00:00Z', to: '2026-01-01T00:00:00Z' });
    expect(long.errors?.[0]?.message).toMatch(/at most 2208 buckets/);
    const maker = await gql(SERIES, { g: 'DAY', maker: 'nobody' });
    expect(maker.errors?.[0]?.message).toMatch(/^maker/);
  });
});

describe('REST', () => {
  it('/api/stats carries TVL per chain, per pair and in total', async () => {
    const res = await svc.get('/api/stats');
    const body = (await res.json()) as {
      data: {
        totals: { tvl_usd: number };
        chains: { chain: string; tvl_usd: number }[];
        top_pairs_by_positions: { pair: string; tvl_usd: number }[];
      };
    };
    expect(body.data.totals.tvl_usd).toBe(3200);
    expect(body.data.chains.find((c) => c.chain === 'base')?.tvl_usd).toBe(3200);
    expect(body.data.chains.find((c) => c.chain === 'arc')?.tvl_usd).toBe(0);
    expect(body.data.top_pairs_by_positions.find((p) => p.pair === 'USDC/USDT')?.tvl_usd).toBe(3200);
  });

  it('GET /api/makers/{address} answers the maker, cached like the catalogue reads', async () => {
    const res = await svc.get(`/api/makers/${M1}?chain=base&limit=1`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toMatch(/^public, max-age=\d+$/);
    expect(res.headers.get('etag')).toBeTruthy();
    const { data } = (await res.json()) as {
      data: Record<string, unknown> & { strategies: { hash: string }[]; page: { nextCursor: string } };
    };
    expect(data).toMatchObject({
      address: M1,
      chain: 'base',
      chainId: 8453,
      positions: { open: 1, docked: 1, total: 2 },
      tvl: { usd: 3000 },
      volume: {
        d1: { volumeUsd: 15_000, swapCount: 2 },
        d7: { volumeUsd: 35_000 },
        d30: { volumeUsd: 135_000 },
        lifetime: { swapCount: 4 },
      },
    });
    expect(data.strategies.map((s) => s.hash)).toEqual([S2.hash]);
    const next = await svc.get(`/api/makers/${M1}?chain=base&limit=1&cursor=${data.page.nextCursor}`);
    const page2 = (await next.json()) as {
      data: { strategies: { hash: string }[]; page: { nextCursor: string | null } };
    };
    expect(page2.data.strategies.map((s) => s.hash)).toEqual([S1.hash]);
    expect(page2.data.page.nextCursor).toBeNull();
  });

  it('GET /api/makers/{address}: 400 naming the parameter, 404 for an unknown maker', async () => {
    const cases: [string, string][] = [
      [`/api/makers/0x12?chain=base`, 'address'],
      [`/api/makers/${M1}`, 'chain'],
      [`/api/makers/${M1}?chain=no%20where`, 'chain'],
      [`/api/makers/${M1}?chain=base&limit=0`, 'limit'],
      [`/api/makers/${M1}?chain=base&cursor=abc`, 'cursor'],
    ];
    for (const [path, parameter] of cases) {
      const res = await svc.get(path);
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect([path, res.status, body.error.code]).toEqual([path, 400, 'INVALID_PARAMETER']);
      expect(body.error.message.startsWith(parameter) || body.error.message.includes(parameter)).toBe(true);
    }
    const unknown = await svc.get(`/api/makers/0x${'7'.repeat(40)}?chain=base`);
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { parameter?: string } }).error.parameter).toBe('address');
  });

  it('GET /api/strategies/{hash}/activity answers the series and the latest swaps', async () => {
    const res = await svc.get(
      `/api/strategies/${S1.hash}/activity?chain=base&granularity=hour&from=${encodeURIComponent(new Date(hourStart - 2 * HOUR).toISOString())}`,
    );
    expect(res.status).toBe(200);
    const { data } = (await res.json()) as {
      data: {
        strategy: { hash: string; pair: string };
        series: { granularity: string; buckets: { volumeUsd: number }[] };
        recentSwaps: unknown[];
      };
    };
    expect(data.strategy).toMatchObject({ hash: S1.hash, pair: 'USDC/USDT' });
    expect(data.series.granularity).toBe('hour');
    expect(data.series.buckets.map((b) => b.volumeUsd)).toEqual([15_000, 0, 0]);
    expect(data.recentSwaps).toHaveLength(3);
    const daily = (await (await svc.get(`/api/strategies/${S1.hash}/activity`)).json()) as {
      data: { series: { granularity: string; buckets: { volumeUsd: number }[] } };
    };
    expect(daily.data.series.granularity).toBe('day');
    expect(daily.data.series.buckets).toHaveLength(30);
    expect(daily.data.series.buckets.reduce((s, b) => s + b.volumeUsd, 0)).toBe(115_000);
  });

  it('GET /api/strategies/{hash}/activity: 400 naming the parameter, 404 for an unknown strategy', async () => {
    for (const [path, parameter] of [
      ['/api/strategies/0x12/activity', 'hash'],
      [`/api/strategies/${S1.hash}/activity?granularity=week`, 'granularity'],
      [`/api/strategies/${S1.hash}/activity?from=yesterday`, 'from'],
      [`/api/strategies/${S1.hash}/activity?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z`, 'from'],
    ] as const) {
      const res = await svc.get(path);
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect([path, res.status, body.error.code]).toEqual([path, 400, 'INVALID_PARAMETER']);
      expect(body.error.message).toMatch(new RegExp(`^${parameter}|${parameter}`));
    }
    const unknown = await svc.get(`/api/strategies/0x${'e'.repeat(64)}/activity`);
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { parameter?: string } }).error.parameter).toBe('hash');
  });
});

// Last: the rebuild starts the makers' TVL afresh (priced again at the next refresh).
describe('analytics_rebuild() (migration 014 over existing rows, and after a bulk load)', () => {
  it('recomputes exactly the roll-ups the indexer kept row by row', async () => {
    const db = svc.services.db;
    const balances = async () =>
      (
        await db.query(
          `SELECT 'maker' AS scope, chain_key, maker, pair_key, token, symbol, decimals, amount::text
             FROM catalogue_balances WHERE amount <> 0
           UNION ALL
           SELECT 'pair', chain_key, NULL, pair_key, token, symbol, decimals, amount::text
             FROM catalogue_pair_balances WHERE amount <> 0
           ORDER BY 1, 2, 3, 4, 5`,
        )
      ).rows;
    const kept = { ...(await catalogueSnapshot({ db })), balances: await balances() };
    // The rows carry both kinds of fee, so the fee arithmetic is compared too.
    const fees = await db.query<{ maker: number; protocol: number }>(
      `SELECT count(*) FILTER (WHERE maker_fees_usd > 0)::int AS maker,
         count(*) FILTER (WHERE protocol_fees_usd > 0)::int AS protocol FROM strategy_hourly`,
    );
    expect(fees.rows[0]!.maker).toBeGreaterThan(0);
    expect(fees.rows[0]!.protocol).toBeGreaterThan(0);
    await db.query('SELECT analytics_rebuild()');
    expect({ ...(await catalogueSnapshot({ db })), balances: await balances() }).toEqual(kept);
  });
});
