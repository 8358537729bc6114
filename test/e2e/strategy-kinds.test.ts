/**
 * Positions of every kind on the devnet, no shortcut: prepared over HTTP, every returned step signed
 * and sent unchanged by the maker's wallet, then a taker's swap prepared by POST /v1/swaps and sent as
 * returned (its minimum output honoured), then dock. Beside them, what a kind refuses: a bad range,
 * deposits off the peg, an Idempotency-Key reused with another kind.
 */
import { randomUUID } from 'node:crypto';
import { type Address, type Hex, parseEther } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { erc20Abi } from '../../chain/abi.js';
import type { ChainClient } from '../../chain/clients.js';
import type { Indexer } from '../../indexer/index.js';
import { testPort } from '../helpers/ports.js';
import type { TestService } from '../helpers/service.js';
import {
  MNEMONIC,
  mintCalldata,
  startWritePath,
  type Tx,
  UNIT,
  type WritePath,
} from '../helpers/writePath.js';

const BASE_PORT = testPort(19986);
const PROXY_PORT = testPort(19989);
let w: WritePath;
let svc: TestService;
let indexer: Indexer;
let chain: ChainClient;
let makerKey: string;
let takerKey: string;
const maker = mnemonicToAccount(MNEMONIC, { addressIndex: 9 });
const taker = mnemonicToAccount(MNEMONIC, { addressIndex: 11 });

interface Instruction {
  name: string;
  args: { name: string; value: string }[];
}
interface Prepared {
  strategyHash: Hex;
  transactions: Tx[];
  position: {
    strategy: {
      kind: string;
      priceRange: { min: string; max: string } | null;
      sqrtPriceMin: string | null;
      sqrtPriceMax: string | null;
      pegPrice: string | null;
      flatBandPercent: number | null;
      openingPrice: number | null;
      program: { decoded: boolean; instructions: Instruction[] };
    };
  };
  preflight: { status: string; checks: { name: string; ok: boolean; detail: string | null }[] };
  calls: Bundle;
}
interface Bundle {
  version: string;
  chainId: string;
  from: string;
  atomicRequired: boolean;
  calls: { to: string; data: string; value: string }[];
}
const bundleOf = (from: string, txs: readonly Tx[]): Bundle => ({
  version: '2.0.0',
  chainId: '0x2105',
  from,
  atomicRequired: false,
  calls: txs.map((t) => ({ to: t.to, data: t.data, value: `0x${BigInt(t.value).toString(16)}` })),
});

interface Envelope {
  error: { code: string; parameter?: string; message: string; issues?: { type: string }[] };
}

async function call(
  method: string,
  path: string,
  key: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const res = await svc.get(path, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as unknown };
}

const intent = (strategy: unknown, amounts: [bigint, bigint] = [100_000n * UNIT, 100_000n * UNIT]) => ({
  chain: 'base',
  wallet: maker.address,
  deposits: [
    { symbol: 'USDC', amount: amounts[0].toString() },
    { symbol: 'USDT', amount: amounts[1].toString() },
  ],
  makerFeeBps: 1000,
  ...(strategy === undefined ? {} : { strategy }),
});

async function prepare(strategy: unknown, headers: Record<string, string> = {}): Promise<Prepared> {
  const { status, body } = await call('POST', '/v1/positions', makerKey, intent(strategy), headers);
  expect(status, JSON.stringify(body)).toBe(200);
  return (body as { data: Prepared }).data;
}

const STABLE_USD = 0.98;

const balanceOf = (t: Address, who: Address) =>
  chain.readContract({ address: t, abi: erc20Abi, functionName: 'balanceOf', args: [who] });

beforeAll(async () => {
  // Both stablecoins a little under a dollar, so a range's USD bounds differ from its token prices.
  w = await startWritePath({
    basePort: BASE_PORT,
    proxyPort: PROXY_PORT,
    name: 'kinds-e2e',
    env: { TOKEN_PRICES_USD: `USDC=${STABLE_USD},USDT=${STABLE_USD}` },
  });
  ({ svc, indexer, chain } = w);
  makerKey = (await svc.createKey({ environment: 'LIVE', prepareLimitPerMinute: 1000, label: 'maker' })).key;
  takerKey = (await svc.createKey({ environment: 'LIVE', prepareLimitPerMinute: 1000, label: 'taker' })).key;
  for (const symbol of ['USDC', 'USDT']) {
    await w.send(maker, { to: w.token(symbol), data: mintCalldata(maker.address, 10_000_000n * UNIT) });
    await w.send(maker, { to: w.token(symbol), data: mintCalldata(taker.address, 1_000_000n * UNIT) });
  }
  await w.send(maker, { to: taker.address, data: '0x', value: parseEther('1') });
}, 180_000);

afterAll(async () => {
  await w?.stop();
});

describe('a position of each kind, opened, traded and docked as returned', () => {
  const kinds: [string, unknown, string[]][] = [
    ['xyc', undefined, ['AquaProtocolFeeAmountIn', 'FlatFeeAmountIn', 'XYCSwap', 'Salt']],
    [
      'concentrated',
      { kind: 'concentrated', priceRange: { min: '0.995', max: '1.005' } },
      ['AquaProtocolFeeAmountIn', 'XYCConcentrateGrowLiquidity2D', 'FlatFeeAmountIn', 'XYCSwap', 'Salt'],
    ],
    [
      'pegged',
      { kind: 'pegged' },
      ['AquaProtocolFeeAmountIn', 'FlatFeeAmountIn', 'PeggedSwapGrowPriceRange2D', 'Salt'],
    ],
  ];
  const outputs = new Map<string, bigint>();

  for (const [kind, strategy, names] of kinds) {
    it(`${kind}: the program it says, shipped, swapped at the quote through /v1/swaps, topped up, docked`, async () => {
      const p = await prepare(strategy);
      expect(p.position.strategy.kind).toBe(kind);
      expect(p.position.strategy.program.decoded).toBe(true);
      expect(p.position.strategy.program.instructions.map((i) => i.name)).toEqual(names);
      expect(p.preflight.checks.find((c) => c.name === 'fees_wiring')?.ok).toBe(true);
      // The same steps as an EIP-5792 bundle for wallet_sendCalls.
      expect(p.calls).toEqual(bundleOf(maker.address, p.transactions));
      if (kind === 'concentrated') {
        expect(p.position.strategy.priceRange).toEqual({ min: '0.995', max: '1.005' });
        expect(p.position.strategy.openingPrice).toBeCloseTo(1, 4);
      }
      if (kind === 'pegged')
        expect(p.position.strategy).toMatchObject({ pegPrice: '1', flatBandPercent: 0.2 });
      await w.sendAll(maker, p.transactions);
      await indexer.syncNow();

      const amount = 10_000n * UNIT;
      const { status, body } = await call('POST', '/v1/swaps', takerKey, {
        chain: 'base',
        hash: p.strategyHash,
        wallet: taker.address,
        amount: amount.toString(),
        direction: 'aToB',
      });
      expect(status, JSON.stringify(body)).toBe(200);
      const swap = (
        body as {
          data: {
            transactions: Tx[];
            calls: Bundle;
            quote: { amountOut: string; minAmountOut: string; tokenOut: { address: Address } };
          };
        }
      ).data;
      expect(swap.calls).toEqual(bundleOf(taker.address, swap.transactions));
      const before = await balanceOf(swap.quote.tokenOut.address, taker.address);
      await w.sendAll(taker, swap.transactions);
      const received = (await balanceOf(swap.quote.tokenOut.address, taker.address)) - before;
      expect(received).toBe(BigInt(swap.quote.amountOut));
      expect(received).toBeGreaterThanOrEqual(BigInt(swap.quote.minAmountOut));
      outputs.set(kind, received);

      // Top-up: the approvals that restore the allowance the fill used (sent as returned), then health ok.
      await indexer.syncNow();
      const topUp = await call('POST', `/v1/positions/${p.strategyHash}/approvals`, makerKey);
      expect(topUp.status, JSON.stringify(topUp.body)).toBe(200);
      await w.sendAll(maker, (topUp.body as { data: { transactions: Tx[] } }).data.transactions);
      const healthy = await call('GET', `/v1/positions/${p.strategyHash}`, makerKey);
      expect((healthy.body as { data: { health: { status: string } } }).data.health.status).toBe('ok');

      const dock = await call('POST', `/v1/positions/${p.strategyHash}/dock`, makerKey);
      expect(dock.status, JSON.stringify(dock.body)).toBe(200);
      const docking = (dock.body as { data: { transactions: Tx[]; calls: Bundle } }).data;
      expect(docking.calls).toEqual(bundleOf(maker.address, docking.transactions));
      await w.sendAll(maker, docking.transactions);
      await indexer.syncNow();
      const after = await call('GET', `/v1/positions/${p.strategyHash}`, makerKey);
      expect((after.body as { data: { status: string } }).data.status).toBe('docked');
    });
  }

  it('the catalogue lists each kind, and filters by it', async () => {
    // Open ones (those above are docked): the public list shows open strategies.
    const opened: Hex[] = [];
    for (const strategy of [
      { kind: 'concentrated', priceRange: { min: '0.99', max: '1.01' } },
      { kind: 'pegged' },
    ]) {
      const p = await prepare(strategy);
      await w.sendAll(maker, p.transactions);
      opened.push(p.strategyHash);
    }
    await indexer.syncNow();
    // The detail says the kind and, for the range, its bounds in prices (of tokenA in tokenB).
    const detail = (await (await svc.get(`/api/strategy-detail?chain=base&hash=${opened[0]}`)).json()) as {
      data: {
        kind: string;
        priceRange: {
          of: string;
          in: string;
          min: number;
          max: number;
          minUsd: number;
          maxUsd: number;
        } | null;
      };
    };
    expect(detail.data.kind).toBe('concentrated');
    const { minUsd, maxUsd, ...range } = detail.data.priceRange!;
    expect(new Set([range.of, range.in])).toEqual(new Set(['USDC', 'USDT']));
    expect(range.min).toBeGreaterThan(0.985);
    expect(range.min).toBeLessThan(0.995);
    expect(range.max).toBeGreaterThan(1.005);
    expect(range.max).toBeLessThan(1.0105);
    // And in USD: a whole `of` at each bound is worth the bound in `in`, at `in`'s price.
    expect(minUsd).toBeCloseTo(range.min * STABLE_USD, 8);
    expect(maxUsd).toBeCloseTo(range.max * STABLE_USD, 8);
    const pegged = (await (await svc.get(`/api/strategy-detail?chain=base&hash=${opened[1]}`)).json()) as {
      data: { kind: string; priceRange: unknown };
    };
    expect([pegged.data.kind, pegged.data.priceRange]).toEqual(['pegged', null]);
    for (const kind of ['xyc', 'concentrated', 'pegged']) {
      const res = await svc.get(`/api/strategies?chain=base&kind=${kind}&limit=100&resource=list`);
      const body = (await res.json()) as {
        data: { strategies: { hash: string; kind: string; status: string; priceRange: unknown }[] };
      };
      expect(res.status).toBe(200);
      expect(body.data.strategies.length).toBeGreaterThan(0);
      expect(new Set(body.data.strategies.map((s) => s.kind))).toEqual(new Set([kind]));
      // The list gives a range in prices as the detail does, and null for a curve without one.
      if (kind === 'concentrated') {
        const listed = body.data.strategies.find((s) => s.hash === opened[0]);
        expect(listed?.priceRange).toEqual(range);
        expect(body.data.strategies.every((s) => s.priceRange !== null)).toBe(true);
      } else {
        expect(body.data.strategies.every((s) => s.priceRange === null)).toBe(true);
      }
    }
    const bad = await svc.get('/api/strategies?kind=curvy');
    expect([bad.status, ((await bad.json()) as Envelope).error.parameter]).toEqual([400, 'kind']);
  });

  it('gives the taker more from the same deposit under the concentrated and pegged curves than x·y=k', () => {
    const xyc = outputs.get('xyc')!;
    expect(outputs.get('concentrated')!).toBeGreaterThan(xyc);
    expect(outputs.get('pegged')!).toBeGreaterThan(xyc);
  });
});

describe('the edge of a concentrated range', () => {
  it('quotes within what the strategy holds, and refuses past it (the router would quote, the swap revert)', async () => {
    const { status, body } = await call(
      'POST',
      '/v1/positions',
      makerKey,
      intent({ kind: 'concentrated', priceRange: { min: '0.995', max: '1.005' } }, [
        1_000n * UNIT,
        1_000n * UNIT,
      ]),
    );
    expect(status).toBe(200);
    const p = (body as { data: Prepared }).data;
    await w.sendAll(maker, p.transactions);
    await indexer.syncNow();
    const quote = (amount: bigint) =>
      svc.get(`/api/quote?chain=base&hash=${p.strategyHash}&amount=${amount}&direction=aToB`);
    const inside = await quote(500n * UNIT);
    expect(inside.status).toBe(200);
    const past = await quote(5_000n * UNIT);
    const error = ((await past.json()) as Envelope).error;
    expect([past.status, error.code, error.issues?.map((i) => i.type)]).toEqual([
      422,
      'UNPROCESSABLE',
      ['STRATEGY_BALANCE_SHORT'],
    ]);
    expect(error.message).toMatch(/past the edge of its price range/);
  });
});

describe('what a kind refuses', () => {
  const refused = async (body: unknown) => {
    const { status, body: answer } = await call('POST', '/v1/positions', makerKey, body);
    return { status, error: (answer as Envelope).error };
  };

  it('a range whose min is not below its max: 422 naming strategy.priceRange, with an issue', async () => {
    const { status, error } = await refused(
      intent({ kind: 'concentrated', priceRange: { min: '1.01', max: '1.0' } }),
    );
    expect([status, error.code, error.parameter, error.issues?.[0]?.type]).toEqual([
      422,
      'UNPROCESSABLE',
      'strategy.priceRange',
      'INVALID_PRICE_RANGE',
    ]);
  });

  it('deposits off the peg: 422 naming deposits, saying what would fit', async () => {
    const { status, error } = await refused(intent({ kind: 'pegged' }, [100_000n * UNIT, 90_000n * UNIT]));
    expect([status, error.code, error.parameter, error.issues?.[0]?.type]).toEqual([
      422,
      'UNPROCESSABLE',
      'deposits',
      'DEPOSITS_OFF_PEG',
    ]);
    expect(error.message).toMatch(/deposit about 90000 USDC/);
    // The same deposits fit a peg of 100000/90000.
    const { status: fits } = await call('POST', '/v1/positions', makerKey, {
      ...intent({ kind: 'pegged', pegPrice: '1.1111' }, [100_000n * UNIT, 90_000n * UNIT]),
    });
    expect(fits).toBe(200);
  });

  it('a range without the market price, or deposits that open it far from it: 422 naming the field', async () => {
    const off = await refused(intent({ kind: 'concentrated', priceRange: { min: '1.01', max: '1.05' } }));
    expect([off.status, off.error.parameter, off.error.issues?.[0]?.type]).toEqual([
      422,
      'strategy.priceRange',
      'RANGE_OFF_MARKET',
    ]);
    const lopsided = await refused(
      intent({ kind: 'concentrated', priceRange: { min: '0.98', max: '1.02' } }, [
        100_000n * UNIT,
        20_000n * UNIT,
      ]),
    );
    expect([lopsided.status, lopsided.error.parameter, lopsided.error.issues?.[0]?.type]).toEqual([
      422,
      'deposits',
      'DEPOSITS_OFF_MARKET',
    ]);
    expect(lopsided.error.message).toMatch(/For 100000 USDC, deposit about [\d.]+ USDT/);
  });

  it('malformed kinds and fields are 400 naming the field', async () => {
    const cases: [unknown, string][] = [
      [{ kind: 'curvy' }, 'strategy.kind'],
      [{ kind: 'concentrated' }, 'strategy.priceRange'],
      [{ kind: 'concentrated', priceRange: { min: '-1', max: '2' } }, 'strategy.priceRange.min'],
      [{ kind: 'pegged', flatBandPercent: 0 }, 'strategy.flatBandPercent'],
      [{ kind: 'pegged', flatBandPercent: 1e-14 }, 'strategy.flatBandPercent'],
      [{ kind: 'xyc', priceRange: { min: '1', max: '2' } }, 'strategy.priceRange'],
    ];
    for (const [strategy, parameter] of cases) {
      const { status, error } = await refused(intent(strategy));
      expect([JSON.stringify(strategy), status, error.code, error.parameter]).toEqual([
        JSON.stringify(strategy),
        400,
        'INVALID_PARAMETER',
        parameter,
      ]);
    }
  });

  it('an Idempotency-Key covers the kind: the same key with another kind is 422, with the same one the same hash', async () => {
    const key = randomUUID();
    const first = await prepare({ kind: 'pegged' }, { 'idempotency-key': key });
    const again = await prepare({ kind: 'pegged' }, { 'idempotency-key': key });
    expect(again.strategyHash).toBe(first.strategyHash);
    const other = await call(
      'POST',
      '/v1/positions',
      makerKey,
      intent({ kind: 'pegged', flatBandPercent: 0.5 }),
      {
        'idempotency-key': key,
      },
    );
    expect([other.status, (other.body as Envelope).error.code]).toEqual([422, 'UNPROCESSABLE']);
    // A price is of the second deposit in the first: the same range over the deposits swapped is another
    // position, and so another body for this Idempotency-Key.
    const ranged = randomUUID();
    const range = { kind: 'concentrated', priceRange: { min: '0.98', max: '1.02' } };
    await prepare(range, { 'idempotency-key': ranged });
    const swapped = intent(range);
    swapped.deposits.reverse();
    const reversed = await call('POST', '/v1/positions', makerKey, swapped, { 'idempotency-key': ranged });
    expect([reversed.status, (reversed.body as Envelope).error.code]).toEqual([422, 'UNPROCESSABLE']);
    // The defaults written out are the same body.
    const defaults = randomUUID();
    const implicit = await prepare({ kind: 'pegged' }, { 'idempotency-key': defaults });
    const spelled = await prepare(
      { kind: 'pegged', pegPrice: '1.0', flatBandPercent: 0.2 },
      { 'idempotency-key': defaults },
    );
    expect(spelled.strategyHash).toBe(implicit.strategyHash);
  });
});
