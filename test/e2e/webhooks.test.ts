/**
 * Webhooks on the devnet, every prepared transaction signed and sent unchanged: a
 * real receiver verifies each delivery with the standardwebhooks verifier; shipped, filled, docked and
 * health_changed arrive with the position body and its metadata; a rotation signs with both secrets; a
 * failing receiver gets the backoff schedule, then the endpoint is disabled (and a replay enables it);
 * two replicas on one database deliver each event once; SSRF refusals name `url`.
 */

import { encodeFunctionData, getAddress, type Hex, parseEther } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { erc20Abi } from '../../chain/abi.js';
import { startHealthCheck } from '../../indexer/healthCheck.js';
import { contractValidator, expectMatchesContract } from '../helpers/contract.js';
import { until } from '../helpers/load.js';
import { testPort } from '../helpers/ports.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { type Received, type Receiver, startReceiver, verified } from '../helpers/webhookReceiver.js';
import {
  MNEMONIC,
  mintCalldata as mint,
  startWritePath,
  type Tx,
  UNIT,
  type WritePath,
} from '../helpers/writePath.js';

const BASE_PORT = testPort(20000);
const PROXY_PORT = testPort(20003);
const SCHEDULE_MS = [300, 600, 1200];

let w: WritePath;
let receiver: Receiver;
let makerKey: string;
let takerKey: string;
let failingKey: string;

const maker = mnemonicToAccount(MNEMONIC, { addressIndex: 9 });
const failingMaker = mnemonicToAccount(MNEMONIC, { addressIndex: 12 });
const taker = mnemonicToAccount(MNEMONIC, { addressIndex: 13 });

interface Envelope<T> {
  data: T;
}
interface Hook {
  id: string;
  url: string;
  events: string[];
  secret: string;
  disabledAt: string | null;
  disabledReason: string | null;
  previousSecretExpiresAt: string | null;
}
interface Attempt {
  attempt: number;
  generation: number;
  attemptedAt: string;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  nextAttemptAt: string | null;
}
interface Delivery {
  id: string;
  event: string;
  positionId: string;
  status: string;
  nextAttemptAt: string | null;
  attempts: Attempt[];
}
interface Payload {
  type: string;
  timestamp: string;
  data: {
    positionId: string;
    status: string;
    metadata: Record<string, string> | null;
    health?: { status: string };
  };
}

async function call(svc: TestService, method: string, path: string, key: string, body?: unknown) {
  const res = await svc.get(path, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const parsed = JSON.parse(await res.text()) as Record<string, unknown> & { error?: { parameter?: string } };
  // Every answer, errors included, as /openapi.json documents it (strict: no undocumented field).
  expectMatchesContract(method, path, res, parsed);
  return { status: res.status, body: parsed };
}

async function ok<T>(method: string, path: string, key: string, body?: unknown, svc = w.svc): Promise<T> {
  const r = await call(svc, method, path, key, body);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return (r.body as unknown as Envelope<T>).data;
}

async function openPosition(
  key: string,
  account: typeof maker,
  metadata?: Record<string, string>,
): Promise<Hex> {
  const p = await ok<{ strategyHash: Hex; transactions: Tx[] }>('POST', '/v1/positions', key, {
    chain: 'base',
    wallet: account.address,
    deposits: [
      { symbol: 'USDC', amount: (1_000n * UNIT).toString() },
      { symbol: 'USDT', amount: (1_000n * UNIT).toString() },
    ],
    ...(metadata ? { metadata } : {}),
  });
  await w.sendAll(account, p.transactions);
  return p.strategyHash;
}

/** The verified payload, checked against `WebhookPayload` of the OpenAPI `webhooks`. */
function delivered(secret: string, r: Received): Payload {
  const payload = verified<Payload>(secret, r);
  expect(contractValidator().check('#/components/schemas/WebhookPayload', payload, 'payload')).toEqual([]);
  return payload;
}

const ofType = (type: string, id?: string) => (r: Received) => {
  const body = JSON.parse(r.body) as Payload;
  return body.type === type && (id === undefined || body.data.positionId === id);
};

async function deliveriesOf(hook: string, key: string, svc = w.svc): Promise<Delivery[]> {
  return (await ok<{ deliveries: Delivery[] }>('GET', `/v1/webhooks/${hook}/deliveries`, key, undefined, svc))
    .deliveries;
}

/**
 * The attempts for these endpoints still queued or running (graphile-worker's jobs, in each endpoint's
 * own queues `webhook:<id>:<n>`): none left means no attempt can come any more. A job is removed once
 * its attempt is recorded, so this is polled.
 */
async function queuedAttempts(webhookIds: readonly string[]): Promise<number> {
  const { rows } = await w.svc.services.db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM graphile_worker.jobs
      WHERE task_identifier = 'webhook_deliver' AND split_part(queue_name, ':', 2) = ANY ($1::text[])`,
    [webhookIds],
  );
  return rows[0]!.n;
}

beforeAll(async () => {
  w = await startWritePath({
    basePort: BASE_PORT,
    proxyPort: PROXY_PORT,
    name: 'webhooks-e2e',
    env: {
      WEBHOOK_ALLOW_HTTP: '1',
      WEBHOOK_ALLOW_PRIVATE: '1',
      WEBHOOK_RETRY_SCHEDULE: SCHEDULE_MS.map((ms) => `${ms}ms`).join(','),
      WEBHOOK_TIMEOUT_MS: '2000',
      // The schedule itself, attempt after attempt: the circuit that would put them off has its own test.
      WEBHOOK_CIRCUIT_FAILURES: '1000',
    },
  });
  receiver = await startReceiver();
  const key = (label: string) =>
    w.svc.createKey({ environment: 'LIVE', prepareLimitPerMinute: 1000, label }).then((k) => k.key);
  makerKey = await key('maker');
  takerKey = await key('taker');
  failingKey = await key('failing');
  for (const account of [maker, failingMaker]) {
    for (const symbol of ['USDC', 'USDT'])
      await w.send(maker, { to: w.token(symbol), data: mint(account.address, 100_000n * UNIT) });
  }
  for (const symbol of ['USDC', 'USDT'])
    await w.send(maker, { to: w.token(symbol), data: mint(taker.address, 10_000n * UNIT) });
  for (const account of [failingMaker, taker])
    await w.send(maker, { to: account.address, data: '0x', value: parseEther('1') });
}, 180_000);

afterAll(async () => {
  await receiver?.stop();
  await w?.stop();
});

describe('webhooks', () => {
  let hook: Hook;
  let position: Hex;

  it('delivers position.shipped signed (Standard Webhooks), with the position body and its metadata', async () => {
    hook = await ok<Hook>('POST', '/v1/webhooks', makerKey, {
      url: receiver.url,
      events: ['position.shipped', 'position.filled', 'position.docked', 'position.health_changed'],
    });
    expect(hook.secret).toMatch(/^whsec_/);
    expect(hook.id).toMatch(/^wh_/);
    position = await openPosition(makerKey, maker, { orderRef: 'acme-42' });
    await w.indexer.syncNow();
    const [shipped] = await receiver.waitFor(1, ofType('position.shipped', position));
    const payload = delivered(hook.secret, shipped!);
    expect(payload.type).toBe('position.shipped');
    expect(payload.data).toMatchObject({
      positionId: position,
      status: 'shipped',
      metadata: { orderRef: 'acme-42' },
    });
    // The body is the listed position (GET /v1/positions shows the same fields).
    const listed = await ok<{ positions: Record<string, unknown>[] }>('GET', '/v1/positions', makerKey);
    expect(payload.data).toEqual(listed.positions.find((p) => p.positionId === position));
    // Another secret does not verify it.
    expect(() => verified('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', shipped!)).toThrow();

    const deliveries = await until(
      () => deliveriesOf(hook.id, makerKey),
      (d) => d[0]?.status === 'succeeded',
    );
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]).toMatchObject({
      id: shipped!.headers['webhook-id'],
      event: 'position.shipped',
      status: 'succeeded',
    });
    expect(deliveries[0]!.attempts).toEqual([
      expect.objectContaining({
        attempt: 1,
        generation: 0,
        statusCode: 200,
        error: null,
        nextAttemptAt: null,
      }),
    ]);
  });

  it('delivers position.health_changed where the health check observes it, with the health; a GET writes nothing', async () => {
    const check = startHealthCheck(w.svc.services, { chains: () => ['base'], background: false });
    const healthChanges = async () =>
      (await deliveriesOf(hook.id, makerKey)).filter((d) => d.event === 'position.health_changed').length;
    // First run: the baseline (ok), no event.
    await check.runNow();
    expect(
      (await ok<{ health: { status: string } }>('GET', `/v1/positions/${position}`, makerKey)).health.status,
    ).toBe('ok');
    // The wallet takes its allowance back: the position stalls.
    await w.send(maker, {
      to: w.token('USDC'),
      data: encodeFunctionData({
        abi: erc20Abi,
        functionName: 'approve',
        args: [getAddress(w.base.aqua), 0n],
      }),
    });
    // The read shows the stall at once, and records nothing: no event is queued by a GET.
    expect(
      (await ok<{ health: { status: string } }>('GET', `/v1/positions/${position}`, makerKey)).health.status,
    ).toBe('stalled');
    expect(await healthChanges()).toBe(0);
    // The health check's run observes it, and queues the event in the transaction that records it.
    await check.runNow();
    const [changed] = await receiver.waitFor(1, ofType('position.health_changed', position));
    const payload = delivered(hook.secret, changed!);
    expect(payload.data.health?.status).toBe('stalled');
    // Unchanged health queues nothing more: a run records what it observed (and queues any event) in one
    // transaction before it returns, so once it has returned the endpoint's deliveries are final.
    await check.runNow();
    await ok('GET', `/v1/positions/${position}`, makerKey);
    expect(await healthChanges()).toBe(1);
    expect(receiver.received.filter(ofType('position.health_changed', position))).toHaveLength(1);
    // Covered again (for the swap below).
    await w.send(maker, {
      to: w.token('USDC'),
      data: encodeFunctionData({
        abi: erc20Abi,
        functionName: 'approve',
        args: [getAddress(w.base.aqua), 1_000_000n * UNIT],
      }),
    });
  });

  it('delivers position.filled after a swap and position.docked after the dock', async () => {
    const swap = await ok<{ transactions: Tx[] }>('POST', '/v1/swaps', takerKey, {
      chain: 'base',
      hash: position,
      wallet: taker.address,
      amount: (10n * UNIT).toString(),
      direction: 'aToB',
    });
    await w.sendAll(taker, swap.transactions);
    await w.indexer.syncNow();
    const [filled] = await receiver.waitFor(1, ofType('position.filled', position));
    expect(delivered(hook.secret, filled!).data.status).toBe('filled');

    const dock = await ok<{ transactions: Tx[] }>('POST', `/v1/positions/${position}/dock`, makerKey);
    await w.sendAll(maker, dock.transactions);
    await w.indexer.syncNow();
    const [docked] = await receiver.waitFor(1, ofType('position.docked', position));
    expect(delivered(hook.secret, docked!).data.status).toBe('docked');
    // Re-indexing the same blocks queues nothing twice (one delivery per endpoint, event and position).
    await w.indexer.syncNow();
    const events = (await deliveriesOf(hook.id, makerKey)).map((d) => d.event).sort();
    expect(events).toEqual([
      'position.docked',
      'position.filled',
      'position.health_changed',
      'position.shipped',
    ]);
  });

  it('rotates the secret: a replay is signed with the new and the previous secret during the overlap', async () => {
    const rotated = await ok<Hook>('POST', `/v1/webhooks/${hook.id}/rotate`, makerKey);
    expect(rotated.secret).not.toBe(hook.secret);
    expect(rotated.previousSecretExpiresAt).not.toBeNull();
    const [shipped] = (await deliveriesOf(hook.id, makerKey)).filter((d) => d.event === 'position.shipped');
    const before = receiver.received.length;
    const replayed = await ok<Delivery>(
      'POST',
      `/v1/webhooks/${hook.id}/deliveries/${shipped!.id}/replay`,
      makerKey,
    );
    expect(replayed.status).toBe('pending');
    const [again] = await receiver.waitFor(1, (r) => receiver.received.indexOf(r) >= before);
    expect(again!.headers['webhook-id']).toBe(shipped!.id);
    expect(String(again!.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verified<Payload>(rotated.secret, again!).type).toBe('position.shipped');
    expect(verified<Payload>(hook.secret, again!).type).toBe('position.shipped');
  });

  it('retries a failing receiver on the backoff schedule, then disables the endpoint; a replay enables it', async () => {
    const failing = await startReceiver();
    failing.answer = 500;
    try {
      const broken = await ok<Hook>('POST', '/v1/webhooks', failingKey, {
        url: failing.url,
        events: ['position.shipped'],
      });
      const id = await openPosition(failingKey, failingMaker);
      await w.indexer.syncNow();
      const attempts = await failing.waitFor(SCHEDULE_MS.length + 1);
      const gaps = attempts.slice(1).map((a, i) => a.at - attempts[i]!.at);
      // Each gap at least its delay of the schedule (never sooner). Not compared with each other: a busy
      // box can hold one retry back past the next one's delay.
      for (const [i, gap] of gaps.entries()) expect(gap).toBeGreaterThanOrEqual(SCHEDULE_MS[i]! - 50);
      const [delivery] = await until(
        () => deliveriesOf(broken.id, failingKey),
        (d) => d[0]?.status === 'failed',
      );
      expect(delivery).toMatchObject({ positionId: id, status: 'failed', nextAttemptAt: null });
      expect(delivery!.attempts.map((a) => [a.attempt, a.statusCode, a.error])).toEqual(
        [1, 2, 3, 4].map((n) => [n, 500, 'the receiver answered HTTP 500']),
      );
      expect(delivery!.attempts.slice(0, 3).every((a) => a.nextAttemptAt !== null)).toBe(true);
      expect(delivery!.attempts[3]!.nextAttemptAt).toBeNull();
      const disabled = await ok<Hook>('GET', `/v1/webhooks/${broken.id}`, failingKey);
      expect(disabled.disabledAt).not.toBeNull();
      expect(disabled.disabledReason).toMatch(/failed 4 times/);
      expect(await w.svc.services.metrics!.render()).toMatch(
        /gateway_webhook_deliveries_total\{outcome="exhausted"\} 1/,
      );
      // No more attempts once disabled: no attempt of the delivery is left queued (so none can come)…
      await expect.poll(() => queuedAttempts([broken.id]), { timeout: 20_000, interval: 100 }).toBe(0);
      expect(failing.received).toHaveLength(SCHEDULE_MS.length + 1);

      failing.answer = 204;
      await ok('POST', `/v1/webhooks/${broken.id}/deliveries/${delivery!.id}/replay`, failingKey);
      const [replayed] = await until(
        () => deliveriesOf(broken.id, failingKey),
        (d) => d[0]?.status === 'succeeded',
      );
      expect(replayed!.attempts.at(-1)).toMatchObject({ generation: 1, attempt: 1, statusCode: 204 });
      expect((await ok<Hook>('GET', `/v1/webhooks/${broken.id}`, failingKey)).disabledAt).toBeNull();
      // …and the replay, a later attempt of the same delivery, is the only one after the four.
      expect(failing.received).toHaveLength(SCHEDULE_MS.length + 2);
    } finally {
      await failing.stop();
    }
  });

  it('two replicas on one database deliver each event once', async () => {
    const replica = await startTestService({
      chains: w.devnet.chains,
      env: {
        INDEXER: 'off',
        DATABASE_URL: w.svc.services.config.databaseUrl!,
        WEBHOOK_ALLOW_HTTP: '1',
        WEBHOOK_ALLOW_PRIVATE: '1',
      },
    });
    const shared = await startReceiver();
    try {
      const key = (await w.svc.createKey({ environment: 'LIVE', prepareLimitPerMinute: 1000 })).key;
      const hooks = [
        await ok<Hook>('POST', '/v1/webhooks', key, { url: shared.url, events: ['position.shipped'] }),
        await ok<Hook>(
          'POST',
          '/v1/webhooks',
          key,
          { url: shared.url, events: ['position.shipped'] },
          replica,
        ),
      ];
      const ids: Hex[] = [];
      for (let i = 0; i < 4; i++) ids.push(await openPosition(key, maker));
      await w.indexer.syncNow();
      await shared.waitFor(ids.length * hooks.length);
      // Every delivery recorded once, succeeded at its first attempt, and none of their attempts left
      // queued on either replica: no further request can come.
      // (The receiver may see a request before its attempt is recorded: read until all are.)
      const deliveries = await until(
        async () => (await Promise.all(hooks.map((h) => deliveriesOf(h.id, key)))).flat(),
        (ds) => ds.length >= ids.length * hooks.length && ds.every((d) => d.status === 'succeeded'),
      );
      expect(deliveries).toHaveLength(ids.length * hooks.length);
      for (const d of deliveries) expect([d.status, d.attempts.length]).toEqual(['succeeded', 1]);
      await expect
        .poll(() => queuedAttempts(hooks.map((h) => h.id)), { timeout: 20_000, interval: 100 })
        .toBe(0);
      const webhookIds = shared.received.map((r) => String(r.headers['webhook-id']));
      // Each recorded delivery arrived once: a second request names the id sent twice.
      expect(webhookIds.sort()).toEqual(deliveries.map((d) => d.id).sort());
      for (const r of shared.received) {
        const secret = hooks.find((h) => {
          try {
            verified(h.secret, r);
            return true;
          } catch {
            return false;
          }
        });
        expect(secret).toBeDefined();
      }
    } finally {
      await shared.stop();
      await replica.stop();
    }
  });

  it('lists, reads and deletes endpoints of the key only', async () => {
    const list = await ok<{ webhooks: Hook[] }>('GET', '/v1/webhooks', makerKey);
    expect(list.webhooks.map((h) => h.id)).toEqual([hook.id]);
    expect(list.webhooks[0]).not.toHaveProperty('secret');
    expect((await call(w.svc, 'GET', `/v1/webhooks/${hook.id}`, takerKey)).status).toBe(404);
    expect((await call(w.svc, 'DELETE', `/v1/webhooks/${hook.id}`, takerKey)).status).toBe(404);
    expect(await ok('DELETE', `/v1/webhooks/${hook.id}`, makerKey)).toEqual({ id: hook.id, deleted: true });
    expect((await call(w.svc, 'GET', `/v1/webhooks/${hook.id}`, makerKey)).status).toBe(404);
    const bad = await call(w.svc, 'GET', '/v1/webhooks/nope', makerKey);
    expect([bad.status, bad.body.error?.parameter]).toEqual([400, 'webhookId']);
  });
});

describe('webhook URLs (SSRF), with the production defaults', () => {
  let svc: TestService;
  let key: string;
  beforeAll(async () => {
    svc = await startTestService();
    key = (await svc.createKey({ environment: 'LIVE' })).key;
  });
  afterAll(async () => {
    await svc?.stop();
  });

  it.each([
    ['http://example.org/hook', 'https'],
    ['https://127.0.0.1/hook', 'loopback'],
    ['https://localhost/hook', 'loopback'],
    ['https://10.1.2.3/hook', 'private'],
    ['https://192.168.0.10/hook', 'private'],
    ['https://169.254.169.254/latest/meta-data', 'linkLocal'],
    ['https://[::1]/hook', 'loopback'],
    ['https://[fe80::1]/hook', 'linkLocal'],
    ['https://[fd00::1]/hook', 'uniqueLocal'],
    ['https://[::ffff:127.0.0.1]/hook', 'loopback'],
    ['https://[::ffff:10.0.0.1]/hook', 'private'],
    ['https://[::127.0.0.1]/hook', 'globally routable'],
    ['https://[fec0::1]/hook', 'globally routable'],
    ['https://user:pass@example.org/hook', 'credentials'],
    ['not a url', 'absolute URL'],
  ])('refuses %s (400 naming url)', async (url, why) => {
    const r = await call(svc, 'POST', '/v1/webhooks', key, { url, events: ['position.shipped'] });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'INVALID_PARAMETER', parameter: 'url' });
    expect(JSON.stringify(r.body.error)).toContain(why);
  });

  it('refuses unknown events and fields, naming them', async () => {
    const events = await call(svc, 'POST', '/v1/webhooks', key, {
      url: 'https://1.1.1.1/h',
      events: ['position.burnt'],
    });
    expect([events.status, events.body.error?.parameter]).toEqual([400, 'events[0]']);
    const field = await call(svc, 'POST', '/v1/webhooks', key, {
      url: 'https://1.1.1.1/h',
      events: [],
      secret: 'x',
    });
    expect([field.status, field.body.error?.parameter]).toEqual([400, 'secret']);
  });

  it('registers a public https URL', async () => {
    const r = await call(svc, 'POST', '/v1/webhooks', key, {
      url: 'https://1.1.1.1/hook',
      events: ['position.filled'],
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
  });
});
