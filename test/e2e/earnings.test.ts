/**
 * Maker economics on the devnet, from real swaps: a maker opens a position with a 0.3 % fee, a taker
 * swaps against it both ways, and the fees and APY the strategy detail, the maker view and the makers
 * leaderboard give equal what this test computes from the chain's raw events (Swapped for the fees,
 * Pushed/Pulled with their block times for the time-weighted liquidity). The leaderboard's order is
 * that of its figures, and its volume that of each maker's series.
 */
import { type Address, type Hex, parseEther, parseEventLogs } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aquaAbi, routerAbi } from '../../chain/abi.js';
import { PROTOCOL_FEE_1E9 } from '../../chain/program.js';
import { testPort } from '../helpers/ports.js';
import {
  MNEMONIC,
  mintCalldata,
  startWritePath,
  type Tx,
  UNIT,
  type WritePath,
} from '../helpers/writePath.js';

let w: WritePath;
let key: string;
const maker = mnemonicToAccount(MNEMONIC, { addressIndex: 9 });
const taker = mnemonicToAccount(MNEMONIC, { addressIndex: 11 });
/** 0.3 % in the API's 1e7 scale; the program's fee is ×100 (1e9 = 100 %). */
const MAKER_FEE_BPS = 30_000;
const MAKER_FEE_1E9 = BigInt(MAKER_FEE_BPS * 100);
let hash: Hex;

interface Window {
  days: number | null;
  since: string;
  until: string;
  makerFeesUsd: number;
  protocolFeesUsd: number;
  averageLiquidityUsd: number;
  apy: number | null;
  tokens: {
    address: string;
    symbol: string;
    makerFees: string;
    protocolFees: string;
    makerFeesUsd: number;
  }[];
}

async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await w.svc.get(path, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const parsed = (await res.json()) as { data: T };
  expect(res.status, JSON.stringify(parsed)).toBe(200);
  return parsed.data;
}

/** The strategy's raw events from the chain: its swaps and its balance changes with block times. */
async function rawEvents() {
  const base = w.base;
  const [swapLogs, balanceLogs] = await Promise.all([
    w.chain.getLogs({
      address: base.router as Address,
      fromBlock: 0n,
      toBlock: 'latest',
    } as never),
    w.chain.getLogs({
      address: base.aqua as Address,
      fromBlock: 0n,
      toBlock: 'latest',
    } as never),
  ]);
  const swaps = parseEventLogs({ abi: routerAbi, logs: swapLogs, eventName: 'Swapped' }).filter(
    (l) => l.args.orderHash.toLowerCase() === hash,
  );
  const changes = parseEventLogs({ abi: aquaAbi, logs: balanceLogs, eventName: ['Pushed', 'Pulled'] }).filter(
    (l) => l.args.strategyHash.toLowerCase() === hash,
  );
  const times = new Map<bigint, number>();
  for (const l of changes) {
    if (!times.has(l.blockNumber))
      times.set(l.blockNumber, Number((await w.chain.getBlock({ blockNumber: l.blockNumber })).timestamp));
  }
  return {
    swaps: swaps.map((l) => ({ tokenIn: l.args.tokenIn.toLowerCase(), amountIn: l.args.amountIn })),
    changes: changes.map((l) => ({
      token: l.args.token.toLowerCase(),
      delta: l.eventName === 'Pushed' ? l.args.amount : -l.args.amount,
      time: times.get(l.blockNumber)!,
    })),
  };
}

/** The router's exactIn fee arithmetic (PROTOCOL.md), per tokenIn. */
function feesOf(swaps: { tokenIn: string; amountIn: bigint }[]) {
  const fees = new Map<string, { maker: bigint; protocol: bigint }>();
  for (const s of swaps) {
    const protocol = (s.amountIn * BigInt(PROTOCOL_FEE_1E9)) / 1_000_000_000n;
    const rest = s.amountIn - protocol;
    const makerFee = (rest * MAKER_FEE_1E9 + 999_999_999n) / 1_000_000_000n;
    const f = fees.get(s.tokenIn) ?? { maker: 0n, protocol: 0n };
    fees.set(s.tokenIn, { maker: f.maker + makerFee, protocol: f.protocol + protocol });
  }
  return fees;
}

/** ∫ balance dt (token units · seconds) from `since` to `now`, both tokens priced at $1 (the devnet's pegs). */
function liquidityUsdSeconds(changes: { delta: bigint; time: number }[], since: number, now: number): number {
  let total = 0;
  for (const c of changes) total += (Number(c.delta) / Number(UNIT)) * (now - Math.max(c.time, since));
  return total;
}

const apyOf = (feesUsd: number, usdSeconds: number) => (feesUsd / usdSeconds) * 365 * 86_400 * 100;

async function strategyEarnings(): Promise<Window[]> {
  const { strategy } = await w.svc.graphql<{ strategy: { earnings: Window[] } }>(
    `query($h: String!) { strategy(hash: $h, chain: "base") { earnings { days since until makerFeesUsd protocolFeesUsd
       averageLiquidityUsd apy tokens { address symbol makerFees protocolFees makerFeesUsd } } } }`,
    { h: hash },
  );
  return strategy.earnings;
}

beforeAll(async () => {
  w = await startWritePath({ basePort: testPort(20540), proxyPort: testPort(20543), name: 'earnings-e2e' });
  key = (await w.svc.createKey({ environment: 'LIVE', prepareLimitPerMinute: 1000 })).key;
  const funder = mnemonicToAccount(MNEMONIC, { addressIndex: 0 });
  for (const account of [maker, taker]) {
    await w.send(funder, { to: account.address, data: '0x', value: parseEther('1') });
    for (const symbol of ['USDC', 'USDT'])
      await w.send(account, { to: w.token(symbol), data: mintCalldata(account.address, 10_000n * UNIT) });
  }
  const p = await call<{ strategyHash: Hex; transactions: Tx[] }>('POST', '/v1/positions', {
    chain: 'base',
    wallet: maker.address,
    makerFeeBps: MAKER_FEE_BPS,
    deposits: [
      { symbol: 'USDC', amount: (1_000n * UNIT).toString() },
      { symbol: 'USDT', amount: (1_000n * UNIT).toString() },
    ],
  });
  await w.sendAll(maker, p.transactions);
  hash = p.strategyHash.toLowerCase() as Hex;
  await w.indexer.syncNow();
  // Three swaps, both ways, each in a block of its own.
  for (const [amount, direction] of [
    [25n * UNIT, 'aToB'],
    [40n * UNIT, 'bToA'],
    [7n * UNIT + 123n, 'aToB'],
  ] as const) {
    const swap = await call<{ transactions: Tx[] }>('POST', '/v1/swaps', {
      chain: 'base',
      hash,
      wallet: taker.address,
      amount: amount.toString(),
      direction,
    });
    await w.sendAll(taker, swap.transactions);
  }
  await w.indexer.syncNow();
}, 180_000);

afterAll(async () => {
  await w?.stop();
});

describe('earnings from real swaps', () => {
  it('gives the fees of the raw Swapped events, per token, in base units and USD', async () => {
    const raw = await rawEvents();
    expect(raw.swaps).toHaveLength(3);
    const expected = feesOf(raw.swaps);
    const windows = await strategyEarnings();
    expect(windows.map((x) => x.days)).toEqual([1, 7, 30, null]);
    for (const window of windows) {
      for (const [token, fee] of expected) {
        const t = window.tokens.find((x) => x.address === token);
        expect(t, `${token} in ${JSON.stringify(window.tokens)}`).toBeDefined();
        expect(t!.makerFees).toBe(fee.maker.toString());
        expect(t!.protocolFees).toBe(fee.protocol.toString());
      }
      const makerUsd = [...expected.values()].reduce((s, f) => s + Number(f.maker) / Number(UNIT), 0);
      expect(window.makerFeesUsd).toBeCloseTo(makerUsd, 2);
    }
    // 0.3 % of what the taker paid in, after the protocol's 0.05 %: fees a user can check by hand.
    expect(windows[0]!.makerFeesUsd).toBeGreaterThan(0.2);
  });

  it('gives the APY of the fees over the time-weighted liquidity of the raw balance changes', async () => {
    const raw = await rawEvents();
    const feesUsd = [...feesOf(raw.swaps).values()].reduce((s, f) => s + Number(f.maker) / Number(UNIT), 0);
    const windows = await strategyEarnings();
    for (const window of windows) {
      const since = Date.parse(window.since) / 1000;
      const until = Date.parse(window.until) / 1000;
      const expected = apyOf(feesUsd, liquidityUsdSeconds(raw.changes, since, until));
      expect(window.apy, JSON.stringify({ window, expected })).not.toBeNull();
      // The same figure, rounded to 0.01 % (and to float precision: seconds of liquidity give a large APY).
      expect(Math.abs(window.apy! - expected), JSON.stringify({ window, expected })).toBeLessThanOrEqual(
        Math.max(0.0051, expected * 1e-6),
      );
    }
    // Time before the ship held nothing: the 1-day window and the lifetime give one APY.
    expect(Math.abs(windows[0]!.apy! - windows[3]!.apy!)).toBeLessThanOrEqual(
      Math.max(0.02, windows[3]!.apy! * 0.01),
    );
  });

  it('gives the maker the sums of its strategies, on GET /api/makers/{address}', async () => {
    const res = await w.svc.get(`/api/makers/${maker.address}?chain=base`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { data: { earnings: Window[] } };
    const [d1] = await strategyEarnings();
    const m = body.data.earnings[0]!;
    expect(m.days).toBe(1);
    expect(m.makerFeesUsd).toBe(d1!.makerFeesUsd);
    expect(m.tokens.map((t) => [t.address, t.makerFees]).sort()).toEqual(
      d1!.tokens.map((t) => [t.address, t.makerFees]).sort(),
    );
  });

  it('ranks the makers by their figures, page after page, with the volume of their series', async () => {
    await w.indexer.refreshNow();
    const FIELDS = { APY: 'apy', VOLUME: 'volumeUsd', FEES: 'makerFeesUsd', TVL: 'tvlUsd' } as const;
    type Row = { address: string } & Record<(typeof FIELDS)[keyof typeof FIELDS], number | null>;
    const page = async (sort: string, first: number, after: string | null) =>
      (
        await w.svc.graphql<{
          makerLeaderboard: { edges: { node: Row }[]; pageInfo: { hasNextPage: boolean; endCursor: string } };
        }>(
          `query($s: LeaderboardSort, $f: Int, $a: String) {
             makerLeaderboard(period: D1, sort: $s, chain: "base", first: $f, after: $a) {
               edges { node { address apy volumeUsd makerFeesUsd tvlUsd } } pageInfo { hasNextPage endCursor } } }`,
          { s: sort, f: first, a: after },
        )
      ).makerLeaderboard;
    for (const [sort, field] of Object.entries(FIELDS)) {
      const all = await page(sort, 100, null);
      expect(all.pageInfo.hasNextPage).toBe(false);
      const values = all.edges.map((e) => e.node[field] ?? -1);
      expect(values.length, sort).toBeGreaterThan(1);
      expect(values, sort).toEqual([...values].sort((a, b) => b - a));
      // One maker a page gives the same order.
      const walked: string[] = [];
      let after: string | null = null;
      for (;;) {
        const one = await page(sort, 1, after);
        walked.push(...one.edges.map((e) => e.node.address));
        if (!one.pageInfo.hasNextPage) break;
        after = one.pageInfo.endCursor;
      }
      expect(walked, sort).toEqual(all.edges.map((e) => e.node.address));
    }
    // The same over REST.
    const board = await call<{ makers: { address: string; volumeUsd: number; makerFeesUsd: number }[] }>(
      'GET',
      '/api/makers?sort=volume&period=1d&chain=base&limit=100',
    );
    expect(board.makers.map((m) => m.address)).toEqual(
      (await page('VOLUME', 100, null)).edges.map((e) => e.node.address),
    );
    const ours = board.makers.find((m) => m.address === maker.address.toLowerCase());
    expect(ours, 'the test maker is ranked').toBeDefined();
    const [d1] = await strategyEarnings();
    expect(ours!.makerFeesUsd).toBeCloseTo(d1!.makerFeesUsd, 2);
    // Each maker's APY is its maker view's over the same window (ending at the chain's checkpoint).
    for (const m of board.makers.slice(0, 5)) {
      const ranked = (await page('VOLUME', 100, null)).edges.find((e) => e.node.address === m.address)!.node;
      const { maker: view } = await w.svc.graphql<{
        maker: { earnings: { days: number | null; apy: number | null }[] };
      }>('query($a: String!) { maker(chain: "base", address: $a) { earnings { days apy } } }', {
        a: m.address,
      });
      const day = view.earnings.find((e) => e.days === 1)!;
      if (day.apy === null) expect(ranked.apy, m.address).toBeNull();
      else expect(ranked.apy, m.address).toBeCloseTo(day.apy, 1);
    }
    // Each maker's volume is that of its own series over the same hours.
    for (const m of board.makers.slice(0, 5)) {
      const { maker: view } = await w.svc.graphql<{
        maker: { activity: { days: number | null; volumeUsd: number }[] };
      }>('query($a: String!) { maker(chain: "base", address: $a) { activity { days volumeUsd } } }', {
        a: m.address,
      });
      expect(m.volumeUsd, m.address).toBeCloseTo(view.activity[0]!.volumeUsd, 1);
    }
  });

  it('lists the strategies by their 7-day fees and APY, page after page', async () => {
    await w.indexer.refreshNow();
    type Node = {
      hash: string;
      fees7dUsd: number;
      apy7d: number | null;
      earnings: { days: number | null; makerFeesUsd: number; apy: number | null }[];
    };
    const page = async (sort: string, first: number, after: string | null) =>
      (
        await w.svc.graphql<{
          strategies: { edges: { node: Node }[]; pageInfo: { hasNextPage: boolean; endCursor: string } };
        }>(
          `query($s: StrategySort, $f: Int, $a: String) {
             strategies(chain: "base", sort: $s, first: $f, after: $a) {
               edges { node { hash fees7dUsd apy7d earnings { days makerFeesUsd apy } } } pageInfo { hasNextPage endCursor } } }`,
          { s: sort, f: first, a: after },
        )
      ).strategies;
    const week = (n: Node) => n.earnings.find((e) => e.days === 7)!;
    for (const sort of ['FEES', 'APY']) {
      const all = await page(sort, 100, null);
      expect(all.pageInfo.hasNextPage).toBe(false);
      const nodes = all.edges.map((e) => e.node);
      // Each entry carries the keys it is sorted by: the 7-day window's figures as of the refresh.
      for (const n of nodes) {
        expect(n.fees7dUsd, n.hash).toBeCloseTo(week(n).makerFeesUsd, 2);
        if (week(n).makerFeesUsd > 0) expect(n.apy7d, n.hash).toBeCloseTo(week(n).apy!, 6);
        else expect(n.apy7d, n.hash).toBeNull();
      }
      const keys = nodes.map((n) => (sort === 'FEES' ? n.fees7dUsd : (n.apy7d ?? -1)));
      expect(keys, sort).toEqual([...keys].sort((a, b) => b - a));
      expect(
        nodes.map((n) => n.hash),
        sort,
      ).toContain(hash);
      // What earned in the 7 days comes first, and by fees the live figures are the order (no swap since).
      const earned = nodes.map((n) => week(n).makerFeesUsd > 0);
      expect(earned, sort).toEqual([...earned].sort((a, b) => Number(b) - Number(a)));
      if (sort === 'FEES') {
        const fees = nodes.map((n) => week(n).makerFeesUsd);
        expect(fees).toEqual([...fees].sort((a, b) => b - a));
      }
      const walked: string[] = [];
      let after: string | null = null;
      for (;;) {
        const one = await page(sort, 1, after);
        walked.push(...one.edges.map((e) => e.node.hash));
        if (!one.pageInfo.hasNextPage) break;
        after = one.pageInfo.endCursor;
      }
      expect(walked, sort).toEqual(nodes.map((n) => n.hash));
    }
    // The REST list takes the same sorts.
    const res = await w.svc.get('/api/strategies?chain=base&sort=fees&limit=100');
    const body = (await res.json()) as {
      data: {
        strategies: { hash: string; fees7dUsd: number; apy7d: number | null }[];
        page: { sort: string };
      };
    };
    expect(res.status).toBe(200);
    expect(body.data.page.sort).toBe('fees');
    // The same entries in the same order, with the same keys.
    expect(body.data.strategies.map((x) => [x.hash, x.fees7dUsd, x.apy7d])).toEqual(
      (await page('FEES', 100, null)).edges.map((e) => [e.node.hash, e.node.fees7dUsd, e.node.apy7d]),
    );
  });

  it('names the parameter a leaderboard request gets wrong', async () => {
    for (const [query, status, parameter] of [
      ['sort=yield', 400, 'sort'],
      ['period=2d', 400, 'period'],
      ['chain=mars', 422, 'chain'],
      ['limit=0', 400, 'limit'],
      ['cursor=not-a-cursor', 400, 'cursor'],
    ] as const) {
      const res = await w.svc.get(`/api/makers?${query}`);
      const body = (await res.json()) as { error: { code: string; parameter?: string } };
      expect(res.status, query).toBe(status);
      expect(body.error.parameter, query).toBe(parameter);
    }
    // A cursor of another sort would skip makers: refused, not misread.
    const first = await call<{ page: { nextCursor: string | null } }>('GET', '/api/makers?sort=tvl&limit=1');
    expect(first.page.nextCursor).not.toBeNull();
    const res = await w.svc.get(`/api/makers?sort=volume&limit=1&cursor=${first.page.nextCursor}`);
    expect(res.status).toBe(400);
  });
});
