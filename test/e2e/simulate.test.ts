/**
 * `simulate=true` on the prepared answers, on the devnet: a position opened, swapped, topped up and
 * docked with every answer simulated first, then sent unchanged (with the suggested gas limit) by the
 * wallet: each receipt used the gas the simulation said, and the wallet's balances and allowances
 * ended where it said. A retry with the same Idempotency-Key after the ship was sent would revert (422
 * naming the ship step and Aqua's decoded error); a node without eth_simulateV1 answers 200 saying so.
 */
import { randomUUID } from 'node:crypto';
import { type Account, type Address, createWalletClient, getAddress, type Hex, http, parseEther } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { erc20Abi } from '../../chain/abi.js';
import { viemChainOf } from '../../chain/clients.js';
import { expectMatchesContract } from '../helpers/contract.js';
import { testPort } from '../helpers/ports.js';
import {
  MNEMONIC,
  mintCalldata,
  startWritePath,
  type Tx,
  UNIT,
  type WritePath,
} from '../helpers/writePath.js';

const BASE_PORT = testPort(20300);
const PROXY_PORT = testPort(20303);
const maker = mnemonicToAccount(MNEMONIC, { addressIndex: 9 });
const taker = mnemonicToAccount(MNEMONIC, { addressIndex: 11 });
let w: WritePath;
let makerKey: string;
let takerKey: string;

interface Change {
  token: Address;
  symbol: string | null;
  before: string;
  after: string;
  change: string;
}
interface SimStep {
  step: number;
  purpose: string;
  success: boolean;
  gasUsed: string;
  gasLimit: string;
  balanceChanges: Change[];
  allowanceChanges: (Change & { spender: Address; spenderName: string })[];
}
interface Simulated {
  transactions: Tx[];
  preflight?: { simulation?: string };
  simulation?: { steps: SimStep[]; gasUsed: string };
}
interface Envelope {
  error: {
    code: string;
    parameter?: string;
    message: string;
    issues?: { type: string; step?: number; purpose?: string; actual?: string }[];
  };
}

async function call(method: string, path: string, key: string, body?: unknown, headers = {}) {
  const res = await w.svc.get(path, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = (await res.json()) as unknown;
  expectMatchesContract(method, path.split('?')[0]!, res, json);
  return { status: res.status, body: json };
}

const intent = (amount: bigint, extra: Record<string, unknown> = {}) => ({
  chain: 'base',
  wallet: maker.address,
  deposits: [
    { symbol: 'USDC', amount: amount.toString() },
    { symbol: 'USDT', amount: amount.toString() },
  ],
  ...extra,
});

const balanceOf = (token: Address, who: Address) =>
  w.chain.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [who] });
const allowance = (token: Address, who: Address, spender: Address) =>
  w.chain.readContract({ address: token, abi: erc20Abi, functionName: 'allowance', args: [who, spender] });

/**
 * Sends every step unchanged, in order, with the simulation's suggested gas limit, and checks each
 * receipt against its simulated step: the same gas, and every balance and allowance change it reported
 * is where the chain now stands.
 */
async function sendAsSimulated(account: Account, answer: Simulated) {
  const steps = answer.simulation!.steps;
  const wallet = createWalletClient({ account, chain: viemChainOf(w.base), transport: http(w.base.rpcUrl) });
  for (const [i, tx] of answer.transactions.entries()) {
    const simulated = steps[i]!;
    expect(simulated.step).toBe(tx.step);
    const hash = await wallet.sendTransaction({
      to: tx.to,
      data: tx.data as Hex,
      value: BigInt(tx.value),
      gas: BigInt(simulated.gasLimit),
    });
    const receipt = await w.chain.waitForTransactionReceipt({ hash, timeout: 15_000 });
    expect(receipt.status).toBe('success');
    // The receipt reports what the simulation did: the steps run on the state it ran them on.
    expect(receipt.gasUsed).toBe(BigInt(simulated.gasUsed));
    for (const c of simulated.balanceChanges)
      expect(await balanceOf(c.token, account.address)).toBe(BigInt(c.after));
    for (const c of simulated.allowanceChanges)
      expect(await allowance(c.token, account.address, c.spender)).toBe(BigInt(c.after));
  }
}

function checkGas(steps: readonly SimStep[]) {
  for (const s of steps) {
    expect(s.success).toBe(true);
    expect(BigInt(s.gasUsed)).toBeGreaterThan(21_000n);
    // The documented margin: gasUsed × 1.3, rounded up.
    expect(BigInt(s.gasLimit)).toBe((BigInt(s.gasUsed) * 13n + 9n) / 10n);
  }
}

beforeAll(async () => {
  w = await startWritePath({ basePort: BASE_PORT, proxyPort: PROXY_PORT, name: 'simulate-e2e' });
  makerKey = (await w.svc.createKey({ environment: 'LIVE', prepareLimitPerMinute: 1000, label: 'maker' }))
    .key;
  takerKey = (await w.svc.createKey({ environment: 'LIVE', prepareLimitPerMinute: 1000, label: 'taker' }))
    .key;
  for (const symbol of ['USDC', 'USDT']) {
    await w.send(maker, { to: w.token(symbol), data: mintCalldata(maker.address, 1_000_000n * UNIT) });
    await w.send(maker, { to: w.token(symbol), data: mintCalldata(taker.address, 1_000_000n * UNIT) });
  }
  await w.send(maker, { to: taker.address, data: '0x', value: parseEther('1') });
}, 180_000);

afterAll(async () => {
  await w?.stop();
});

describe('simulate=true on the prepared answers, then sent unchanged', () => {
  const idempotencyKey = randomUUID();
  let positionId: Hex;

  it('refuses a simulate that is not a boolean, in the body or the query, naming it', async () => {
    const body = await call('POST', '/v1/positions', makerKey, intent(1000n * UNIT, { simulate: 'yes' }));
    expect([body.status, (body.body as Envelope).error.parameter]).toEqual([400, 'simulate']);
    const query = await call('POST', '/v1/swaps?simulate=maybe', takerKey, {
      chain: 'base',
      hash: `0x${'5f'.repeat(32)}`,
      wallet: taker.address,
      amount: '1000000',
      direction: 'aToB',
    });
    expect([query.status, (query.body as Envelope).error.parameter]).toEqual([400, 'simulate']);
    const both = await call(
      'POST',
      '/v1/positions?simulate=false',
      makerKey,
      intent(UNIT, { simulate: true }),
    );
    expect([both.status, (both.body as Envelope).error.parameter]).toEqual([400, 'simulate']);
  });

  it('without simulate, an answer is as before: no simulation, one RPC round trip', async () => {
    w.proxy.reset();
    const { status, body } = await call('POST', '/v1/positions', makerKey, intent(1000n * UNIT));
    expect(status).toBe(200);
    const data = (body as { data: Simulated & { preflight: Record<string, unknown> } }).data;
    expect(data).not.toHaveProperty('simulation');
    expect(data.preflight).not.toHaveProperty('simulation');
    expect(w.proxy.count()).toBe(1);
  });

  it('opens a position: approvals and ship simulated in one eth_simulateV1, then sent as simulated', async () => {
    const amount = 1000n * UNIT;
    w.proxy.reset();
    const { status, body } = await call(
      'POST',
      '/v1/positions',
      makerKey,
      intent(amount, { simulate: true }),
      { 'Idempotency-Key': idempotencyKey },
    );
    expect(status, JSON.stringify(body)).toBe(200);
    // The allowance read, then the whole bundle in one request.
    expect(w.proxy.requests().map((r) => r.methods)).toEqual([['eth_call'], ['eth_simulateV1']]);
    const data = (body as { data: Simulated & { strategyHash: Hex } }).data;
    positionId = data.strategyHash;
    expect(data.preflight?.simulation).toBe('simulated');
    const steps = data.simulation!.steps;
    expect(steps.map((s) => [s.step, s.purpose])).toEqual([
      [1, 'approve'],
      [2, 'approve'],
      [3, 'ship'],
    ]);
    checkGas(steps);
    expect(BigInt(data.simulation!.gasUsed)).toBe(steps.reduce((sum, s) => sum + BigInt(s.gasUsed), 0n));
    // Each approve raises one allowance to Aqua from 0 to the deposit; nothing moves a balance.
    const tokens = [getAddress(w.token('USDC')), getAddress(w.token('USDT'))].sort((a, b) =>
      a.toLowerCase() < b.toLowerCase() ? -1 : 1,
    );
    for (const [i, token] of tokens.entries()) {
      expect(steps[i]!.allowanceChanges).toEqual([
        expect.objectContaining({
          token,
          spender: getAddress(w.base.aqua),
          spenderName: 'Aqua',
          before: '0',
          after: amount.toString(),
          change: amount.toString(),
        }),
      ]);
    }
    expect(steps.flatMap((s) => s.balanceChanges)).toEqual([]);
    expect(steps[2]!.allowanceChanges).toEqual([]);
    await sendAsSimulated(maker, data);
    await w.indexer.syncNow();
  });

  it('a retry of the same Idempotency-Key after its steps were sent would revert: 422 naming the step', async () => {
    // The stored answer is the first call's: its approve of USDT (set already, not from 0) is refused
    // by the token before the ship could be.
    const { status, body } = await call(
      'POST',
      '/v1/positions',
      makerKey,
      intent(1000n * UNIT, { simulate: true }),
      { 'Idempotency-Key': idempotencyKey },
    );
    expect(status).toBe(422);
    const { error } = body as Envelope;
    expect(error.code).toBe('UNPROCESSABLE');
    expect(error.issues).toEqual([
      expect.objectContaining({ type: 'SIMULATION_REVERTED', step: 2, purpose: 'approve' }),
    ]);
    expect(error.issues![0]!.actual).toMatch(/^ApprovalNotFromZero\(/);
    expect(error.message).toMatch(/^Step 2 of 3 \(approve, to 0x[0-9a-fA-F]{40}\) would revert/);
    expect(error.message).toContain('approve 0, then the new value');
    // Without simulate the stored answer is replayed as ever.
    const replay = await call('POST', '/v1/positions', makerKey, intent(1000n * UNIT), {
      'Idempotency-Key': idempotencyKey,
    });
    expect(replay.status).toBe(200);
    expect((replay.body as { data: { strategyHash: Hex } }).data.strategyHash).toBe(positionId);
  });

  it("a retry of a ship already sent: 422 naming the ship step and Aqua's decoded error", async () => {
    const key = randomUUID();
    const body = intent(200n * UNIT, { includeApprovals: false });
    const first = await call('POST', '/v1/positions', makerKey, body, { 'Idempotency-Key': key });
    const ship = (first.body as { data: { transactions: Tx[] } }).data.transactions;
    expect(ship.map((t) => t.purpose)).toEqual(['ship']);
    await w.sendAll(maker, ship);
    const { status, body: answer } = await call('POST', '/v1/positions?simulate=true', makerKey, body, {
      'Idempotency-Key': key,
    });
    expect(status).toBe(422);
    const { error } = answer as Envelope;
    expect(error.issues).toEqual([
      expect.objectContaining({ type: 'SIMULATION_REVERTED', step: 1, purpose: 'ship' }),
    ]);
    expect(error.issues![0]!.actual).toMatch(/^StrategiesMustBeImmutable\(/);
    expect(error.message).toContain('already shipped');
  });

  it('a swap (simulate in the query): the taker balances move as simulated', async () => {
    const amount = 10n * UNIT;
    const { status, body } = await call('POST', '/v1/swaps?simulate=true', takerKey, {
      chain: 'base',
      hash: positionId,
      wallet: taker.address,
      amount: amount.toString(),
      direction: 'aToB',
    });
    expect(status, JSON.stringify(body)).toBe(200);
    const data = (body as { data: Simulated & { router: Address; quote: Quote } }).data;
    expect(data.preflight).toEqual({ simulation: 'simulated' });
    const steps = data.simulation!.steps;
    expect(steps.map((s) => s.purpose)).toEqual(['approve', 'swap']);
    checkGas(steps);
    const [tokenIn, tokenOut] = [data.quote.tokenIn.address, data.quote.tokenOut.address];
    const inBefore = await balanceOf(tokenIn, taker.address);
    const outBefore = await balanceOf(tokenOut, taker.address);
    expect(steps[0]!.allowanceChanges).toEqual([
      expect.objectContaining({
        token: tokenIn,
        spender: data.router,
        before: '0',
        after: amount.toString(),
      }),
    ]);
    const swap = steps[1]!;
    expect(swap.balanceChanges).toEqual([
      {
        token: tokenIn,
        symbol: data.quote.tokenIn.symbol,
        before: `${inBefore}`,
        after: `${inBefore - amount}`,
        change: `-${amount}`,
      },
      expect.objectContaining({ token: tokenOut, before: `${outBefore}`, change: data.quote.amountOut }),
    ]);
    // The router takes what it was allowed: the allowance is used up.
    expect(swap.allowanceChanges).toEqual([
      expect.objectContaining({ token: tokenIn, after: '0', change: `-${amount}` }),
    ]);
    await sendAsSimulated(taker, data);
    expect(await balanceOf(tokenOut, taker.address)).toBe(outBefore + BigInt(data.quote.amountOut));
    await w.indexer.syncNow();
  });

  it('the top-up approvals after the fill: the reset to 0 and the raise, simulated and sent', async () => {
    const { status, body } = await call(
      'POST',
      `/v1/positions/${positionId}/approvals?simulate=true`,
      makerKey,
    );
    expect(status, JSON.stringify(body)).toBe(200);
    const data = (body as { data: Simulated }).data;
    expect(data.preflight).toEqual({ simulation: 'simulated' });
    const steps = data.simulation!.steps;
    expect(steps.length).toBeGreaterThan(0);
    checkGas(steps);
    // A short allowance is reset to 0 first (USDT's rule), then raised.
    const resets = steps.filter((s) => s.allowanceChanges[0]?.after === '0');
    expect(resets.length).toBeGreaterThan(0);
    await sendAsSimulated(maker, data);
  });

  it('dock (simulate in the query): one step, no balance or allowance moves', async () => {
    const { status, body } = await call('POST', `/v1/positions/${positionId}/dock?simulate=true`, makerKey);
    expect(status, JSON.stringify(body)).toBe(200);
    const data = (body as { data: Simulated }).data;
    const steps = data.simulation!.steps;
    expect(steps.map((s) => [s.purpose, s.balanceChanges, s.allowanceChanges])).toEqual([['dock', [], []]]);
    checkGas(steps);
    await sendAsSimulated(maker, data);
  });

  it('a node without eth_simulateV1: 200 as prepared, preflight.simulation unavailable', async () => {
    w.proxy.refuseMethods(['eth_simulateV1']);
    try {
      w.proxy.reset();
      const { status, body } = await call(
        'POST',
        '/v1/positions',
        makerKey,
        intent(500n * UNIT, { simulate: true }),
      );
      expect(status, JSON.stringify(body)).toBe(200);
      const data = (body as { data: Simulated & { preflight: { status: string; simulation: string } } }).data;
      expect(data.preflight.simulation).toBe('unavailable');
      expect(data).not.toHaveProperty('simulation');
      expect(data.transactions.at(-1)?.purpose).toBe('ship');
      expect(w.proxy.requests().map((r) => r.methods)).toEqual([['eth_call'], ['eth_simulateV1']]);
    } finally {
      w.proxy.refuseMethods([]);
    }
  });
});

interface Quote {
  amountOut: string;
  tokenIn: { address: Address; symbol: string };
  tokenOut: { address: Address; symbol: string };
}
