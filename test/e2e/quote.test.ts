import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Address, encodeFunctionData, type Hex, keccak256, maxUint256, parseEventLogs } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aquaAbi, erc20Abi, routerAbi } from '../../chain/abi.js';
import { approveCalldata, dockCalldata, shipCalldata, swapCalldata } from '../../chain/calldata.js';
import type { ChainClient } from '../../chain/clients.js';
import { decodeStrategy } from '../../chain/order.js';
import { decodeProgram, uintArg } from '../../chain/program.js';
import { ChainRegistry } from '../../chain/registry.js';
import { exactInTakerTraits } from '../../chain/takerTraits.js';
import type { Devnet } from '../../devnet/devnet.js';
import { buildStrategy } from '../../devnet/strategies.js';
import { type Indexer, startIndexer } from '../../indexer/index.js';
import type { ChainConfig } from '../../lib/config.js';
import { query } from '../../store/db.js';
import { startSeededDevnet } from '../helpers/devnetSnapshot.js';
import { until } from '../helpers/load.js';
import { testPort } from '../helpers/ports.js';
import { startTestService, type TestService } from '../helpers/service.js';

/** Devnet ports 19300-19302; a closed port and a port that accepts and never answers. */
const BASE_PORT = testPort(19300);
const CLOSED_PORT = testPort(19309);
const HANGING_PORT = testPort(19308);
const RPC_TIMEOUT_MS = 800;

let devnet: Devnet;
let dataDir: string;
let svc: TestService;
let indexer: Indexer;
let hanging: net.Server;
const hangingSockets = new Set<net.Socket>();
/** Connections to the hanging node that its client closed (a timed-out call is abandoned, not kept open). */
let hangingDropped = 0;
let base: ChainConfig;
let client: ChainClient;
let taker: Address;
let clientCounter = 0;

interface Row {
  chain_key: string;
  strategy_hash: string;
  maker: string;
  app: string;
  strategy: string;
  token_a: string;
  token_b: string;
  pair_key: string | null;
  status: string;
}

async function rows(where: string, values: unknown[] = []): Promise<Row[]> {
  const { rows: found } = await query<Row>(
    svc.services.db,
    `SELECT * FROM strategies WHERE ${where}`,
    values,
  );
  return found;
}

/** Each request from its own client (TRUST_PROXY): the suite makes more than the quote bucket's 60. */
function get(pathAndQuery: string): Promise<Response> {
  clientCounter++;
  return svc.get(pathAndQuery, {
    headers: { 'x-forwarded-for': `10.9.${clientCounter >> 8}.${clientCounter & 255}` },
  });
}

interface Fee {
  amount: string;
  fee1e9: number;
  bps: number;
  percent: string;
  fee1e7: number;
}
interface Token {
  symbol: string;
  address: string;
  decimals: number;
}
interface QuoteBody {
  data: {
    strategyHash: string;
    direction: string;
    router: string;
    tokenIn: Token;
    tokenOut: Token;
    amountIn: string;
    amountOut: string;
    protocolFee: Fee;
    makerFee: Fee | null;
    effectivePrice: number;
    blockNumber: number;
    note: string;
    [more: string]: unknown;
  };
  meta: Record<string, unknown>;
}
interface ErrorBody {
  error: {
    code: string;
    message: string;
    requestId: string;
    retryable: boolean;
    parameter?: string;
    issues?: unknown[];
  };
}

async function quote(params: Record<string, string>) {
  const res = await get(`/api/quote?${new URLSearchParams(params)}`);
  return { res, body: (await res.json()) as QuoteBody };
}

async function expectError(params: string, status: number, code: string, parameter?: string) {
  const res = await get(`/api/quote?${params}`);
  const body = (await res.json()) as ErrorBody;
  expect({ status: res.status, code: body.error.code }).toEqual({ status, code });
  expect(body.error.requestId).toBe(res.headers.get('x-request-id'));
  expect(res.headers.get('ratelimit-policy')).toBe('quote;w=60;limit=60');
  if (parameter !== undefined) expect(body.error.parameter).toBe(parameter);
  return body.error;
}

async function send(from: Address, to: Address, data: Hex) {
  const hash = (await client.request({
    method: 'eth_sendTransaction',
    params: [{ from, to, data }],
  } as never)) as Hex;
  const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 20 });
  expect(receipt.status).toBe('success');
  return receipt;
}

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'quote-e2e-'));
  // The activity bot must not move the pools between a quote and the swap that checks it.
  devnet = await startSeededDevnet({ basePort: BASE_PORT, dataDir, activityMs: 0 });
  base = devnet.chains.find((c) => c.key === 'base')!;
  hanging = net.createServer((socket) => {
    hangingSockets.add(socket);
    // Reads (and drops) what comes, so that it sees its client close the connection.
    socket.resume();
    socket.on('close', () => {
      hangingSockets.delete(socket);
      hangingDropped++;
    });
  });
  await new Promise<void>((resolve) => hanging.listen(HANGING_PORT, '127.0.0.1', resolve));
  const down: ChainConfig = {
    ...base,
    key: 'down',
    chainId: 900001,
    rpcUrl: `http://127.0.0.1:${CLOSED_PORT}`,
  };
  const hang: ChainConfig = {
    ...base,
    key: 'hang',
    chainId: 900002,
    rpcUrl: `http://127.0.0.1:${HANGING_PORT}`,
  };
  // The indexer runs only when the suite says so (syncNow), over the devnet's chains only: the store
  // can then lag the chain on purpose (a dock not indexed yet).
  svc = await startTestService({
    chains: [...devnet.chains, down, hang],
    env: { TRUST_PROXY: '1', RPC_TIMEOUT_MS: String(RPC_TIMEOUT_MS), INDEXER: 'off' },
  });
  indexer = await startIndexer(
    { ...svc.services, registry: new ChainRegistry(devnet.chains) },
    { background: false },
  );
  await indexer.syncNow();
  client = svc.services.clients.get('base');
  const accounts = (await client.request({ method: 'eth_accounts' } as never)) as Address[];
  taker = accounts[4]!; // devnet/seed.ts roles: the taker, which approved the router for every token
}, 120_000);

afterAll(async () => {
  await indexer?.stop();
  await svc?.stop();
  for (const socket of hangingSockets) socket.destroy();
  await new Promise<void>((resolve) => (hanging ? hanging.close(() => resolve()) : resolve()));
  await devnet?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

async function openUsdcUsdt(chain = 'base'): Promise<Row[]> {
  const router = devnet.chains.find((c) => c.key === chain)!.router.toLowerCase();
  return rows(
    "chain_key = $1 AND app = $2 AND pair_key = 'USDC/USDT' AND status = 'active' ORDER BY strategy_hash",
    [chain, router],
  );
}

let saltCounter = 0n;

/** A new USDC/USDT strategy on base, shipped by a devnet maker (accounts 1-3, Aqua approved). */
async function shipFresh(): Promise<{ hash: Hex; maker: Address; tokens: Address[] }> {
  const accounts = (await client.request({ method: 'eth_accounts' } as never)) as Address[];
  const maker = accounts[1]!;
  const usdc = base.tokens.find((t) => t.symbol === 'USDC')!.address as Address;
  const usdt = base.tokens.find((t) => t.symbol === 'USDT')!.address as Address;
  const strategy = buildStrategy({
    maker,
    symbols: ['USDC', 'USDT'],
    tokens: [usdc, usdt],
    amounts: [10_000_000_000n, 10_000_000_000n],
    flatFee1e9: 0,
    feeReceiver: accounts[5]!,
    salt: 0xfeed_0000n + ++saltCounter,
  });
  await send(
    maker,
    base.aqua as Address,
    shipCalldata({
      app: base.router as Address,
      strategy: strategy.strategy,
      tokens: strategy.tokens,
      amounts: strategy.amounts,
    }),
  );
  return { hash: strategy.hash, maker, tokens: [...strategy.tokens] };
}

describe('GET /api/quote on the devnet', () => {
  it('quotes what a swap of the same amount then yields, in both directions', async () => {
    const [row] = await openUsdcUsdt();
    expect(row).toBeDefined();
    const order = decodeStrategy(row!.strategy as Hex)!;
    for (const direction of ['aToB', 'bToA'] as const) {
      const amount = direction === 'aToB' ? '1234567890' : '987654321';
      const { res, body } = await quote({ hash: row!.strategy_hash, chain: 'base', amount, direction });
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-policy')).toBe('quote;w=60;limit=60');
      const q = body.data;
      const [inAddr, outAddr] =
        direction === 'aToB' ? [row!.token_a, row!.token_b] : [row!.token_b, row!.token_a];
      expect(q).toMatchObject({
        strategyHash: row!.strategy_hash,
        chain: 'base',
        chainId: 8453,
        pair: 'USDC/USDT',
        direction,
        exactIn: true,
        amountIn: amount,
        indicative: true,
        signed: false,
      });
      expect(q.router.toLowerCase()).toBe(base.router.toLowerCase());
      expect(q.tokenIn.address.toLowerCase()).toBe(inAddr);
      expect(q.tokenOut.address.toLowerCase()).toBe(outAddr);
      expect(q.tokenIn.decimals).toBe(6);
      expect(['USDC', 'USDT']).toContain(q.tokenIn.symbol);
      expect(q.note).toMatch(/nothing was signed/i);
      expect(body.meta).toMatchObject({ apiVersion: 'v1', requestId: res.headers.get('x-request-id') });
      // Protocol fee: 0.05% rounded down (PROTOCOL.md).
      expect(q.protocolFee).toEqual({
        amount: ((BigInt(amount) * 500_000n) / 1_000_000_000n).toString(),
        fee1e9: 500_000,
        bps: 5000,
        percent: '0.05',
        fee1e7: 5000,
      });
      expect(q.effectivePrice).toBeCloseTo(Number(q.amountOut) / Number(amount), 9);
      const head = await client.getBlockNumber({ cacheTime: 0 });
      expect(q.blockNumber).toBe(Number(head));

      // The taker swaps the same amount: the next block yields exactly the quote.
      const receipt = await send(
        taker,
        base.router as Address,
        swapCalldata({
          order,
          tokenIn: inAddr as Address,
          tokenOut: outAddr as Address,
          amount: BigInt(amount),
          takerTraits: exactInTakerTraits(),
        }),
      );
      expect(receipt.blockNumber).toBe(BigInt(q.blockNumber) + 1n);
      const [swapped] = parseEventLogs({ abi: routerAbi, logs: receipt.logs, eventName: 'Swapped' });
      expect(swapped!.args.orderHash).toBe(row!.strategy_hash);
      expect(swapped!.args.amountIn.toString()).toBe(q.amountIn);
      expect(swapped!.args.amountOut.toString()).toBe(q.amountOut);
      const pulls = parseEventLogs({ abi: aquaAbi, logs: receipt.logs, eventName: 'Pulled' });
      expect(pulls[0]!.args.amount.toString()).toBe(q.protocolFee.amount);
      const received = parseEventLogs({ abi: erc20Abi, logs: receipt.logs, eventName: 'Transfer' }).find(
        (t) => t.args.to.toLowerCase() === taker.toLowerCase(),
      );
      expect(received!.args.value.toString()).toBe(q.amountOut);
    }
  });

  it('reports the maker fee of the program when it has one', async () => {
    const all = await rows("pair_key = 'USDC/USDT' AND status = 'active' ORDER BY chain_key, strategy_hash");
    const withFee = all
      .map((row) => ({
        row,
        flat: decodeProgram(decodeStrategy(row.strategy as Hex)!.data).find(
          (i) => i.name === 'FlatFeeAmountIn',
        ),
      }))
      .find((x) => x.flat !== undefined);
    expect(withFee).toBeDefined(); // the seeded catalogue is deterministic and has some
    const fee1e9 = Number(uintArg(withFee!.flat!, 'fee1e9'));
    const amount = 5_000_000_000n;
    const { res, body } = await quote({
      hash: withFee!.row.strategy_hash,
      chain: withFee!.row.chain_key,
      amount: amount.toString(),
    });
    expect(res.status).toBe(200);
    const protocolFee = (amount * 500_000n) / 1_000_000_000n;
    const makerFee = ((amount - protocolFee) * BigInt(fee1e9) + 999_999_999n) / 1_000_000_000n;
    expect(body.data.makerFee).toEqual({
      amount: makerFee.toString(),
      fee1e9,
      bps: fee1e9 / 100,
      percent: expect.any(String),
      fee1e7: fee1e9 / 100,
    });
    expect(Number(body.data.makerFee?.percent)).toBeCloseTo(fee1e9 / 1e7, 9);
    // A program without FlatFeeAmountIn has no maker fee.
    const plain = all.find(
      (r) =>
        !decodeProgram(decodeStrategy(r.strategy as Hex)!.data).some((i) => i.name === 'FlatFeeAmountIn'),
    );
    if (plain) {
      const other = await quote({ hash: plain.strategy_hash, chain: plain.chain_key, amount: '1000000' });
      expect(other.body.data.makerFee).toBeNull();
    }
  });

  it('defaults direction to aToB and matches the internal GraphQL query', async () => {
    const [row] = await openUsdcUsdt();
    const { body, res } = await quote({ hash: row!.strategy_hash, chain: 'base', amount: '1000000' });
    expect(body.data.direction).toBe('aToB');
    // A simulation at the current block: never reused by a cache (rest/httpCache.ts), no ETag.
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('etag')).toBeNull();
    expect(body.data.tokenIn.address.toLowerCase()).toBe(row!.token_a);
    const gql = await svc.graphql<{ quote: { amountOut: string; blockNumber: string } }>(
      'query($h: String!) { quote(hash: $h, chain: "base", amount: "1000000") { amountOut blockNumber } }',
      { h: row!.strategy_hash },
    );
    expect(gql.quote.amountOut).toBe(body.data.amountOut);
  });

  it('accepts an upper-case hash', async () => {
    const [row] = await openUsdcUsdt();
    const { res, body } = await quote({
      hash: `0x${row!.strategy_hash.slice(2).toUpperCase()}`,
      chain: 'base',
      amount: '1000000',
    });
    expect(res.status).toBe(200);
    expect(body.data.strategyHash).toBe(row!.strategy_hash);
  });
});

describe('refusals', () => {
  it('refuses a strategy of another pair (EURC) with 422 UNPROCESSABLE', async () => {
    const [eurc] = await rows("chain_key = 'base' AND pair_key LIKE '%EURC%' AND status = 'active'");
    expect(eurc).toBeDefined();
    const error = await expectError(
      `hash=${eurc!.strategy_hash}&chain=base&amount=1000000`,
      422,
      'UNPROCESSABLE',
    );
    expect(error.message).toMatch(/EURC/);
    expect(error.message).toMatch(/USDC\/USDT/);
    expect(error.retryable).toBe(false);
  });

  it('refuses a strategy of another app with 422 naming the verified router', async () => {
    const [row] = await openUsdcUsdt();
    const fake = keccak256('0x01');
    await query(
      svc.services.db,
      `INSERT INTO strategies (chain_key, strategy_hash, maker, app, strategy, token_a, token_b, symbol_a, symbol_b,
         pair_key, status, shipped_block, shipped_tx, shipped_at)
       SELECT chain_key, $2, maker, $3, strategy, token_a, token_b, symbol_a, symbol_b, pair_key, status,
         shipped_block, shipped_tx, shipped_at FROM strategies WHERE chain_key = 'base' AND strategy_hash = $1`,
      [row!.strategy_hash, fake, base.aqua.toLowerCase()],
    );
    const error = await expectError(`hash=${fake}&chain=base&amount=1000000`, 422, 'UNPROCESSABLE');
    expect(error.message).toMatch(/verified router/);
    expect(error.message.toLowerCase()).toContain(base.router.toLowerCase());
  });

  it('refuses a docked strategy, whether the chain or the store says so first', async () => {
    const [x, y] = [await shipFresh(), await shipFresh()];
    await indexer.syncNow();
    const params = (hash: Hex) => `hash=${hash}&chain=base&amount=1000000`;
    expect((await quote({ hash: x.hash, chain: 'base', amount: '1000000' })).res.status).toBe(200);
    // The maker closes both (anvil's unlocked account; the test plays the maker).
    for (const s of [x, y]) {
      await send(
        s.maker,
        base.aqua as Address,
        dockCalldata({ app: base.router as Address, strategyHash: s.hash, tokens: s.tokens }),
      );
    }
    // x: the store still says active; the chain (read in the same eth_call as the quote) says docked.
    expect((await rows('strategy_hash = $1', [x.hash]))[0]!.status).toBe('active');
    const onChain = await expectError(params(x.hash), 422, 'UNPROCESSABLE');
    expect(onChain.message).toMatch(/docked on chain at block \d+/);
    // Docking is final: the next refusal needs no simulation and says the same.
    expect((await expectError(params(x.hash), 422, 'UNPROCESSABLE')).message).toMatch(/docked/);
    // y: indexed as docked before its first quote: the store refuses it.
    await indexer.syncNow();
    expect((await rows('strategy_hash = $1', [y.hash]))[0]!.status).toBe('docked');
    const inStore = await expectError(params(y.hash), 422, 'UNPROCESSABLE');
    expect(inStore.message).toMatch(/is docked \(closed by its maker\)/);
  });

  it('refuses a catalogued strategy the chain does not hold with 422', async () => {
    const [row] = await openUsdcUsdt();
    const accounts = (await client.request({ method: 'eth_accounts' } as never)) as Address[];
    const never = buildStrategy({
      maker: accounts[2]!,
      symbols: ['USDC', 'USDT'],
      tokens: [row!.token_a as Address, row!.token_b as Address],
      amounts: [1_000_000n, 1_000_000n],
      flatFee1e9: 0,
      feeReceiver: accounts[5]!,
      salt: 0xdead_beefn,
    });
    await query(
      svc.services.db,
      `INSERT INTO strategies (chain_key, strategy_hash, maker, app, strategy, token_a, token_b, symbol_a, symbol_b,
         pair_key, status, shipped_block, shipped_tx, shipped_at)
       SELECT chain_key, $2, $3, app, $4, token_a, token_b, symbol_a, symbol_b, pair_key, 'active',
         shipped_block, shipped_tx, shipped_at FROM strategies WHERE chain_key = 'base' AND strategy_hash = $1`,
      [row!.strategy_hash, never.hash, never.maker.toLowerCase(), never.strategy],
    );
    const error = await expectError(`hash=${never.hash}&chain=base&amount=1000000`, 422, 'UNPROCESSABLE');
    expect(error.message).toMatch(/not shipped to the verified router/);
  });

  it('turns router reverts into 422 with the decoded reason, never a 500', async () => {
    const [row] = await openUsdcUsdt();
    const zero = await expectError(`hash=${row!.strategy_hash}&chain=base&amount=1`, 422, 'UNPROCESSABLE');
    expect(zero.message).toMatch(/TakerTraitsAmountOutMustBeGreaterThanZero/);
    expect(zero.message).toMatch(/rounds to 0/);
    const max = ((1n << 256n) - 1n).toString();
    const overflow = await expectError(
      `hash=${row!.strategy_hash}&chain=base&amount=${max}`,
      422,
      'UNPROCESSABLE',
    );
    expect(overflow.message).toMatch(/Panic\(17\)/);
  });

  it("refuses with 422 when the quote succeeds but a swap would revert on the maker's wallet", async () => {
    const [row] = await openUsdcUsdt();
    const maker = decodeStrategy(row!.strategy as Hex)!.maker;
    const tokenOut = row!.token_b as Address; // aToB
    const params = `hash=${row!.strategy_hash}&chain=base&amount=1000000000&direction=aToB`;
    // The maker withdraws Aqua's allowance on tokenOut…
    await send(maker, tokenOut, approveCalldata(base.aqua as Address, 0n));
    const allowance = await expectError(params, 422, 'UNPROCESSABLE');
    expect(allowance.message).toMatch(/swap would revert/);
    expect(allowance.issues).toEqual([
      { type: 'MAKER_ALLOWANCE_SHORT', expected: expect.stringMatching(/^>= \d+$/), actual: '0' },
    ]);
    await send(maker, tokenOut, approveCalldata(base.aqua as Address, maxUint256));
    // …then empties its tokenOut wallet.
    const balance = await client.readContract({
      address: tokenOut,
      abi: erc20Abi,
      functionName: 'balanceOf',
      args: [maker],
    });
    const transfer = (to: Address, amount: bigint) =>
      encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, amount] });
    await send(maker, tokenOut, transfer(taker, balance));
    const empty = await expectError(params, 422, 'UNPROCESSABLE');
    expect(empty.issues).toEqual([
      { type: 'MAKER_BALANCE_SHORT', expected: expect.stringMatching(/^>= \d+$/), actual: '0' },
    ]);
    await send(taker, tokenOut, transfer(maker, balance));
    const { res } = await quote({ hash: row!.strategy_hash, chain: 'base', amount: '1000000000' });
    expect(res.status).toBe(200);
  });

  it('answers 404 for a hash the chain does not have, naming where it is when elsewhere', async () => {
    await expectError(`hash=0x${'ab'.repeat(32)}&chain=base&amount=1000000`, 404, 'NOT_FOUND', 'hash');
    const [arcRow] = await openUsdcUsdt('arc');
    const elsewhere = await expectError(
      `hash=${arcRow!.strategy_hash}&chain=base&amount=1000000`,
      404,
      'NOT_FOUND',
    );
    expect(elsewhere.message).toMatch(/"arc"/);
    const { res } = await quote({ hash: arcRow!.strategy_hash, chain: 'arc', amount: '1000000' });
    expect(res.status).toBe(200);
  });

  it('answers 422 UNSUPPORTED_CHAIN with issues for a chain not in the catalogue, and for the default', async () => {
    const hash = `0x${'ab'.repeat(32)}`;
    const keys = 'base, arc, baseSepolia, down, hang';
    const error = await expectError(
      `hash=${hash}&chain=ethereum2&amount=1`,
      422,
      'UNSUPPORTED_CHAIN',
      'chain',
    );
    expect(error.issues).toEqual([{ type: 'UNSUPPORTED_CHAIN', expected: keys, actual: 'ethereum2' }]);
    // No `chain`: SPEC's default `ethereum`, which this devnet does not serve.
    const byDefault = await expectError(`hash=${hash}&amount=1`, 422, 'UNSUPPORTED_CHAIN', 'chain');
    expect(byDefault.issues).toEqual([{ type: 'UNSUPPORTED_CHAIN', expected: keys, actual: 'ethereum' }]);
  });
});

describe('parameters', () => {
  const hash = `0x${'ab'.repeat(32)}`;
  const cases: [string, string][] = [
    ['amount=1&chain=base', 'hash'],
    [`hash=&amount=1&chain=base`, 'hash'],
    [`hash=0x1234&amount=1&chain=base`, 'hash'],
    [`hash=${'ab'.repeat(32)}&amount=1&chain=base`, 'hash'],
    [`hash=0x${'zz'.repeat(32)}&amount=1&chain=base`, 'hash'],
    [`hash=${hash}&hash=${hash}&amount=1&chain=base`, 'hash'],
    [`hash[x]=${hash}&amount=1&chain=base`, 'hash'],
    [`hash=${hash}&chain=base`, 'amount'],
    [`hash=${hash}&amount=&chain=base`, 'amount'],
    [`hash=${hash}&amount=0&chain=base`, 'amount'],
    [`hash=${hash}&amount=-5&chain=base`, 'amount'],
    [`hash=${hash}&amount=1.5&chain=base`, 'amount'],
    [`hash=${hash}&amount=1e6&chain=base`, 'amount'],
    [`hash=${hash}&amount=0x10&chain=base`, 'amount'],
    [`hash=${hash}&amount=${(1n << 256n).toString()}&chain=base`, 'amount'],
    [`hash=${hash}&amount=${'9'.repeat(200)}&chain=base`, 'amount'],
    [`hash=${hash}&amount=1&amount=2&chain=base`, 'amount'],
    [`hash=${hash}&amount=1&direction=up&chain=base`, 'direction'],
    [`hash=${hash}&amount=1&direction=atob&chain=base`, 'direction'],
    [`hash=${hash}&amount=1&direction=aToB&direction=bToA&chain=base`, 'direction'],
    [`hash=${hash}&amount=1&chain=base&chain=arc`, 'chain'],
    [`hash=${hash}&amount=1&chain[k]=base`, 'chain'],
    [`hash=${hash}&amount=1&chain=`, 'chain'],
  ];
  it.each(cases)('400 INVALID_PARAMETER for %s naming %s', async (params, parameter) => {
    const error = await expectError(params, 400, 'INVALID_PARAMETER', parameter);
    expect(error.message).toContain(parameter);
    expect(error.retryable).toBe(false);
  });

  it('answers 405 to another method', async () => {
    const res = await svc.get('/api/quote', { method: 'POST', headers: { 'x-forwarded-for': '10.8.0.1' } });
    expect(res.status).toBe(405);
  });
});

describe('upstream failures', () => {
  async function copyTo(chainKey: string) {
    const [row] = await openUsdcUsdt();
    await query(
      svc.services.db,
      `INSERT INTO strategies (chain_key, strategy_hash, maker, app, strategy, token_a, token_b, symbol_a, symbol_b,
         pair_key, status, shipped_block, shipped_tx, shipped_at)
       SELECT $2, strategy_hash, maker, app, strategy, token_a, token_b, symbol_a, symbol_b, pair_key, status,
         shipped_block, shipped_tx, shipped_at FROM strategies WHERE chain_key = 'base' AND strategy_hash = $1
       ON CONFLICT DO NOTHING`,
      [row!.strategy_hash, chainKey],
    );
    return row!.strategy_hash;
  }

  it('gives the retryable 503 envelope when the RPC node is down', async () => {
    const hash = await copyTo('down');
    const error = await expectError(`hash=${hash}&chain=down&amount=1000000`, 503, 'UPSTREAM_UNAVAILABLE');
    expect(error.retryable).toBe(true);
    expect(error.message).toMatch(/"down"/);
  });

  it('gives the retryable 504 envelope when the RPC node hangs', async () => {
    const hash = await copyTo('hang');
    const dropped = hangingDropped;
    const started = performance.now();
    // The node never answers: an answer at all is the service's own bound (a missing one would run
    // into the test's timeout).
    const error = await expectError(`hash=${hash}&chain=hang&amount=1000000`, 504, 'UPSTREAM_TIMEOUT');
    const elapsed = performance.now() - started;
    expect(error.retryable).toBe(true);
    // The configured timeout fired (not an earlier failure)…
    expect(elapsed).toBeGreaterThanOrEqual(RPC_TIMEOUT_MS - 50);
    // …and the call was abandoned: the service closed its connection to the hanging node.
    await until(
      async () => hangingDropped,
      (n) => n > dropped,
    );
    expect(hangingDropped).toBeGreaterThan(dropped);
  });
});
