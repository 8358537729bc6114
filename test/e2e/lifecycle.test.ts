/**
 * The maker's whole lifecycle on the devnet, every prepared transaction signed and sent
 * unchanged: two positions on one wallet (approvals sized for both), both filled through POST /v1/swaps,
 * health `at_risk` then `ok` after the top-up of POST /v1/positions/{id}/approvals, one docked through
 * POST /v1/positions/{id}/dock (status `docked`), a swap's minimum output honoured and a too-tight one
 * refused on chain (TakerTraitsInsufficientMinOutputAmount). RPC round trips of swap and dock counted.
 * What those real transactions left is then read back where users read it: GET /v1/positions and its CSV
 * export (filled, docked), and the analytics model with ANALYTICS_TOKEN (`maker`, `volumeSeries` over
 * the swaps the indexer wrote).
 */
import { type Address, BaseError, getAddress, type Hex, parseEther } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { erc20Abi } from '../../chain/abi.js';
import { dockCalldata } from '../../chain/calldata.js';
import type { ChainClient } from '../../chain/clients.js';
import type { Devnet } from '../../devnet/devnet.js';
import type { Indexer } from '../../indexer/index.js';
import type { ChainConfig } from '../../lib/config.js';
import { testPort } from '../helpers/ports.js';
import type { RpcProxy } from '../helpers/rpcProxy.js';
import { startTestService, type TestService } from '../helpers/service.js';
import {
  MNEMONIC,
  mintCalldata as mint,
  startWritePath,
  type Tx,
  UNIT,
  type WritePath,
} from '../helpers/writePath.js';

const BASE_PORT = testPort(19900);
const ANALYTICS_TOKEN = 'lifecycle-analytics-token-0123456';
const PROXY_PORT = testPort(19903);
/** Nothing listens here: a chain whose RPC cannot be reached. */
const CLOSED_PORT = testPort(19904);
let w: WritePath;
let devnet: Devnet;
let proxy: RpcProxy;
let svc: TestService;
let indexer: Indexer;
let base: ChainConfig;
let chain: ChainClient;
/** The maker's integrator key (positions) and a taker's integrator key (swaps): one write bucket each. */
let makerKey: string;
let takerKey: string;

const maker = mnemonicToAccount(MNEMONIC, { addressIndex: 9 });
const taker = mnemonicToAccount(MNEMONIC, { addressIndex: 10 });

interface Health {
  status: string;
  spender: string;
  strategies: number;
  tokens: {
    address: string;
    allowance: string;
    balance: string;
    required: string;
    requiredByPosition: string;
  }[];
  issues: { type: string; expected: string; actual: string; spender: string | null; token: string }[];
}
interface Status {
  status: string;
  firstSeenDockedAt: string | null;
  health: Health | null;
}
interface SwapBody {
  data: {
    transactions: Tx[];
    quote: {
      amountIn: string;
      amountOut: string;
      minAmountOut: string;
      deadline: number;
      tokenOut: { address: Address };
    };
  };
}

const token = (symbol: string) => w.token(symbol);
const send: WritePath['send'] = (account, tx) => w.send(account, tx);
const sendAll: WritePath['sendAll'] = (account, txs) => w.sendAll(account, txs);

async function call(method: 'GET' | 'POST', url: string, key: string, body?: unknown) {
  const res = await svc.get(url, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { res, text: await res.text() };
}

async function ok<T>(method: 'GET' | 'POST', url: string, key: string, body?: unknown): Promise<T> {
  const { res, text } = await call(method, url, key, body);
  expect(res.status, text).toBe(200);
  return JSON.parse(text) as T;
}

const statusOf = async (id: string) =>
  (await ok<{ data: Status }>('GET', `/v1/positions/${id}`, makerKey)).data;

async function openPosition(): Promise<Hex> {
  const body = {
    chain: 'base',
    wallet: maker.address,
    deposits: [
      { symbol: 'USDC', amount: (1_000n * UNIT).toString() },
      { symbol: 'USDT', amount: (1_000n * UNIT).toString() },
    ],
  };
  const p = await ok<{ data: { strategyHash: Hex; transactions: Tx[] } }>(
    'POST',
    '/v1/positions',
    makerKey,
    body,
  );
  await sendAll(maker, p.data.transactions);
  // The wallet's open strategies come from the catalogue: the next prepare counts this one once seen.
  await indexer.syncNow();
  return p.data.strategyHash;
}

function swapOf(hash: Hex, direction: 'aToB' | 'bToA', amount: bigint, extra: Record<string, unknown> = {}) {
  return ok<SwapBody>('POST', '/v1/swaps', takerKey, {
    chain: 'base',
    hash,
    wallet: taker.address,
    amount: amount.toString(),
    direction,
    ...extra,
  });
}

const balanceOf = (t: Address, who: Address) =>
  chain.readContract({ address: t, abi: erc20Abi, functionName: 'balanceOf', args: [who] });

beforeAll(async () => {
  w = await startWritePath({
    basePort: BASE_PORT,
    proxyPort: PROXY_PORT,
    name: 'lifecycle-e2e',
    env: { ANALYTICS_TOKEN },
  });
  ({ devnet, base, proxy, svc, indexer, chain } = w);
  makerKey = (await svc.createKey({ environment: 'LIVE', prepareLimitPerMinute: 1000, label: 'maker' })).key;
  takerKey = (await svc.createKey({ environment: 'LIVE', prepareLimitPerMinute: 1000, label: 'taker' })).key;
  for (const symbol of ['USDC', 'USDT']) {
    await send(maker, { to: token(symbol), data: mint(maker.address, 1_000_000n * UNIT) });
    await send(maker, { to: token(symbol), data: mint(taker.address, 10_000n * UNIT) });
  }
  await send(maker, { to: taker.address, data: '0x', value: parseEther('1') });
}, 180_000);

afterAll(async () => {
  await w?.stop();
});

describe("the maker's lifecycle on the devnet", () => {
  let first: Hex;
  let second: Hex;

  it('opens two positions on one wallet: healthy, covered for both', async () => {
    first = await openPosition();
    second = await openPosition();
    await indexer.syncNow();
    const s = await statusOf(first);
    expect(s.status).toBe('shipped');
    expect(s.firstSeenDockedAt).toBeNull();
    expect(s.health).toMatchObject({
      status: 'ok',
      strategies: 2,
      issues: [],
      spender: getAddress(base.aqua),
    });
    for (const t of s.health!.tokens) {
      expect([t.required, t.requiredByPosition, t.allowance]).toEqual([
        (2_000n * UNIT).toString(),
        (1_000n * UNIT).toString(),
        (2_000n * UNIT).toString(),
      ]);
    }
  });

  it('answers the status without health while the chain cannot be read (no 503 on a read of the status)', async () => {
    // A replica on the same database whose base RPC is down.
    const down = await startTestService({
      chains: devnet.chains.map((c) =>
        c.key === 'base' ? { ...c, rpcUrl: `http://127.0.0.1:${CLOSED_PORT}` } : c,
      ),
      env: { INDEXER: 'off', DATABASE_URL: svc.services.config.databaseUrl!, RPC_TIMEOUT_MS: '500' },
    });
    try {
      const res = await down.get(`/v1/positions/${first}`, {
        headers: { authorization: `Bearer ${makerKey}` },
      });
      expect(res.status).toBe(200);
      const { data } = (await res.json()) as { data: Status };
      expect(data.status).toBe('shipped');
      expect(data.health).toBeNull();
    } finally {
      await down.stop();
    }
  });

  it('fills both through POST /v1/swaps (one RPC round trip each), then health is at_risk', async () => {
    proxy.reset();
    const a = await swapOf(first, 'aToB', 100n * UNIT);
    expect(proxy.requests()).toEqual([{ methods: ['eth_call'] }]);
    expect(a.data.transactions.map((t) => [t.purpose, t.to])).toEqual([
      ['approve', a.data.transactions[0]!.to],
      ['swap', getAddress(base.router)],
    ]);
    await sendAll(taker, a.data.transactions);
    const b = await swapOf(second, 'bToA', 100n * UNIT);
    await sendAll(taker, b.data.transactions);
    await indexer.syncNow();
    await indexer.refreshNow();
    const s = await statusOf(first);
    expect(s.status).toBe('filled');
    // Fills raised the virtual balances of the input tokens (not the allowance): covered for each
    // position alone, not for both.
    expect(s.health!.status).toBe('at_risk');
    expect(s.health!.issues.length).toBeGreaterThan(0);
    for (const issue of s.health!.issues) {
      expect(issue).toMatchObject({ type: 'INSUFFICIENT_ALLOWANCE', spender: getAddress(base.aqua) });
      expect(BigInt(issue.expected)).toBeGreaterThan(BigInt(issue.actual));
    }
  });

  it('is ok again after the top-up of POST /v1/positions/{id}/approvals, which then returns no step', async () => {
    const topUp = await ok<{ data: { transactions: Tx[] } }>(
      'POST',
      `/v1/positions/${first}/approvals`,
      makerKey,
    );
    expect(topUp.data.transactions.map((t) => t.purpose)).toContain('approve');
    await sendAll(maker, topUp.data.transactions);
    const s = await statusOf(first);
    expect(s.health).toMatchObject({ status: 'ok', issues: [] });
    const again = await ok<{ data: { transactions: Tx[] } }>(
      'POST',
      `/v1/positions/${first}/approvals`,
      makerKey,
    );
    expect(again.data.transactions).toEqual([]);
  });

  it('docks one position with the unsigned dock (one RPC round trip): status docked', async () => {
    proxy.reset();
    const { res, text } = await call('POST', `/v1/positions/${second}/dock`, makerKey);
    expect(res.status, text).toBe(200);
    expect(res.headers.get('ratelimit-policy')).toBe('write;w=60;limit=6');
    expect(proxy.requests()).toEqual([{ methods: ['eth_call'] }]);
    const dock = JSON.parse(text) as { data: { transactions: Tx[] } };
    const [lower, higher] = [token('USDC'), token('USDT')].sort((x, y) =>
      x.toLowerCase() < y.toLowerCase() ? -1 : 1,
    ) as [Address, Address];
    expect(dock.data.transactions).toEqual([
      {
        step: 1,
        purpose: 'dock',
        to: getAddress(base.aqua),
        value: '0',
        data: dockCalldata({ app: getAddress(base.router), strategyHash: second, tokens: [lower, higher] }),
        description: expect.stringContaining('no taker can trade'),
      },
    ]);
    await sendAll(maker, dock.data.transactions);
    // Docked on chain, not yet seen by the indexer: the live read refuses a second dock already.
    const early = await call('POST', `/v1/positions/${second}/dock`, makerKey);
    expect([early.res.status, JSON.parse(early.text).error.code]).toEqual([422, 'UNPROCESSABLE']);
    // A swap against it too (the strategy was swapped before: the chain's state read in the simulation
    // refuses it, then the docking is remembered).
    // (A key of its own: the taker's write bucket is counted by the swaps of the next test.)
    const otherTaker = (await svc.createKey({ environment: 'LIVE', label: 'docked swaps' })).key;
    const swapDocked = () =>
      call('POST', '/v1/swaps', otherTaker, {
        chain: 'base',
        hash: second,
        wallet: taker.address,
        amount: UNIT.toString(),
        direction: 'aToB',
      });
    const docked = await swapDocked();
    expect(docked.res.status, docked.text).toBe(422);
    expect(JSON.parse(docked.text).error.issues[0].type).toBe('STRATEGY_NOT_ACTIVE');
    const again = await swapDocked();
    expect(again.res.status, again.text).toBe(422);
    expect(JSON.parse(again.text).error.issues[0].type).toBe('STRATEGY_NOT_ACTIVE');
    expect(JSON.parse(again.text).error.message).toMatch(/is docked \(closed by its maker\)/);
    await indexer.syncNow();
    const s = await statusOf(second);
    expect(s.status).toBe('docked');
    expect(Date.parse(s.firstSeenDockedAt!)).toBeGreaterThan(Date.now() - 60_000);
    expect(s.health).toBeNull();
    const late = await call('POST', `/v1/positions/${second}/dock`, makerKey);
    expect([late.res.status, JSON.parse(late.text).error.code]).toEqual([422, 'UNPROCESSABLE']);
    // Another key's position is a 404, as on GET.
    const foreign = await call('POST', `/v1/positions/${first}/dock`, takerKey);
    expect(foreign.res.status).toBe(404);
  });

  it('lists and exports both positions as the chain left them (filled, docked), after the real ship, fill and dock', async () => {
    interface Listed {
      positionId: string;
      status: string;
      chain: string;
      wallet: string;
      observedOnChain: boolean;
      volumeUsd: number;
      firstSeenOnChainAt: string | null;
      firstSeenFilledAt: string | null;
      firstSeenDockedAt: string | null;
    }
    const list = await ok<{ data: { positions: Listed[] } }>('GET', '/v1/positions?limit=10', makerKey);
    const byId = new Map(list.data.positions.map((p) => [p.positionId.toLowerCase(), p]));
    const filled = byId.get(first.toLowerCase());
    const docked = byId.get(second.toLowerCase());
    expect(filled).toMatchObject({ status: 'filled', chain: 'base', observedOnChain: true });
    expect(getAddress(filled!.wallet)).toBe(maker.address);
    expect(filled!.volumeUsd).toBeGreaterThan(0);
    expect(filled!.firstSeenOnChainAt).not.toBeNull();
    expect(filled!.firstSeenFilledAt).not.toBeNull();
    expect(docked).toMatchObject({ status: 'docked', observedOnChain: true });
    expect(docked!.firstSeenDockedAt).not.toBeNull();
    // The status filter reads the same observations.
    const onlyFilled = await ok<{ data: { positions: Listed[] } }>(
      'GET',
      '/v1/positions?status=filled',
      makerKey,
    );
    expect(onlyFilled.data.positions.map((p) => p.positionId.toLowerCase())).toEqual([first.toLowerCase()]);
    // Another key sees none of them.
    const foreign = await ok<{ data: { positions: Listed[] } }>('GET', '/v1/positions', takerKey);
    expect(foreign.data.positions).toEqual([]);

    // The export says the same, row by row.
    const { res, text } = await call('GET', '/v1/positions/export?format=csv', makerKey);
    expect(res.status, text).toBe(200);
    const [header, ...rows] = text.trimEnd().split('\r\n');
    const columns = header!.split(',');
    const cell = (row: string, name: string) => row.split(',')[columns.indexOf(name)];
    const statusOfRow = (id: Hex) =>
      cell(rows.find((r) => cell(r, 'positionId')!.toLowerCase() === id.toLowerCase())!, 'status');
    expect(rows).toHaveLength(2);
    expect([statusOfRow(first), statusOfRow(second)]).toEqual(['filled', 'docked']);
  });

  it('shows the fills in the analytics model (ANALYTICS_TOKEN): the maker and its volume series come from the indexed swaps', async () => {
    await indexer.syncNow();
    await indexer.refreshNow();
    const res = await svc.get('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ANALYTICS_TOKEN}` },
      body: JSON.stringify({
        query: `query ($maker: String!) {
          maker(address: $maker, chain: "base") {
            positions { total open docked }
            activity { days swapCount volumeUsd }
          }
          volumeSeries(granularity: HOUR, chain: "base", maker: $maker) { buckets { swapCount volumeUsd } }
        }`,
        variables: { maker: maker.address },
      }),
    });
    const body = (await res.json()) as {
      data?: {
        maker: {
          positions: { total: number; open: number; docked: number };
          activity: { days: number | null; swapCount: number; volumeUsd: number }[];
        } | null;
        volumeSeries: { buckets: { swapCount: number; volumeUsd: number }[] };
      };
      errors?: unknown;
    };
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body.errors).toBeUndefined();
    const { maker: seen, volumeSeries } = body.data!;
    // The two positions, one docked; the two fills of POST /v1/swaps (the swaps on the docked one were refused).
    expect(seen!.positions).toEqual({ total: 2, open: 1, docked: 1 });
    expect(seen!.activity.length).toBeGreaterThan(0);
    for (const window of seen!.activity) expect(window.swapCount, JSON.stringify(window)).toBe(2);
    const swaps = volumeSeries.buckets.reduce((n, b) => n + b.swapCount, 0);
    const volume = volumeSeries.buckets.reduce((v, b) => v + b.volumeUsd, 0);
    expect(swaps).toBe(2);
    expect(volume).toBeGreaterThan(0);
    expect(volume).toBeCloseTo(seen!.activity[0]!.volumeUsd, 6);
  });

  it('honours the minimum output of a prepared swap and refuses a too-tight one on chain', async () => {
    const honoured = await swapOf(first, 'aToB', 20n * UNIT, { slippageBps: 100, deadlineSeconds: 600 });
    const q = honoured.data.quote;
    expect(BigInt(q.minAmountOut)).toBe((BigInt(q.amountOut) * 9_900n) / 10_000n);
    expect(q.deadline).toBeGreaterThan(Date.now() / 1000 + 590);
    const out = q.tokenOut.address;
    const before = await balanceOf(out, taker.address);
    await sendAll(taker, honoured.data.transactions);
    const received = (await balanceOf(out, taker.address)) - before;
    expect(received).toBeGreaterThanOrEqual(BigInt(q.minAmountOut));
    expect(received).toBe(BigInt(q.amountOut));

    // Two swaps quoted at the same state with no slippage: the first one sent moves the price, so the
    // second one's output falls below its minimum and the router refuses it.
    const tight = await swapOf(first, 'aToB', 50n * UNIT, { slippageBps: 0 });
    const mover = await swapOf(first, 'aToB', 50n * UNIT, { slippageBps: 0 });
    await sendAll(taker, mover.data.transactions);
    const [approve, swap] =
      tight.data.transactions.length === 2 ? tight.data.transactions : [null, tight.data.transactions[0]!];
    if (approve) await send(taker, { to: approve.to, data: approve.data });
    const revert = await chain.call({ account: taker.address, to: swap!.to, data: swap!.data }).then(
      () => null,
      (error: unknown) =>
        error instanceof BaseError
          ? ((error.walk((e) => typeof (e as { data?: unknown }).data === 'string') as { data?: Hex } | null)
              ?.data ?? null)
          : null,
    );
    // TakerTraitsInsufficientMinOutputAmount(uint256 amountOut, uint256 amountOutMin)
    expect(revert?.slice(0, 10)).toBe('0xf44f8993');
    expect(BigInt(`0x${revert!.slice(74, 138)}`)).toBe(BigInt(tight.data.quote.minAmountOut));
  });
});

describe('validation of the new paths: 400 naming the parameter, before any RPC', () => {
  let key: string;
  beforeAll(async () => {
    key = (await svc.createKey({ environment: 'LIVE', label: 'validation' })).key;
  });

  it.each([
    [{ slippageBps: 5001 }, 'slippageBps'],
    [{ deadlineSeconds: 1.5 }, 'deadlineSeconds'],
    [{ direction: 'sideways' }, 'direction'],
    [{ amount: '1e6' }, 'amount'],
    [{ privateKey: '0x01' }, 'privateKey'],
  ])('POST /v1/swaps %j → 400 %s', async (override, parameter) => {
    proxy.reset();
    const body = {
      chain: 'base',
      hash: `0x${'1'.repeat(64)}`,
      wallet: taker.address,
      amount: '1000',
      direction: 'aToB',
      ...override,
    };
    const { res, text } = await call('POST', '/v1/swaps', key, body);
    expect(res.status, text).toBe(400);
    expect(JSON.parse(text).error).toMatchObject({ code: 'INVALID_PARAMETER', parameter });
    expect(proxy.count()).toBe(0);
  });
});
