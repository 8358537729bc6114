/**
 * A chain reorganisation seen through the public surface, on the devnet, over HTTP against a started
 * service (no mocks): a position prepared with POST /v1/positions and shipped by its wallet is then
 * reorganised away (evm_snapshot / evm_revert on base, and a longer chain without the ship). After the
 * indexer's rewind every surface agrees: GET /v1/positions/{id} and GET /v1/positions say `prepared`,
 * /api/strategy-detail is 404 and the list of /api/strategies no longer holds it, the SSE stream of /api/events carries `chain.rewound` (reason `reorg`,
 * the fork block), and the webhook receives a verified `position.reverted`. Shipped again on the new
 * chain, the position is `shipped` everywhere again and a second `position.shipped` is delivered (a new
 * webhook-id: the observation revision is part of its dedupe key).
 * Devnet on 19940-19942; the RPC proxy in front of base on 19943.
 */
import type { Hex, TransactionReceipt } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DevnetRpc, devnetRpc } from '../../devnet/wallet.js';
import { contractValidator, expectMatchesContract } from '../helpers/contract.js';
import { until } from '../helpers/load.js';
import { testPort } from '../helpers/ports.js';
import { openSse, type SseStream } from '../helpers/sse.js';
import { type Received, type Receiver, startReceiver, verified } from '../helpers/webhookReceiver.js';
import {
  MNEMONIC,
  mintCalldata,
  startWritePath,
  type Tx,
  UNIT,
  type WritePath,
} from '../helpers/writePath.js';

const BASE_PORT = testPort(19940);
const PROXY_PORT = testPort(19943);
/** How long an event may take to reach the stream or the receiver: generous, for a busy machine. */
const DEADLINE_MS = 60_000;

let w: WritePath;
let anvil: DevnetRpc;
let receiver: Receiver;
let sse: SseStream;
/** The stream's position before the journey: a client resuming from it reads what is stored now. */
let startId: string;
/** Messages of the stream before the journey (the seeded history the hub had not streamed yet). */
let journeyFrom = 0;
let key: string;
let hook: { id: string; secret: string };

const maker = mnemonicToAccount(MNEMONIC, { addressIndex: 9 });

interface Listed {
  positionId: Hex;
  strategyHash: Hex;
  status: string;
  observedOnChain: boolean;
  volumeUsd: number | null;
  firstSeenOnChainAt: string | null;
  firstSeenFilledAt: string | null;
  firstSeenDockedAt: string | null;
  metadata: Record<string, string> | null;
}
interface Payload {
  type: string;
  timestamp: string;
  data: Listed;
}
/** A message of the stream with its data parsed (`id` as the `id:` line gives it). */
interface Event {
  id: string;
  event: string;
  data: Record<string, unknown>;
}

const rpc = <T>(method: string, params: unknown[] = []) =>
  anvil.request({ method, params } as never) as Promise<T>;
const head = async () => Number(await rpc<Hex>('eth_blockNumber'));

/** A call of the public surface with the integrator's key, checked against the published contract. */
async function call<T>(
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  const res = await w.svc.get(path, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const parsed = JSON.parse(await res.text()) as T;
  expectMatchesContract(method, path, res, parsed);
  return { status: res.status, body: parsed };
}

async function ok<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
  const r = await call<{ data: T }>(method, path, body);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.data;
}

/**
 * What the read surfaces say of the position: its status, its listing, its strategy detail and whether
 * the catalogue's list of strategies (newest first) holds it.
 */
async function surfaces(id: Hex) {
  const status = await ok<Listed>('GET', `/v1/positions/${id}`);
  const list = await ok<{ positions: Listed[] }>('GET', '/v1/positions?limit=100');
  const listed = list.positions.filter((p) => p.positionId === id);
  expect(listed, 'listed once').toHaveLength(1);
  const detail = await call<{ data: { hash: string; shipped: { tx: string; block: number } } }>(
    'GET',
    `/api/strategy-detail?hash=${id}&chain=base`,
  );
  const catalogue = await ok<{ strategies: { hash: string }[] }>(
    'GET',
    '/api/strategies?chain=base&sort=recent&limit=100',
  );
  const inCatalogue = catalogue.strategies.some((e) => e.hash.toLowerCase() === id.toLowerCase());
  return { status, listed: listed[0]!, detail, inCatalogue };
}

/** The stream's messages of one kind (parsed), optionally about one strategy. */
/** What the stream carried since the seeded history: the journey's events. */
const journey = () => sse.messages.slice(journeyFrom);

function streamed(kind: string, hash?: Hex): Event[] {
  return journey()
    .filter((m) => m.event === kind)
    .map((m) => ({ id: m.id, event: m.event, data: JSON.parse(m.data) as Record<string, unknown> }))
    .filter((e) => hash === undefined || String(e.data.hash).toLowerCase() === hash.toLowerCase());
}

async function waitStreamed(kind: string, count: number, hash?: Hex): Promise<Event[]> {
  await sse.waitFor(() => streamed(kind, hash).length >= count, DEADLINE_MS, `${count} × ${kind}`);
  const events = streamed(kind, hash);
  for (const e of events)
    expect(contractValidator().check('#/components/schemas/CatalogueEventMessage', e, e.event)).toEqual([]);
  return events;
}

const ofType = (type: string, id: Hex) => (r: Received) => {
  const body = JSON.parse(r.body) as Payload;
  return body.type === type && body.data.positionId === id;
};

/** The event types the receiver got, in arrival order, each webhook-id once. */
function typesDelivered(): string[] {
  const seen = new Set<string>();
  return receiver.received
    .filter((r) => {
      const id = String(r.headers['webhook-id']);
      return !seen.has(id) && seen.add(id);
    })
    .map((r) => (JSON.parse(r.body) as Payload).type);
}

/** The verified payload, checked against `WebhookPayload` of the OpenAPI `webhooks`. */
function delivered(r: Received): Payload {
  const payload = verified<Payload>(hook.secret, r);
  expect(contractValidator().check('#/components/schemas/WebhookPayload', payload, 'payload')).toEqual([]);
  return payload;
}

/** The wallet sends the prepared transactions in step order; the ship's receipt. */
async function sendPrepared(txs: readonly Tx[]): Promise<TransactionReceipt> {
  let last: TransactionReceipt | undefined;
  for (const tx of txs) last = await w.send(maker, { to: tx.to, data: tx.data, value: BigInt(tx.value) });
  expect(txs.at(-1)?.purpose).toBe('ship');
  return last!;
}

beforeAll(async () => {
  // The delivery worker runs inside the service and delivers to the local receiver over plain http.
  w = await startWritePath({
    basePort: BASE_PORT,
    proxyPort: PROXY_PORT,
    name: 'reorg-journey-e2e',
    env: { WEBHOOK_ALLOW_HTTP: '1', WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_TIMEOUT_MS: '2000' },
  });
  anvil = devnetRpc(w.base.rpcUrl);
  receiver = await startReceiver();
  key = (await w.svc.createKey({ environment: 'LIVE', prepareLimitPerMinute: 1000, label: 'reorg journey' }))
    .key;
  for (const symbol of ['USDC', 'USDT'])
    await w.send(maker, { to: w.token(symbol), data: mintCalldata(maker.address, 100_000n * UNIT) });
  // Every lifecycle event, so that anything the reorg sends besides `position.reverted` would show.
  hook = await ok('POST', '/v1/webhooks', {
    url: receiver.url,
    events: ['position.shipped', 'position.filled', 'position.docked', 'position.reverted'],
  });
  // The seeded history indexed first: the checkpoint is at the head, and the stream opened after it
  // carries the journey's events only.
  await w.indexer.syncNow();
  const { rows } = await w.svc.services.db.query<{ id: string | null }>(
    'SELECT max(id)::text AS id FROM catalogue_events',
  );
  startId = rows[0]!.id ?? '0';
  sse = await openSse(`${w.svc.url}/api/events`);
  expect(sse.res.status).toBe(200);
  // The stream starts where its process's event hub stands, which may be short of the last stored event
  // on a busy box: the events up to the seeded history's last one are streamed first, not the journey's.
  await sse.waitFor(() => Number(sse.lastEventId) >= Number(startId), DEADLINE_MS, 'the seeded history');
  journeyFrom = sse.messages.length;
}, 180_000);

afterAll(async () => {
  sse?.close();
  await receiver?.stop();
  await w?.stop();
});

describe('a reorg seen through the public surface', () => {
  let position: Hex;
  let transactions: Tx[];
  let snapshotId: Hex;
  let forkBlock: number;
  let firstShip: TransactionReceipt;
  let firstSeen: string;
  let firstDelivery: Received;

  it('prepares a position: prepared in its status and the list, nothing in the catalogue', async () => {
    const p = await ok<{ strategyHash: Hex; transactions: Tx[]; status: string }>('POST', '/v1/positions', {
      chain: 'base',
      wallet: maker.address,
      deposits: [
        { symbol: 'USDC', amount: (1_000n * UNIT).toString() },
        { symbol: 'USDT', amount: (1_000n * UNIT).toString() },
      ],
      metadata: { orderRef: 'reorg-1' },
    });
    expect(p.status).toBe('prepared');
    position = p.strategyHash;
    transactions = p.transactions;
    expect(transactions.map((t) => t.purpose)).toEqual(['approve', 'approve', 'ship']);

    const s = await surfaces(position);
    expect(s.status).toMatchObject({ status: 'prepared', observedOnChain: false, firstSeenOnChainAt: null });
    expect(s.inCatalogue, 'in the catalogue list').toBe(false);
    expect(s.listed).toMatchObject({
      status: 'prepared',
      observedOnChain: false,
      metadata: { orderRef: 'reorg-1' },
    });
    expect(s.detail.status).toBe(404);
  }, 60_000);

  it('ships it: shipped in the status and the list, the detail answers, strategy.shipped streamed, position.shipped delivered', async () => {
    forkBlock = await head();
    snapshotId = await rpc<Hex>('evm_snapshot');
    firstShip = await sendPrepared(transactions);
    await w.indexer.syncNow();

    const s = await surfaces(position);
    expect(s.status).toMatchObject({ status: 'shipped', observedOnChain: true, volumeUsd: 0 });
    expect(s.status.firstSeenOnChainAt).not.toBeNull();
    firstSeen = s.status.firstSeenOnChainAt!;
    expect(s.listed).toMatchObject({
      status: 'shipped',
      observedOnChain: true,
      firstSeenOnChainAt: firstSeen,
    });
    expect(s.detail.status).toBe(200);
    expect(s.detail.body.data.hash).toBe(position);
    expect(s.inCatalogue, 'in the catalogue list').toBe(true);
    expect(s.detail.body.data.shipped).toMatchObject({
      tx: firstShip.transactionHash,
      block: Number(firstShip.blockNumber),
    });

    const [shipped] = await waitStreamed('strategy.shipped', 1, position);
    expect(shipped!.data).toMatchObject({
      chain: 'base',
      txHash: firstShip.transactionHash,
      block: Number(firstShip.blockNumber),
    });
    expect(String(shipped!.data.maker).toLowerCase()).toBe(maker.address.toLowerCase());

    const [hit] = await receiver.waitFor(1, ofType('position.shipped', position), DEADLINE_MS);
    firstDelivery = hit!;
    const payload = delivered(firstDelivery);
    expect(payload.data).toMatchObject({
      positionId: position,
      status: 'shipped',
      metadata: { orderRef: 'reorg-1' },
    });
    // The body is the position as the list shows it.
    expect(payload.data).toEqual(s.listed);
  }, 180_000);

  it('reorganises the ship away: prepared everywhere, the detail 404 and out of the list, chain.rewound streamed, position.reverted delivered', async () => {
    const orphanHead = await head();
    expect(orphanHead - forkBlock).toBe(transactions.length);
    // anvil answers false, and changes nothing, when it no longer holds the snapshot.
    expect(await rpc<boolean>('evm_revert', [snapshotId]), `evm_revert ${snapshotId}`).toBe(true);
    expect(await head()).toBe(forkBlock);
    // The other history: empty blocks, longer than the orphaned one.
    await rpc('anvil_mine', [`0x${(orphanHead - forkBlock + 2).toString(16)}`]);
    expect(await head()).toBeGreaterThan(orphanHead);
    // The fork is found, rewound and the new blocks indexed in one sync.
    const [baseSync] = (await w.indexer.syncNow()).filter((r) => r.chain === 'base');
    expect(baseSync!.rewound).toBe(orphanHead - forkBlock);

    // The stream says the chain was rewound, from the block both histories share.
    const [rewound] = await waitStreamed('chain.rewound', 1);
    expect(rewound!.data).toMatchObject({
      chain: 'base',
      chainId: w.base.chainId,
      reason: 'reorg',
      forkBlock,
      strategies: 1,
      swaps: 0,
      docks: 0,
    });
    expect(Number(rewound!.id)).toBeGreaterThan(Number(streamed('strategy.shipped', position)[0]!.id));

    // Read after the stream's event: the service has then dropped what it cached of the chain.
    const s = await surfaces(position);
    expect(s.status).toMatchObject({
      status: 'prepared',
      observedOnChain: false,
      volumeUsd: null,
      firstSeenOnChainAt: null,
    });
    expect(s.listed).toMatchObject({ status: 'prepared', observedOnChain: false, firstSeenOnChainAt: null });
    const onlyPrepared = await ok<{ positions: Listed[] }>('GET', '/v1/positions?status=prepared');
    expect(onlyPrepared.positions.map((p) => p.positionId)).toContain(position);
    const onlyShipped = await ok<{ positions: Listed[] }>('GET', '/v1/positions?status=shipped');
    expect(onlyShipped.positions.map((p) => p.positionId)).not.toContain(position);
    expect(s.detail.status).toBe(404);
    expect(s.detail.body).toMatchObject({ error: { code: 'NOT_FOUND' } });
    expect(s.inCatalogue, 'in the catalogue list').toBe(false);

    const [reverted] = await receiver.waitFor(1, ofType('position.reverted', position), DEADLINE_MS);
    const payload = delivered(reverted!);
    // `data.status` says where the position stands now.
    expect(payload.data).toMatchObject({ positionId: position, status: 'prepared', observedOnChain: false });
    expect(payload.data).toEqual(s.listed);
    expect(reverted!.headers['webhook-id']).not.toBe(firstDelivery.headers['webhook-id']);
    // Nothing but the revert since the ship (a delivery is at least once: counted by webhook-id).
    expect(typesDelivered()).toEqual(['position.shipped', 'position.reverted']);
  }, 180_000);

  it('ships it again on the new chain: shipped everywhere again, a second position.shipped delivered', async () => {
    // The wallet's state is what it was when the position was prepared: the same steps go through.
    const again = await sendPrepared(transactions);
    expect(Number(again.blockNumber)).toBeGreaterThan(Number(firstShip.blockNumber));
    await w.indexer.syncNow();

    const s = await surfaces(position);
    expect(s.status).toMatchObject({ status: 'shipped', observedOnChain: true });
    // A new observation: the first one went with the orphaned blocks.
    expect(Date.parse(s.status.firstSeenOnChainAt!)).toBeGreaterThanOrEqual(Date.parse(firstSeen));
    expect(s.listed).toMatchObject({ status: 'shipped', observedOnChain: true });
    expect(s.detail.status).toBe(200);
    expect(s.inCatalogue, 'in the catalogue list').toBe(true);
    expect(s.detail.body.data.shipped).toMatchObject({
      tx: again.transactionHash,
      block: Number(again.blockNumber),
    });

    const shipped = await waitStreamed('strategy.shipped', 2, position);
    expect(shipped[1]!.data).toMatchObject({
      txHash: again.transactionHash,
      block: Number(again.blockNumber),
    });
    // The whole stream of the journey, in order: the ship, the rewind, the ship again.
    expect(journey().map((m) => [m.event, (JSON.parse(m.data) as { hash?: string }).hash ?? null])).toEqual([
      ['strategy.shipped', position],
      ['chain.rewound', null],
      ['strategy.shipped', position],
    ]);
    expect(Number(shipped[1]!.id)).toBeGreaterThan(Number(streamed('chain.rewound')[0]!.id));
    // A client resuming from before the journey is not sent the orphaned ship: the rewind deleted it.
    const resumed = await openSse(`${w.svc.url}/api/events?lastEventId=${startId}`);
    try {
      expect(resumed.res.status).toBe(200);
      const replay = await resumed.waitForMessages(2, DEADLINE_MS);
      expect(replay).toEqual(journey().slice(1));
    } finally {
      resumed.close();
    }

    // Another delivery, not a repeat of the first: the revision is in its dedupe key, so a new webhook-id.
    const [second] = await receiver.waitFor(
      1,
      (r) =>
        ofType('position.shipped', position)(r) &&
        r.headers['webhook-id'] !== firstDelivery.headers['webhook-id'],
      DEADLINE_MS,
    );
    expect(delivered(second!).data).toMatchObject({ positionId: position, status: 'shipped' });
  }, 180_000);

  it('lists the three deliveries of the endpoint, each succeeded once', async () => {
    interface Delivery {
      id: string;
      event: string;
      positionId: string;
      status: string;
    }
    const deliveries = await until(
      async () =>
        (await ok<{ deliveries: Delivery[] }>('GET', `/v1/webhooks/${hook.id}/deliveries`)).deliveries,
      (d) => d.length === 3 && d.every((x) => x.status === 'succeeded'),
      DEADLINE_MS,
    );
    expect(deliveries.map((d) => [d.event, d.positionId, d.status]).sort()).toEqual(
      [
        ['position.reverted', position, 'succeeded'],
        ['position.shipped', position, 'succeeded'],
        ['position.shipped', position, 'succeeded'],
      ].sort(),
    );
    expect(new Set(deliveries.map((d) => d.id)).size).toBe(3);
    expect([...new Set(receiver.received.map((r) => String(r.headers['webhook-id'])))].sort()).toEqual(
      deliveries.map((d) => d.id).sort(),
    );
    expect(typesDelivered()).toEqual(['position.shipped', 'position.reverted', 'position.shipped']);
  }, 180_000);
});
