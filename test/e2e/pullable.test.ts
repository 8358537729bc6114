/**
 * Pullable liquidity on the devnet: what a maker's strategies can really pay out is capped by its
 * wallet's balance and its allowance to Aqua, one allowance serving all its strategies. A maker with two
 * positions of 1,000 + 1,000 that lowers its USDC allowance to 1,500 can pay out 1,500 USDC, not 2,000;
 * the maker view and the stats roll-up say so after the indexer's next wallet read, while each strategy
 * alone could still pay its own 1,000. With nothing approved its strategies are inactive; the top-up of
 * POST /v1/positions/{id}/approvals brings it all back.
 */
import { encodeFunctionData, type Hex, parseEther } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { erc20Abi } from '../../chain/abi.js';
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
const positions: Hex[] = [];

interface LiquidityToken {
  symbol: string;
  virtual: string;
  walletBalance: string | null;
  allowance: string | null;
  pullable: string | null;
  pullableUsd: number | null;
  readAt: string | null;
}
interface MakerBody {
  liquidity: {
    virtualUsd: number;
    pullableUsd: number | null;
    walletUsd: number | null;
    readAt: string | null;
    tokens: LiquidityToken[];
  };
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

async function liquidity(): Promise<MakerBody['liquidity']> {
  // GraphQL (the internal token), so the answer is not the REST path's cached one.
  const { maker: m } = await w.svc.graphql<{ maker: MakerBody }>(
    `query($a: String!) { maker(chain: "base", address: $a) { liquidity { virtualUsd pullableUsd walletUsd readAt
       tokens { symbol virtual walletBalance allowance pullable pullableUsd readAt } } } }`,
    { a: maker.address },
  );
  return m.liquidity;
}

const usdc = (l: { tokens: LiquidityToken[] }) => l.tokens.find((t) => t.symbol === 'USDC')!;
const usdt = (l: { tokens: LiquidityToken[] }) => l.tokens.find((t) => t.symbol === 'USDT')!;

interface StrategyBody {
  state: string;
  liquidity: { virtualUsd: number; pullableUsd: number | null; tokens: LiquidityToken[] };
}

/** One strategy's state and liquidity (GraphQL, uncached), as its detail gives them. */
async function strategy(hash: Hex): Promise<StrategyBody> {
  const { strategy: s } = await w.svc.graphql<{ strategy: StrategyBody }>(
    `query($h: String!) { strategy(hash: $h, chain: "base") { state liquidity { virtualUsd pullableUsd
       tokens { symbol virtual walletBalance allowance pullable pullableUsd readAt } } } }`,
    { h: hash },
  );
  return s;
}

/** The states of the maker's strategies as the REST list shows them (its entries are stored, not computed). */
async function listedStates(): Promise<Record<string, string>> {
  const res = await w.svc.get('/api/strategies?chain=base&limit=100');
  expect(res.status).toBe(200);
  const body = (await res.json()) as {
    data: { strategies: { hash: string; maker: string; state: string }[] };
  };
  const mine = body.data.strategies.filter((s) => s.maker === maker.address.toLowerCase());
  return Object.fromEntries(mine.map((s) => [s.hash, s.state]));
}

async function approve(symbol: string, amount: bigint): Promise<void> {
  await w.send(maker, {
    to: w.token(symbol),
    data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [w.base.aqua as Hex, amount] }),
  });
}

/** Reads the wallets and refreshes the roll-up now, as the indexer's loops would. */
async function readAndRollUp() {
  await w.indexer.syncNow();
  const run = await w.indexer.readWalletsNow();
  expect(run.failed).toBe(0);
  const refreshed = await w.indexer.refreshNow();
  return refreshed.rollup!;
}

beforeAll(async () => {
  w = await startWritePath({ basePort: testPort(20500), proxyPort: testPort(20503), name: 'pullable-e2e' });
  key = (await w.svc.createKey({ environment: 'LIVE', prepareLimitPerMinute: 1000 })).key;
  for (const symbol of ['USDC', 'USDT'])
    await w.send(maker, { to: w.token(symbol), data: mintCalldata(maker.address, 10_000n * UNIT) });
  await w.send(mnemonicToAccount(MNEMONIC, { addressIndex: 0 }), {
    to: maker.address,
    data: '0x',
    value: parseEther('1'),
  });
  for (let i = 0; i < 2; i++) {
    const p = await call<{ strategyHash: Hex; transactions: Tx[] }>('POST', '/v1/positions', {
      chain: 'base',
      wallet: maker.address,
      deposits: [
        { symbol: 'USDC', amount: (1_000n * UNIT).toString() },
        { symbol: 'USDT', amount: (1_000n * UNIT).toString() },
      ],
    });
    await w.sendAll(maker, p.transactions);
    positions.push(p.strategyHash);
    // The second prepare sizes its approvals for the first strategy too: index it first.
    await w.indexer.syncNow();
  }
}, 180_000);

afterAll(async () => {
  await w?.stop();
});

describe('pullable liquidity', () => {
  it('is what the strategies hold while the wallet and allowance cover it', async () => {
    const before = await liquidity();
    // Never read yet: the wallet figures are unknown, not zero.
    expect(before.readAt).toBeNull();
    expect(usdc(before)).toMatchObject({ virtual: (2_000n * UNIT).toString(), pullable: null });

    await readAndRollUp();
    const l = await liquidity();
    expect(usdc(l)).toMatchObject({
      virtual: (2_000n * UNIT).toString(),
      walletBalance: (10_000n * UNIT).toString(),
      pullable: (2_000n * UNIT).toString(),
      pullableUsd: 2_000,
    });
    expect(BigInt(usdc(l).allowance!)).toBeGreaterThanOrEqual(2_000n * UNIT);
    expect(l.pullableUsd).toBe(4_000);
    expect(l.virtualUsd).toBe(4_000);
    expect(Date.parse(l.readAt!)).not.toBeNaN();

    const res = await w.svc.get('/api/stats');
    const stats = (await res.json()) as { data: { totals: { pullable_usd: number; tvl_usd: number } } };
    expect(stats.data.totals.pullable_usd).toBeGreaterThanOrEqual(4_000);
    expect(stats.data.totals.pullable_usd).toBeLessThanOrEqual(stats.data.totals.tvl_usd);
  });

  it('drops to the allowance, shared by both strategies, when the maker lowers it', async () => {
    const before = await readAndRollUp();
    await approve('USDC', 1_500n * UNIT);
    const after = await readAndRollUp();
    const l = await liquidity();
    // 1,500, not 2 × min(1,000, 1,500): one allowance serves both strategies.
    expect(usdc(l)).toMatchObject({
      virtual: (2_000n * UNIT).toString(),
      allowance: (1_500n * UNIT).toString(),
      pullable: (1_500n * UNIT).toString(),
      pullableUsd: 1_500,
    });
    expect(usdt(l).pullable).toBe((2_000n * UNIT).toString());
    expect(l.pullableUsd).toBe(3_500);
    // The virtual balances (the TVL) did not move; the pullable total dropped by the 500 USDC.
    expect(after.totals.tvl_usd).toBe(before.totals.tvl_usd);
    expect(after.totals.pullable_usd).toBeCloseTo(before.totals.pullable_usd! - 500, 2);
    // Each strategy alone could still pay its 1,000 out: the cap is the maker's, shared.
    const one = await strategy(positions[0]!);
    expect(one.state).toBe('ACTIVE');
    expect(await listedStates()).toEqual({ [positions[0]!]: 'active', [positions[1]!]: 'active' });
    expect(usdc(one.liquidity)).toMatchObject({
      virtual: (1_000n * UNIT).toString(),
      allowance: (1_500n * UNIT).toString(),
      pullable: (1_000n * UNIT).toString(),
    });
  });

  it('leaves a strategy inactive when its maker lets Aqua take nothing', async () => {
    await approve('USDC', 0n);
    await approve('USDT', 0n);
    await readAndRollUp();
    const one = await strategy(positions[1]!);
    expect(one.state).toBe('INACTIVE');
    expect(await listedStates()).toEqual({ [positions[0]!]: 'inactive', [positions[1]!]: 'inactive' });
    expect(one.liquidity.pullableUsd).toBe(0);
    expect(one.liquidity.virtualUsd).toBe(2_000);
    expect((await liquidity()).pullableUsd).toBe(0);
  });

  it('recovers after the top-up of POST /v1/positions/{id}/approvals', async () => {
    const topUp = await call<{ transactions: Tx[] }>('POST', `/v1/positions/${positions[0]}/approvals`);
    expect(topUp.transactions.map((t) => t.purpose)).toContain('approve');
    await w.sendAll(maker, topUp.transactions);
    await readAndRollUp();
    const l = await liquidity();
    expect(usdc(l).pullable).toBe((2_000n * UNIT).toString());
    expect(usdt(l).pullable).toBe((2_000n * UNIT).toString());
    expect(l.pullableUsd).toBe(4_000);
    expect((await strategy(positions[1]!)).state).toBe('ACTIVE');
    expect(await listedStates()).toEqual({ [positions[0]!]: 'active', [positions[1]!]: 'active' });
  });
});
