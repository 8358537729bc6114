/**
 * The write path end to end on the devnet, no shortcut: a key made through the internal GraphQL, a
 * prepare for a funded wallet, the returned transactions signed and sent by that wallet in step order,
 * the indexer's sync (→ shipped), a taker's swap against the new strategy (→ filled), a second prepare
 * that needs no approval, idempotency under concurrency, the 404 that does not tell keys apart, and
 * the RPC round trips of a prepare counted by a proxy in front of anvil.
 */

import { randomUUID } from 'node:crypto';
import { type Address, decodeFunctionData, getAddress, type Hex, keccak256, parseEther } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aquaAbi, erc20Abi, routerAbi } from '../../chain/abi.js';
import { approveCalldata, swapCalldata } from '../../chain/calldata.js';
import type { ChainClient } from '../../chain/clients.js';
import { decodeStrategy } from '../../chain/order.js';
import { decodeProgram } from '../../chain/program.js';
import { exactInTakerTraits } from '../../chain/takerTraits.js';
import type { Indexer } from '../../indexer/index.js';
import type { ChainConfig } from '../../lib/config.js';
import { query } from '../../store/db.js';
import { testPort } from '../helpers/ports.js';
import type { RpcProxy } from '../helpers/rpcProxy.js';
import type { TestService } from '../helpers/service.js';
import {
  MNEMONIC,
  mintCalldata,
  startWritePath,
  type Tx,
  UNIT,
  type WritePath,
} from '../helpers/writePath.js';

/** Devnet on 19200-19202; the counting RPC proxy in front of base on 19203. */
const BASE_PORT = testPort(19200);
const PROXY_PORT = testPort(19203);
let w: WritePath;
let proxy: RpcProxy;
let svc: TestService;
let indexer: Indexer;
let base: ChainConfig;
let chain: ChainClient;
let keyA: string;
let keyB: string;
let keyAId: string;

const maker = mnemonicToAccount(MNEMONIC, { addressIndex: 9 });
const taker = mnemonicToAccount(MNEMONIC, { addressIndex: 10 });

interface Token {
  symbol: string;
  address: Address;
  amount: string;
  decimals: number;
}
interface Prepared {
  data: {
    status: string;
    chain: string;
    chainId: number;
    wallet: Address;
    strategyHash: Hex;
    transactions: Tx[];
    fee: Record<string, unknown>;
    position: { tokenA: Token; tokenB: Token; impliedRate: number | null; programBytes: number };
    preflight: {
      status: string;
      checks: { name: string; ok: boolean; detail: string | null }[];
      issues: { type: string; expected: string; actual: string; spender: string | null; token: string }[];
    };
    idempotent: boolean;
    metadata?: Record<string, string>;
  };
  meta: Record<string, unknown>;
}
interface Status {
  data: {
    positionId: Hex;
    strategyHash: Hex;
    status: string;
    observedOnChain: boolean;
    volumeUsd: number | null;
    firstSeenOnChainAt: string | null;
    firstSeenFilledAt: string | null;
    preparedAt: string;
    signer: string;
    tokenA: Token;
    tokenB: Token;
    makerFeeBps: number;
    protocolFeeBps: number;
    wallet: Address;
  };
  meta: Record<string, unknown>;
}

const token = (symbol: string) => w.token(symbol);

function prepare(body: Record<string, unknown>, options: { key?: string; idempotencyKey?: string } = {}) {
  return svc.get('/v1/positions', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${options.key ?? keyA}`,
      ...(options.idempotencyKey ? { 'idempotency-key': options.idempotencyKey } : {}),
    },
    body: JSON.stringify(body),
  });
}

async function prepared(res: Response): Promise<Prepared> {
  const text = await res.text();
  expect(res.status, text).toBe(200);
  return JSON.parse(text) as Prepared;
}

function status(id: string, key = keyA) {
  return svc.get(`/v1/positions/${id}`, { headers: { authorization: `Bearer ${key}` } });
}

async function statusOf(id: string): Promise<Status> {
  const res = await status(id);
  const text = await res.text();
  expect(res.status, text).toBe(200);
  return JSON.parse(text) as Status;
}

/** Sends as the integrator would: signed locally by the wallet, one after the other. */
const send: WritePath['send'] = (account, tx) => w.send(account, tx);

const intent = (overrides: Record<string, unknown> = {}) => ({
  chain: 'base',
  wallet: maker.address,
  deposits: [
    { symbol: 'USDT', amount: (1_000n * UNIT).toString() },
    { symbol: 'USDC', amount: (2_000n * UNIT).toString() },
  ],
  ...overrides,
});

beforeAll(async () => {
  // The activity bot stays idle: the suite's own transactions are the only activity. The gateway
  // reaches base only through the counting proxy; the indexer reads the chain directly.
  w = await startWritePath({ basePort: BASE_PORT, proxyPort: PROXY_PORT, name: 'positions-e2e' });
  ({ base, proxy, svc, indexer, chain } = w);
  const a = await svc.createKey({ environment: 'LIVE', prepareLimitPerMinute: 1000, label: 'e2e A' });
  keyA = a.key;
  keyAId = a.keyId;
  keyB = (await svc.createKey({ environment: 'LIVE', prepareLimitPerMinute: 1000, label: 'e2e B' })).key;

  // The integrator's wallet holds tokens (the devnet TestToken mints to anyone); the taker gets gas.
  for (const symbol of ['USDC', 'USDT']) {
    await send(maker, {
      to: token(symbol),
      data: mintCalldata(maker.address, 1_000_000n * UNIT),
    });
  }
  await send(maker, { to: taker.address, data: '0x', value: parseEther('1') });
}, 180_000);

afterAll(async () => {
  await w?.stop();
});

describe('the lifecycle of a position on the devnet', () => {
  let first: Prepared;
  const idempotencyKey = randomUUID();

  it('prepares approve, approve, ship for a wallet without allowances, in one RPC round trip', async () => {
    proxy.reset();
    first = await prepared(
      await prepare(intent({ makerFeeBps: 30_000, checkBalances: true, metadata: { orderRef: 'e2e-1' } }), {
        idempotencyKey,
      }),
    );
    expect(proxy.requests()).toEqual([{ methods: ['eth_call'] }]);

    const d = first.data;
    expect(d.status).toBe('prepared');
    expect([d.chain, d.chainId, d.wallet]).toEqual(['base', 8453, maker.address]);
    expect(d.idempotent).toBe(true);
    expect(d.metadata).toEqual({ orderRef: 'e2e-1' });
    expect(first.meta.note).toMatch(/Nothing has been signed or broadcast/);
    expect(Date.parse(String(first.meta.preparedAt))).toBeGreaterThan(Date.now() - 60_000);

    // tokenA is the lower address, whatever the order of the deposits.
    const [lower, higher] = [token('USDC'), token('USDT')].sort((x, y) =>
      x.toLowerCase() < y.toLowerCase() ? -1 : 1,
    );
    expect(d.position.tokenA.address).toBe(getAddress(lower!));
    expect(d.position.tokenB.address).toBe(getAddress(higher!));
    const amountOf = (address: string) =>
      (address.toLowerCase() === token('USDC').toLowerCase() ? 2_000n : 1_000n) * UNIT;
    expect(d.position.tokenA.amount).toBe(amountOf(lower!).toString());
    expect(d.position.tokenA.decimals).toBe(6);
    expect(d.position.impliedRate).toBeCloseTo(Number(amountOf(lower!)) / Number(amountOf(higher!)), 12);
    expect(d.position.programBytes).toBe(26 + 6 + 2 + 10);

    expect(d.fee).toEqual({
      protocolFeeBps: 5000,
      protocolFeePercent: '0.05',
      makerFeeBps: 30000,
      makerFeePercent: '0.3',
      totalFeePercent: '0.35',
      embeddedIn: 'signed_order_data',
      removable: false,
      explanation: expect.stringContaining('0.05%'),
      protocolFee1e7: 5000,
      makerFee1e7: 30000,
    });

    expect(d.transactions.map((t) => [t.step, t.purpose, t.to, t.value])).toEqual([
      [1, 'approve', getAddress(lower!), '0'],
      [2, 'approve', getAddress(higher!), '0'],
      [3, 'ship', getAddress(base.aqua), '0'],
    ]);
    for (const tx of d.transactions) expect(tx.description.length).toBeGreaterThan(40);
    expect(d.transactions[0]!.data).toBe(approveCalldata(base.aqua as Address, amountOf(lower!)));
    expect(d.transactions[1]!.data).toBe(approveCalldata(base.aqua as Address, amountOf(higher!)));

    // ship(router, strategy, [tokenA, tokenB], [amountA, amountB]) with the fee-carrying order.
    const ship = decodeFunctionData({ abi: aquaAbi, data: d.transactions[2]!.data });
    expect(ship.functionName).toBe('ship');
    const [app, strategy, tokens, amounts] = ship.args as [Address, Hex, Address[], bigint[]];
    expect(app).toBe(getAddress(base.router));
    expect(tokens).toEqual([getAddress(lower!), getAddress(higher!)]);
    expect(amounts).toEqual([amountOf(lower!), amountOf(higher!)]);
    expect(keccak256(strategy)).toBe(d.strategyHash);
    const order = decodeStrategy(strategy)!;
    expect(order.maker).toBe(maker.address);
    expect(order.traits).toBe(1n << 254n);
    const program = decodeProgram(order.data);
    expect(program.map((i) => i.name)).toEqual([
      'AquaProtocolFeeAmountIn',
      'FlatFeeAmountIn',
      'XYCSwap',
      'Salt',
    ]);
    expect(program[0]!.typedArgs).toEqual([
      { name: 'fee1e9', type: 'uint32', value: '500000' },
      { name: 'receiver', type: 'address', value: getAddress(base.feeReceiver) },
    ]);
    expect(program[1]!.typedArgs).toEqual([{ name: 'fee1e9', type: 'uint32', value: '3000000' }]);
    // The devnet router hashes the order to the same strategy hash.
    expect(
      await chain.readContract({
        address: base.router as Address,
        abi: routerAbi,
        functionName: 'hash',
        args: [order],
      }),
    ).toBe(d.strategyHash);

    expect(d.preflight.status).toBe('ready');
    expect(d.preflight.checks.map((c) => [c.name, c.ok])).toEqual([
      ['wallet_valid', true],
      ['tokens_sorted', true],
      ['both_amounts_positive', true],
      ['fees_wiring', true],
      ['balance_a', true],
      ['balance_b', true],
    ]);
    expect(d.preflight.checks[4]!.detail).toContain(d.position.tokenA.symbol);
    expect(d.preflight.checks[5]!.detail).toContain(d.position.tokenB.symbol);
    expect(d.preflight.issues).toEqual([]);
  });

  it('reports a prepared position as prepared until it is seen on chain', async () => {
    const s = await statusOf(first.data.strategyHash);
    expect(s.data).toMatchObject({
      positionId: first.data.strategyHash,
      strategyHash: first.data.strategyHash,
      status: 'prepared',
      observedOnChain: false,
      volumeUsd: null,
      firstSeenOnChainAt: null,
      firstSeenFilledAt: null,
      makerFeeBps: 30000,
      protocolFeeBps: 5000,
      wallet: maker.address,
    });
    expect(s.data.signer).toMatch(/client signs/);
    expect(s.meta.timestampsMeaning).toMatch(/first observed/);
    expect(Date.parse(String(s.meta.checkedAt))).toBeGreaterThan(Date.now() - 60_000);
  });

  it('becomes shipped once the wallet has sent the transactions and the indexer has seen them', async () => {
    for (const tx of first.data.transactions) {
      await send(maker, { to: tx.to, data: tx.data, value: BigInt(tx.value) });
    }
    await indexer.syncNow();
    const s = await statusOf(first.data.strategyHash);
    expect(s.data.status).toBe('shipped');
    expect(s.data.observedOnChain).toBe(true);
    expect(s.data.volumeUsd).toBe(0);
    expect(Date.parse(s.data.firstSeenOnChainAt!)).toBeGreaterThanOrEqual(Date.parse(s.data.preparedAt));
    expect(s.data.firstSeenFilledAt).toBeNull();
  });

  it('becomes filled once a taker has swapped against it', async () => {
    const ship = decodeFunctionData({ abi: aquaAbi, data: first.data.transactions[2]!.data });
    const strategy = ship.args[1] as Hex;
    const order = decodeStrategy(strategy)!;
    const tokenIn = token('USDC');
    await send(maker, { to: tokenIn, data: mintCalldata(taker.address, 100n * UNIT) });
    await send(taker, { to: tokenIn, data: approveCalldata(base.router as Address, 100n * UNIT) });
    await send(taker, {
      to: base.router as Address,
      data: swapCalldata({
        order,
        tokenIn,
        tokenOut: token('USDT'),
        amount: 50n * UNIT,
        takerTraits: exactInTakerTraits(),
      }),
    });
    await indexer.syncNow();
    await indexer.refreshNow();
    const s = await statusOf(first.data.strategyHash);
    expect(s.data.status).toBe('filled');
    expect(s.data.volumeUsd).toBeGreaterThan(0);
    expect(Date.parse(s.data.firstSeenFilledAt!)).toBeGreaterThanOrEqual(
      Date.parse(s.data.firstSeenOnChainAt!),
    );
  });

  it('sizes the approvals of a second position on the wallet to cover the first one too', async () => {
    // One allowance serves both strategies: the first one's live virtual balances plus the new amounts.
    const committed = async (symbol: string) => {
      const [balance] = await chain.readContract({
        address: base.aqua as Address,
        abi: aquaAbi,
        functionName: 'rawBalances',
        args: [maker.address, base.router as Address, first.data.strategyHash, token(symbol)],
      });
      return balance;
    };
    const allowance = (symbol: string) =>
      chain.readContract({
        address: token(symbol),
        abi: erc20Abi,
        functionName: 'allowance',
        args: [maker.address, base.aqua as Address],
      });
    proxy.reset();
    const second = await prepared(
      await prepare(
        intent({
          deposits: [
            { symbol: 'USDC', amount: (500n * UNIT).toString() },
            { symbol: 'USDT', amount: (500n * UNIT).toString() },
          ],
        }),
      ),
    );
    expect(proxy.count()).toBe(1);
    const [lower, higher] = [token('USDC'), token('USDT')].sort((x, y) =>
      x.toLowerCase() < y.toLowerCase() ? -1 : 1,
    ) as [Address, Address];
    // The fill used part of both allowances (the protocol fee of tokenIn, the output of tokenOut): each
    // is set and short, so it is reset to 0 and raised to what both positions hold.
    for (const t of [lower, higher])
      expect(await allowance(t === token('USDC') ? 'USDC' : 'USDT')).toBeGreaterThan(0n);
    const needed = async (t: Address) =>
      (await committed(t === token('USDC') ? 'USDC' : 'USDT')) + 500n * UNIT;
    expect(second.data.transactions.map((t) => [t.step, t.purpose, t.to, t.data])).toEqual([
      [1, 'approve', getAddress(lower), approveCalldata(base.aqua as Address, 0n)],
      [2, 'approve', getAddress(lower), approveCalldata(base.aqua as Address, await needed(lower))],
      [3, 'approve', getAddress(higher), approveCalldata(base.aqua as Address, 0n)],
      [4, 'approve', getAddress(higher), approveCalldata(base.aqua as Address, await needed(higher))],
      [5, 'ship', getAddress(base.aqua), expect.any(String)],
    ]);
    expect(second.data.transactions[1]!.description).toMatch(/open positions hold/);
    expect(second.data.idempotent).toBe(false);
    expect(second.data.strategyHash).not.toBe(first.data.strategyHash);
    expect(second.data.fee).toMatchObject({ makerFeeBps: 0, makerFeePercent: '0', totalFeePercent: '0.05' });
    expect(second.data.position.programBytes).toBe(26 + 2 + 10);
    // …and it ships as returned.
    for (const tx of second.data.transactions) await send(maker, { to: tx.to, data: tx.data });
    await indexer.syncNow();
    expect((await statusOf(second.data.strategyHash)).data.status).toBe('shipped');
  });

  it('returns only ship when the allowances cover every open position and the new one', async () => {
    const third = await prepared(
      await prepare(
        intent({
          deposits: [
            { symbol: 'USDC', amount: '1' },
            { symbol: 'USDT', amount: '1' },
          ],
          approval: 'unlimited',
        }),
      ),
    );
    // Short by the 1 unit each: raised to max uint256 when asked for.
    expect(third.data.transactions.map((t) => t.purpose)).toEqual([
      'approve',
      'approve',
      'approve',
      'approve',
      'ship',
    ]);
    expect(third.data.transactions[1]!.data).toBe(approveCalldata(base.aqua as Address, (1n << 256n) - 1n));
    expect(third.data.transactions[1]!.description).toMatch(/unlimited/);
    for (const tx of third.data.transactions.slice(0, 4)) await send(maker, { to: tx.to, data: tx.data });
    const fourth = await prepared(await prepare(intent()));
    expect(fourth.data.transactions.map((t) => t.purpose)).toEqual(['ship']);
  });

  it('repeats the same key + Idempotency-Key + body as the stored payload, with no chain read', async () => {
    proxy.reset();
    const again = await prepared(
      await prepare(intent({ makerFeeBps: 30_000, checkBalances: true, metadata: { orderRef: 'e2e-1' } }), {
        idempotencyKey,
      }),
    );
    expect(proxy.count()).toBe(0);
    expect(again.data).toEqual(first.data);
    expect(again.meta.preparedAt).toBe(first.meta.preparedAt);
    expect(again.meta.replayed).toBe(true);
  });

  it('refuses the same Idempotency-Key with a different body (422)', async () => {
    const res = await prepare(
      intent({ makerFeeBps: 40_000, checkBalances: true, metadata: { orderRef: 'e2e-1' } }),
      {
        idempotencyKey,
      },
    );
    const body = (await res.json()) as { error: { code: string; parameter: string } };
    expect([res.status, body.error.code, body.error.parameter]).toEqual([
      422,
      'UNPROCESSABLE',
      'Idempotency-Key',
    ]);
  });

  it('gives another key with the same Idempotency-Key another position', async () => {
    const other = await prepared(
      await prepare(intent({ makerFeeBps: 30_000, checkBalances: true, metadata: { orderRef: 'e2e-1' } }), {
        key: keyB,
        idempotencyKey,
      }),
    );
    expect(other.data.strategyHash).not.toBe(first.data.strategyHash);
    expect(other.data.idempotent).toBe(true);
  });
});

describe('a wallet whose allowance is set but short', () => {
  const holder = mnemonicToAccount(MNEMONIC, { addressIndex: 12 });

  it("resets USDT's allowance to zero before raising it, and the steps go through as returned", async () => {
    await send(maker, { to: holder.address, data: '0x', value: parseEther('1') });
    for (const symbol of ['USDC', 'USDT']) {
      await send(holder, { to: token(symbol), data: mintCalldata(holder.address, 10_000n * UNIT) });
    }
    const aqua = base.aqua as Address;
    await send(holder, { to: token('USDC'), data: approveCalldata(aqua, 1_000_000n * UNIT) });
    await send(holder, { to: token('USDT'), data: approveCalldata(aqua, 10n * UNIT) });
    // The devnet's USDT keeps Tether's rule: raising a set allowance directly reverts.
    await expect(
      chain.call({ account: holder.address, to: token('USDT'), data: approveCalldata(aqua, 1_000n * UNIT) }),
    ).rejects.toThrow(/revert/i);

    const res = await prepared(await prepare(intent({ wallet: holder.address })));
    const txs = res.data.transactions;
    expect(txs.map((t) => [t.step, t.purpose, t.to])).toEqual([
      [1, 'approve', getAddress(token('USDT'))],
      [2, 'approve', getAddress(token('USDT'))],
      [3, 'ship', getAddress(aqua)],
    ]);
    expect(txs[0]!.data).toBe(approveCalldata(aqua, 0n));
    expect(txs[0]!.description).toMatch(/to 0/);
    expect(txs[1]!.data).toBe(approveCalldata(aqua, 1_000n * UNIT));
    for (const tx of txs) await send(holder, { to: tx.to as Address, data: tx.data as Hex });
    await indexer.syncNow();
    expect((await statusOf(res.data.strategyHash)).data.status).toBe('shipped');
  });
});

describe('preflight when the wallet is short', () => {
  const poor = mnemonicToAccount(MNEMONIC, { addressIndex: 11 }).address;

  it('still returns 200 with the short balances and allowances in preflight and issues', async () => {
    proxy.reset();
    const res = await prepared(
      await prepare(intent({ wallet: poor, checkBalances: true, includeApprovals: false })),
    );
    expect(proxy.count()).toBe(1);
    const d = res.data;
    expect(d.transactions.map((t) => t.purpose)).toEqual(['ship']);
    expect(d.preflight.status).toBe('review');
    const failed = d.preflight.checks.filter((c) => !c.ok).map((c) => c.name);
    expect(failed).toEqual(['allowance_a', 'allowance_b', 'balance_a', 'balance_b']);
    // ship never checks the allowance (PROTOCOL.md): the position ships, but no swap can fill it.
    const allowanceDetail = d.preflight.checks.find((c) => c.name === 'allowance_a')!.detail!;
    expect(allowanceDetail).toMatch(/still ships .* no swap can fill it/);
    expect(allowanceDetail).not.toMatch(/ship reverts/);
    expect(d.preflight.checks.find((c) => c.name === 'balance_a')!.detail).toContain(
      d.position.tokenA.symbol,
    );
    expect(d.preflight.issues).toContainEqual({
      type: 'INSUFFICIENT_ALLOWANCE',
      expected: d.position.tokenA.amount,
      actual: '0',
      spender: getAddress(base.aqua),
      token: d.position.tokenA.address,
    });
    expect(d.preflight.issues).toContainEqual({
      type: 'INSUFFICIENT_BALANCE',
      expected: d.position.tokenB.amount,
      actual: '0',
      spender: null,
      token: d.position.tokenB.address,
    });
  });

  it('flags a mixed-case wallet whose EIP-55 checksum is wrong for review', async () => {
    const lower = maker.address.toLowerCase();
    const broken = `0x${lower.slice(2, 3).toUpperCase()}${lower.slice(3)}`;
    const typo = broken === maker.address ? `0x${lower.slice(2, 4).toUpperCase()}${lower.slice(4)}` : broken;
    const res = await prepared(await prepare(intent({ wallet: typo })));
    expect(res.data.preflight.status).toBe('review');
    expect(res.data.preflight.checks[0]).toMatchObject({ name: 'wallet_valid', ok: false });
  });

  it('sends a maker fee below 0.01% to review, saying the scale and the value basis points would be', async () => {
    const res = await prepared(await prepare(intent({ makerFeeBps: 30 })));
    expect(res.data.fee).toMatchObject({ makerFeeBps: 30, makerFee1e7: 30, makerFeePercent: '0.0003' });
    expect(res.data.preflight.status).toBe('review');
    const check = res.data.preflight.checks.find((c) => c.name === 'maker_fee_scale');
    expect(check).toEqual({
      name: 'maker_fee_scale',
      ok: false,
      detail:
        'makerFeeBps 30 is 0.0003% on the 1e7 scale (10000000 = 100%), below 0.01%: if you meant 30 basis points (0.3%), send 30000.',
    });
    // A fee on the scale meant is not questioned.
    const meant = await prepared(await prepare(intent({ makerFeeBps: 30_000 })));
    expect(meant.data.preflight.checks.map((c) => c.name)).not.toContain('maker_fee_scale');
  });
});

describe('idempotency under concurrency', () => {
  it('turns 20 concurrent duplicates into one position', async () => {
    const idempotencyKey = randomUUID();
    const responses = await Promise.all(
      Array.from({ length: 20 }, () =>
        prepare(intent({ metadata: { batch: 'concurrent' } }), { idempotencyKey }),
      ),
    );
    const bodies = await Promise.all(responses.map((r) => prepared(r)));
    const hashes = new Set(bodies.map((b) => b.data.strategyHash));
    expect(hashes.size).toBe(1);
    const { rows } = await query<{ n: string }>(
      svc.services.db,
      'SELECT count(*) AS n FROM positions WHERE key_id = $1 AND idempotency_key = $2',
      [keyAId, idempotencyKey],
    );
    expect(rows[0]?.n).toBe('1');
    expect(bodies.filter((b) => b.meta.replayed === false).length).toBeLessThanOrEqual(1);
  });

  it('makes every call without an Idempotency-Key a new position', async () => {
    const a = await prepared(await prepare(intent()));
    const b = await prepared(await prepare(intent()));
    expect(a.data.strategyHash).not.toBe(b.data.strategyHash);
    expect(a.data.idempotent).toBe(false);
  });
});

describe('GET /v1/positions/{positionId} answers only the key that prepared it', () => {
  it("gives another key's position and a missing one byte-identical 404 bodies apart from requestId", async () => {
    const mine = await prepared(await prepare(intent()));
    expect((await status(mine.data.strategyHash, keyA)).status).toBe(200);
    const foreign = await status(mine.data.strategyHash, keyB);
    const missing = await status(`0x${'7'.repeat(64)}`, keyB);
    expect([foreign.status, missing.status]).toEqual([404, 404]);
    const strip = async (res: Response) => {
      const text = await res.text();
      return text.replace(res.headers.get('x-request-id')!, '<id>');
    };
    const [a, b] = [await strip(foreign), await strip(missing)];
    expect(a).toBe(b);
    expect(a).not.toContain(mine.data.strategyHash.slice(2));
  });

  it('accepts the id in upper case', async () => {
    const mine = await prepared(await prepare(intent()));
    const res = await status(`0x${mine.data.strategyHash.slice(2).toUpperCase()}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
  });
});
