/**
 * position.health_changed without a client's read: on the devnet, with the indexer
 * running in the background (following the chain and checking health on its own), two positions of one
 * wallet are filled through POST /v1/swaps until the allowance no longer covers both: a signed
 * `position.health_changed` (at_risk) reaches a real receiver although nothing GETs the position; the
 * top-up of POST /v1/positions/{id}/approvals brings `ok` back the same way. A run reads a wallet in
 * one eth_call, and a run capped by HEALTH_CHECK_MAX_WALLETS leaves the other wallets to the next.
 */
import type { Hex } from 'viem';
import { parseEther } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChainRegistry } from '../../chain/registry.js';
import { startHealthCheck } from '../../indexer/healthCheck.js';
import { type Indexer, startIndexer } from '../../indexer/index.js';
import { healthSeen } from '../../store/positionHealthSeen.js';
import { contractValidator, expectMatchesContract } from '../helpers/contract.js';
import { until } from '../helpers/load.js';
import { testPort } from '../helpers/ports.js';
import { type Received, type Receiver, startReceiver, verified } from '../helpers/webhookReceiver.js';
import {
  MNEMONIC,
  mintCalldata as mint,
  startWritePath,
  type Tx,
  UNIT,
  type WritePath,
} from '../helpers/writePath.js';

const BASE_PORT = testPort(20200);
const PROXY_PORT = testPort(20203);

let w: WritePath;
let background: Indexer;
let receiver: Receiver;
let makerKey: string;
let takerKey: string;

const maker = mnemonicToAccount(MNEMONIC, { addressIndex: 9 });
const taker = mnemonicToAccount(MNEMONIC, { addressIndex: 13 });

interface Payload {
  type: string;
  data: { positionId: string; health?: { status: string; issues: { type: string }[] } };
}

/** Every answer checked against /openapi.json; only the key paths this suite needs (no position GET). */
async function ok<T>(method: string, path: string, key: string, body?: unknown): Promise<T> {
  expect(method === 'GET' && path.startsWith('/v1/positions/')).toBe(false);
  const res = await w.svc.get(path, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const parsed = JSON.parse(await res.text()) as { data: T };
  expectMatchesContract(method, path, res, parsed);
  expect(res.status, JSON.stringify(parsed)).toBe(200);
  return parsed.data;
}

async function openPosition(): Promise<Hex> {
  const p = await ok<{ strategyHash: Hex; transactions: Tx[] }>('POST', '/v1/positions', makerKey, {
    chain: 'base',
    wallet: maker.address,
    deposits: [
      { symbol: 'USDC', amount: (1_000n * UNIT).toString() },
      { symbol: 'USDT', amount: (1_000n * UNIT).toString() },
    ],
  });
  await w.sendAll(maker, p.transactions);
  // The next prepare sizes the approvals for the wallet's strategies in the catalogue: wait for this one.
  await until(
    () => ok<{ positions: { positionId: string; status: string }[] }>('GET', '/v1/positions', makerKey),
    (l) => l.positions.some((x) => x.positionId === p.strategyHash && x.status === 'shipped'),
  );
  return p.strategyHash;
}

async function swap(hash: Hex, direction: 'aToB' | 'bToA'): Promise<void> {
  const s = await ok<{ transactions: Tx[] }>('POST', '/v1/swaps', takerKey, {
    chain: 'base',
    hash,
    wallet: taker.address,
    amount: (100n * UNIT).toString(),
    direction,
  });
  await w.sendAll(taker, s.transactions);
}

/** The deliveries queued for any endpoint (this suite has one): what the receiver will get. */
async function queued(): Promise<number> {
  const { rows } = await w.svc.services.db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM webhook_deliveries',
  );
  return rows[0]!.n;
}

/**
 * One more full run of the background indexer's health check, awaited: it read every subscribed wallet
 * (`checked`) and found no change to queue. Not its timer: the run is asked for, so the test waits for
 * the run itself instead of a period of HEALTH_CHECK_MS.
 */
async function fullRunChangesNothing(): Promise<void> {
  const run = await background.checkHealthNow();
  expect(run).toMatchObject({ failed: 0, changed: 0 });
  expect(run.checked).toBe(run.wallets);
  expect(run.checked).toBeGreaterThan(0);
}

const healthChanged = (id: string, status: string) => (r: Received) => {
  const body = JSON.parse(r.body) as Payload;
  return (
    body.type === 'position.health_changed' &&
    body.data.positionId === id &&
    body.data.health?.status === status
  );
};

beforeAll(async () => {
  w = await startWritePath({
    basePort: BASE_PORT,
    proxyPort: PROXY_PORT,
    name: 'webhooks-health-e2e',
    env: {
      WEBHOOK_ALLOW_HTTP: '1',
      WEBHOOK_ALLOW_PRIVATE: '1',
      WEBHOOK_TIMEOUT_MS: '2000',
      INDEXER_POLL_MS: '200',
      // Longer than the suite: a change after swaps is found because the indexer stored their logs
      // (which wakes the check), never by its timer; the timer has its own background indexer below.
      HEALTH_CHECK_MS: '3600000',
      // Each change told as it happens: the coalescing interval has its own test (webhook-fairness).
      WEBHOOK_HEALTH_COALESCE_MS: '0',
    },
  });
  // The suite never drives the write path's own indexer: this one follows the chain and checks health.
  background = await startIndexer(
    { ...w.svc.services, registry: new ChainRegistry(w.devnet.chains) },
    { background: true },
  );
  receiver = await startReceiver();
  const key = (label: string) =>
    w.svc.createKey({ environment: 'LIVE', prepareLimitPerMinute: 1000, label }).then((k) => k.key);
  makerKey = await key('maker');
  takerKey = await key('taker');
  for (const symbol of ['USDC', 'USDT']) {
    await w.send(maker, { to: w.token(symbol), data: mint(maker.address, 100_000n * UNIT) });
    await w.send(maker, { to: w.token(symbol), data: mint(taker.address, 10_000n * UNIT) });
  }
  await w.send(maker, { to: taker.address, data: '0x', value: parseEther('1') });
}, 180_000);

afterAll(async () => {
  await background?.stop();
  await receiver?.stop();
  await w?.stop();
});

describe('position.health_changed from the background health check', () => {
  let first: Hex;
  let second: Hex;
  let secret: string;

  it('records a baseline (ok) of the positions of a subscribed key, queuing nothing', async () => {
    // Opened before the endpoint exists: the approvals of the second one pass through states (USDT's reset to
    // 0 first) that a check would observe as changes, and this test wants a settled start.
    first = await openPosition();
    second = await openPosition();
    secret = (
      await ok<{ secret: string }>('POST', '/v1/webhooks', makerKey, {
        url: receiver.url,
        events: ['position.health_changed'],
      })
    ).secret;
    // The first run with the endpoint subscribed records where each position stands.
    await background.checkHealthNow();
    const seen = await Promise.all([first, second].map((h) => healthSeen(w.svc.services.db, h)));
    expect(seen.map((h) => (h as { status: string } | null)?.status)).toEqual(['ok', 'ok']);
    // A full run with the endpoint subscribed queues nothing (nor will the receiver get any).
    await fullRunChangesNothing();
    expect(await queued()).toBe(0);
    expect(receiver.received).toHaveLength(0);
  });

  it('delivers at_risk, signed, after swaps through POST /v1/swaps use the allowance up (no GET of the position)', async () => {
    await swap(first, 'aToB');
    await swap(second, 'bToA');
    // The check's timer is an hour away: only the indexer storing the swaps can have woken it.
    const [changed] = await receiver.waitFor(1, healthChanged(first, 'at_risk'));
    const payload = verified<Payload>(secret, changed!);
    expect(contractValidator().check('#/components/schemas/WebhookPayload', payload, 'payload')).toEqual([]);
    expect(payload.type).toBe('position.health_changed');
    expect(payload.data.health!.issues.map((i) => i.type)).toContain('INSUFFICIENT_ALLOWANCE');
    await receiver.waitFor(1, healthChanged(second, 'at_risk'));
  });

  it('delivers ok again after the top-up of POST /v1/positions/{id}/approvals, once per change', async () => {
    const topUp = await ok<{ transactions: Tx[] }>('POST', `/v1/positions/${first}/approvals`, makerKey);
    expect(topUp.transactions.map((t) => t.purpose)).toContain('approve');
    // An approval leaves no catalogue log: only the check's timer notices it. The top-up is sent with no
    // check running (USDT's reset to 0 comes first: a run between the two approvals would rightly see a
    // change of its own), then a background indexer whose timer runs every 300 ms takes over.
    await background.stop();
    await w.sendAll(maker, topUp.transactions);
    const { config } = w.svc.services;
    background = await startIndexer(
      {
        ...w.svc.services,
        config: { ...config, healthCheckMs: 300 },
        registry: new ChainRegistry(w.devnet.chains),
      },
      { background: true },
    );
    const [back] = await receiver.waitFor(1, healthChanged(first, 'ok'));
    expect(verified<Payload>(secret, back!).data.health!.status).toBe('ok');
    await receiver.waitFor(1, healthChanged(second, 'ok'));
    // Further runs with the same health queue nothing more: a full run after these, and the queue holds
    // just the four delivered.
    await fullRunChangesNothing();
    expect(await queued()).toBe(4);
    // A delivery is at least once (a receiver slower than WEBHOOK_TIMEOUT_MS gets it again): counted
    // by webhook-id, as a receiver de-duplicates.
    const byId = new Map(receiver.received.map((r) => [String(r.headers['webhook-id']), r]));
    const events = [...byId.values()].map((r) => {
      const body = JSON.parse(r.body) as Payload;
      return `${body.data.positionId === first ? 'first' : 'second'}:${body.data.health?.status}`;
    });
    expect(events.sort()).toEqual(['first:at_risk', 'first:ok', 'second:at_risk', 'second:ok']);
  });

  it("reads the health of a wallet's positions in one eth_call (one multicall per wallet and run)", async () => {
    // The background indexer stops (its timer would add runs); the write path's takes the chain over.
    await background.stop();
    await w.indexer.syncNow();
    w.proxy.reset();
    const run = await w.indexer.checkHealthNow();
    expect(run).toMatchObject({ wallets: 1, checked: 1, failed: 0, changed: 0, capped: false });
    expect(run.read).toEqual([`base:${maker.address.toLowerCase()}`]);
    expect(w.proxy.requests().filter((r) => r.methods.includes('eth_call'))).toEqual([
      { methods: ['eth_call'] },
    ]);
  });

  it('checks at most HEALTH_CHECK_MAX_WALLETS wallets a run, the others at the next run', async () => {
    const other = mnemonicToAccount(MNEMONIC, { addressIndex: 14 });
    await w.send(maker, { to: other.address, data: '0x', value: parseEther('1') });
    for (const symbol of ['USDC', 'USDT'])
      await w.send(maker, { to: w.token(symbol), data: mint(other.address, 10_000n * UNIT) });
    const p = await ok<{ strategyHash: Hex; transactions: Tx[] }>('POST', '/v1/positions', makerKey, {
      chain: 'base',
      wallet: other.address,
      deposits: [
        { symbol: 'USDC', amount: (1_000n * UNIT).toString() },
        { symbol: 'USDT', amount: (1_000n * UNIT).toString() },
      ],
    });
    await w.sendAll(other, p.transactions);
    await w.indexer.syncNow();
    const { config } = w.svc.services;
    const capped = startHealthCheck(
      { ...w.svc.services, config: { ...config, healthCheckMaxWallets: 1 } },
      { chains: () => ['base'], background: false },
    );
    const runs = [await capped.runNow(), await capped.runNow()];
    expect(runs.map((r) => [r.wallets, r.checked, r.capped])).toEqual([
      [2, 1, true],
      [2, 1, true],
    ]);
    // Whichever went first, the other was read at the second run: its baseline is recorded.
    expect(runs.flatMap((r) => r.read).sort()).toEqual(
      [maker.address, other.address].map((a) => `base:${a.toLowerCase()}`).sort(),
    );
    expect(await healthSeen(w.svc.services.db, p.strategyHash)).toMatchObject({ status: 'ok' });
    await capped.stop();
  });
});
