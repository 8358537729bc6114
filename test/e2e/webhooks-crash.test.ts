/**
 * No webhook is lost when the delivering process dies: the gateway runs as its own process
 * (`main.ts`, as `npm start`) and is killed with SIGKILL, (1) before the state change is even indexed
 * (the event waits in the Postgres outbox) and (2) while an attempt is in flight (its job stays locked
 * by a dead worker until the sweep releases it). Restarted, it delivers both.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Hex } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServiceProcess, spawnService } from '../../bench/processes.js';
import { testPort } from '../helpers/ports.js';
import { INTERNAL_TOKEN } from '../helpers/service.js';
import { type Receiver, startReceiver, verified } from '../helpers/webhookReceiver.js';
import { MNEMONIC, startWritePath, type Tx, UNIT, type WritePath } from '../helpers/writePath.js';

const BASE_PORT = testPort(20100);
const PROXY_PORT = testPort(20103);
const maker = mnemonicToAccount(MNEMONIC, { addressIndex: 9 });

let w: WritePath;
let receiver: Receiver;
let dir: string;
let gateway: ServiceProcess | undefined;
let key: string;
let secret: string;
let hookId: string;

const spawnGateway = () =>
  spawnService({
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    INTERNAL_TOKEN,
    DATABASE_URL: w.svc.services.config.databaseUrl!,
    CHAINS_FILE: path.join(dir, 'chains.json'),
    INDEXER: 'off',
    WEBHOOK_ALLOW_HTTP: '1',
    WEBHOOK_ALLOW_PRIVATE: '1',
    // An attempt lasts at most 1 s: a claim older than 2 × 1 s + 5 s belongs to a dead process.
    WEBHOOK_TIMEOUT_MS: '1000',
  });

async function openPosition(): Promise<Hex> {
  const res = await w.svc.get('/v1/positions', {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      chain: 'base',
      wallet: maker.address,
      deposits: [
        { symbol: 'USDC', amount: (1_000n * UNIT).toString() },
        { symbol: 'USDT', amount: (1_000n * UNIT).toString() },
      ],
    }),
  });
  expect(res.status).toBe(200);
  const { data } = (await res.json()) as { data: { strategyHash: Hex; transactions: Tx[] } };
  await w.sendAll(maker, data.transactions);
  return data.strategyHash;
}

const forPosition = (id: Hex) => (r: { body: string }) =>
  (JSON.parse(r.body) as { data: { positionId: string } }).data.positionId === id;

async function deliveryStatus(id: Hex): Promise<string | undefined> {
  const { rows } = await w.svc.services.db.query<{ status: string }>(
    'SELECT status FROM webhook_deliveries WHERE strategy_hash = $1',
    [id],
  );
  return rows[0]?.status;
}

beforeAll(async () => {
  // The test's own gateway queues and serves but delivers nothing: only the spawned process delivers.
  w = await startWritePath({
    basePort: BASE_PORT,
    proxyPort: PROXY_PORT,
    name: 'webhooks-crash-e2e',
    env: { WEBHOOK_WORKER: 'off', WEBHOOK_ALLOW_HTTP: '1', WEBHOOK_ALLOW_PRIVATE: '1' },
  });
  dir = mkdtempSync(path.join(tmpdir(), 'webhooks-crash-'));
  writeFileSync(path.join(dir, 'chains.json'), JSON.stringify({ chains: w.devnet.chains }));
  receiver = await startReceiver();
  key = (await w.svc.createKey({ environment: 'LIVE', prepareLimitPerMinute: 1000 })).key;
  const res = await w.svc.get('/v1/webhooks', {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url: receiver.url, events: ['position.shipped'] }),
  });
  const { data } = (await res.json()) as { data: { id: string; secret: string } };
  ({ id: hookId, secret } = data);
}, 180_000);

afterAll(async () => {
  await gateway?.kill();
  await receiver?.stop();
  await w?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('a delivering process killed', () => {
  it('before the state change: the outbox keeps the event and the restarted process delivers it', async () => {
    gateway = await spawnGateway();
    await gateway.kill();
    const id = await openPosition();
    await w.indexer.syncNow();
    expect(await deliveryStatus(id)).toBe('pending');
    // With the only delivering process dead, its attempt waits in the queue, taken by no worker (the
    // test's own gateway runs none): nothing can have been sent.
    // (The endpoint's first delivery: its queues `webhook:<id>:<n>` hold just this attempt.)
    const { rows: jobs } = await w.svc.services.db.query<{ locked_by: string | null }>(
      `SELECT locked_by FROM graphile_worker.jobs
        WHERE task_identifier = 'webhook_deliver' AND split_part(queue_name, ':', 2) = $1`,
      [hookId],
    );
    expect(jobs).toEqual([{ locked_by: null }]);
    expect(receiver.received.filter(forPosition(id))).toHaveLength(0);

    gateway = await spawnGateway();
    const [got] = await receiver.waitFor(1, forPosition(id));
    expect(verified(secret, got!).type).toBe('position.shipped');
    // Recorded after the receiver's answer reaches the worker: expect.poll's default 1 s is short on a busy box.
    await expect.poll(() => deliveryStatus(id), { timeout: 10_000 }).toBe('succeeded');
    expect(hookId).toMatch(/^wh_/);
  }, 120_000);

  it('during an attempt: the attempt of the dead worker is released and made again', async () => {
    receiver.answer = 'hang';
    const id = await openPosition();
    await w.indexer.syncNow();
    const [first] = await receiver.waitFor(1, forPosition(id));
    await gateway!.kill();
    receiver.answer = 200;

    gateway = await spawnGateway();
    const both = await receiver.waitFor(2, forPosition(id), 40_000);
    expect(both[1]!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    expect(verified(secret, both[1]!).type).toBe('position.shipped');
    await expect.poll(() => deliveryStatus(id), { timeout: 10_000 }).toBe('succeeded');
    // Log lines reach stdout in batches (lib/logDestination.ts): the line may come a little later.
    await expect
      .poll(() => gateway!.logs.some((l) => l.msg === 'webhook attempts of a dead worker released'), {
        timeout: 20_000,
      })
      .toBe(true);
  }, 120_000);
});
