/**
 * A rebalance on the devnet, no shortcut: a position opened as returned, then moved to another kind
 * and size in one bundle (dock, approvals, ship) sent unchanged; the old one ends docked, the new one
 * shipped and naming the one it replaced, in its status, the list and the bundle's own simulation.
 */
import { randomUUID } from 'node:crypto';
import { type Address, decodeFunctionData, getAddress, type Hex } from 'viem';
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

const BASE_PORT = testPort(19876);
const PROXY_PORT = testPort(19879);
let w: WritePath;
let key: string;
const maker = mnemonicToAccount(MNEMONIC, { addressIndex: 9 });

interface Prepared {
  strategyHash: Hex;
  transactions: Tx[];
  calls: { calls: { to: Address; data: Hex; value: Hex }[] };
  position: { strategy: { kind: string } };
  replaces?: string;
  simulation?: { steps: { success: boolean }[] };
}
interface Envelope {
  error: { code: string; parameter?: string; issues?: { type: string }[] };
}

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await w.svc.get(path, {
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

const intent = (amount: bigint, strategy?: unknown, wallet: string = maker.address) => ({
  chain: 'base',
  wallet,
  deposits: [
    { symbol: 'USDC', amount: (amount * UNIT).toString() },
    { symbol: 'USDT', amount: (amount * UNIT).toString() },
  ],
  ...(strategy === undefined ? {} : { strategy }),
});

const statusOf = async (id: string) =>
  ((await call('GET', `/v1/positions/${id}`)).body as { data: { status: string; replaces: string | null } })
    .data;

let old: Prepared;
let moved: Prepared;

beforeAll(async () => {
  w = await startWritePath({ basePort: BASE_PORT, proxyPort: PROXY_PORT, name: 'rebalance-e2e' });
  key = (await w.svc.createKey({ environment: 'LIVE', prepareLimitPerMinute: 1000, label: 'rebalancer' }))
    .key;
  for (const symbol of ['USDC', 'USDT']) {
    await w.send(maker, { to: w.token(symbol), data: mintCalldata(maker.address, 100_000n * UNIT) });
  }
  const opened = await call('POST', '/v1/positions', intent(1_000n));
  expect(opened.status, JSON.stringify(opened.body)).toBe(200);
  old = (opened.body as { data: Prepared }).data;
  await w.sendAll(maker, old.transactions);
  await w.indexer.syncNow();
  expect((await statusOf(old.strategyHash)).status).toBe('shipped');
}, 180_000);

afterAll(async () => {
  await w?.stop();
});

describe('POST /v1/positions/{positionId}/rebalance', () => {
  it('returns dock, the approvals the new position needs alone, and ship, as one simulated bundle', async () => {
    const { status, body } = await call(
      'POST',
      `/v1/positions/${old.strategyHash}/rebalance?simulate=true`,
      intent(2_000n, { kind: 'concentrated', priceRange: { min: '0.995', max: '1.005' } }),
      { 'idempotency-key': randomUUID() },
    );
    expect(status, JSON.stringify(body)).toBe(200);
    moved = (body as { data: Prepared }).data;
    expect(moved.replaces).toBe(old.strategyHash);
    expect(moved.strategyHash).not.toBe(old.strategyHash);
    expect(moved.position.strategy.kind).toBe('concentrated');
    const purposes = moved.transactions.map((t) => t.purpose);
    expect(purposes[0]).toBe('dock');
    expect(purposes.at(-1)).toBe('ship');
    // The first position's exact approvals (1,000 each) are short: each token is raised to the new
    // position's 2,000 alone, not 3,000, since the dock before them zeroes the old one's balances.
    const approved = moved.transactions
      .filter((t) => t.purpose === 'approve')
      .map((t) => decodeFunctionData({ abi: erc20Abi, data: t.data }).args[1] as bigint)
      .filter((amount) => amount > 0n);
    expect(approved).toEqual([2_000n * UNIT, 2_000n * UNIT]);
    expect(moved.calls.calls.map((c) => c.data)).toEqual(moved.transactions.map((t) => t.data));
    expect(moved.simulation?.steps.map((s) => s.success)).toEqual(moved.transactions.map(() => true));
  });

  it('sent as returned, leaves the old position docked and the new one shipped, naming it', async () => {
    for (const c of moved.calls.calls)
      await w.send(maker, { to: c.to, data: c.data, value: BigInt(c.value) });
    await w.indexer.syncNow();
    expect(await statusOf(old.strategyHash)).toMatchObject({ status: 'docked', replaces: null });
    expect(await statusOf(moved.strategyHash)).toMatchObject({
      status: 'shipped',
      replaces: old.strategyHash,
    });
    const list = (await call('GET', '/v1/positions?chain=base')).body as {
      data: { positions: { positionId: string; status: string; replaces: string | null }[] };
    };
    const listed = new Map(list.data.positions.map((p) => [p.positionId, p]));
    expect(listed.get(old.strategyHash)).toMatchObject({ status: 'docked', replaces: null });
    expect(listed.get(moved.strategyHash)).toMatchObject({ status: 'shipped', replaces: old.strategyHash });
  });

  it('refuses a docked position, another wallet or chain, and a position of another key', async () => {
    const docked = await call('POST', `/v1/positions/${old.strategyHash}/rebalance`, intent(500n));
    expect([docked.status, (docked.body as Envelope).error.issues?.[0]?.type]).toEqual([
      422,
      'POSITION_NOT_ACTIVE',
    ]);
    const other = getAddress(mnemonicToAccount(MNEMONIC, { addressIndex: 3 }).address);
    const wallet = await call(
      'POST',
      `/v1/positions/${moved.strategyHash}/rebalance`,
      intent(500n, undefined, other),
    );
    expect([wallet.status, (wallet.body as Envelope).error.parameter]).toEqual([422, 'wallet']);
    const chain = await call('POST', `/v1/positions/${moved.strategyHash}/rebalance`, {
      ...intent(500n),
      chain: 'arc',
    });
    expect([chain.status, (chain.body as Envelope).error.parameter]).toEqual([422, 'chain']);
    const missing = await call('POST', `/v1/positions/0x${'12'.repeat(32)}/rebalance`, intent(500n));
    expect([missing.status, (missing.body as Envelope).error.code]).toEqual([404, 'NOT_FOUND']);
    const malformed = await call('POST', `/v1/positions/${moved.strategyHash}/rebalance`, { chain: 'base' });
    expect([malformed.status, (malformed.body as Envelope).error.code]).toEqual([400, 'INVALID_PARAMETER']);
  });
});
