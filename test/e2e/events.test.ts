/**
 * GET /api/events, over the socket against the service indexing a devnet: the seed's
 * history as ordered events, a live swap arriving, resume with Last-Event-ID (exactly the missed
 * events), the reset beyond the window, the caps and their slots, and a stopping service ending its
 * streams instead of waiting for them. Devnet ports 19960-19962.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Address, Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { swapCalldata } from '../../chain/calldata.js';
import { decodeStrategy } from '../../chain/order.js';
import { exactInTakerTraits } from '../../chain/takerTraits.js';
import type { Devnet } from '../../devnet/devnet.js';
import { devnetRpc, sendAndWait } from '../../devnet/wallet.js';
import { pruneCatalogueEvents } from '../../store/catalogueEvents.js';
import { contractValidator, expectMatchesContract } from '../helpers/contract.js';
import { startSeededDevnet } from '../helpers/devnetSnapshot.js';
import { testPort } from '../helpers/ports.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { openSse, type SseMessage, type SseStream } from '../helpers/sse.js';

const BASE_PORT = testPort(19960);
const METRICS_TOKEN = 'metrics-token-events-0123456789';

let devnet: Devnet;
let dataDir: string;
let svc: TestService;
const open: SseStream[] = [];
/** Each test speaks as its own client (TRUST_PROXY): its own caps and `events` bucket. */
let clients = 0;
const client = () => ({ 'x-forwarded-for': `10.0.0.${++clients}` });

async function stream(query = '', headers: Record<string, string> = {}): Promise<SseStream> {
  const s = await openSse(`${svc.url}/api/events${query}`, headers);
  open.push(s);
  if (!s.res.ok) throw new Error(`GET /api/events${query}: ${s.res.status} ${await s.res.text()}`);
  return s;
}

interface StoredEvent {
  id: number;
  kind: string;
  data: Record<string, unknown>;
}

async function storedEvents(afterId = 0): Promise<StoredEvent[]> {
  const { rows } = await svc.services.db.query<{ id: string; kind: string; data: Record<string, unknown> }>(
    'SELECT id, kind, data FROM catalogue_events WHERE id > $1 ORDER BY id',
    [afterId],
  );
  return rows.map((r) => ({ id: Number(r.id), kind: r.kind, data: r.data }));
}

/** A taker's swap (anvil's account 4, approved for the router by the devnet) on a base USDC/USDT strategy. */
/** Shorter than a stream lives here: the server's request timeout must not cut an open stream. */
const REQUEST_TIMEOUT_MS = 3000;

async function swap(): Promise<Hex> {
  const chain = devnet.chains.find((c) => c.key === 'base')!;
  const { rows } = await svc.services.db.query<{ strategy: Hex; token_a: Address; token_b: Address }>(
    `SELECT strategy, token_a, token_b FROM strategies WHERE chain_key = 'base' AND pair_key = 'USDC/USDT'
     AND status = 'active' AND app = $1 ORDER BY shipped_block, strategy_hash LIMIT 1`,
    [chain.router.toLowerCase()],
  );
  const s = rows[0]!;
  const rpc = devnetRpc(chain.rpcUrl);
  const taker = ((await rpc.request({ method: 'eth_accounts' })) as Address[])[4]!;
  const receipt = await sendAndWait(
    rpc,
    taker,
    chain.router as Address,
    swapCalldata({
      order: decodeStrategy(s.strategy)!,
      tokenIn: s.token_a,
      tokenOut: s.token_b,
      amount: 1_000_000n,
      takerTraits: exactInTakerTraits(),
    }),
  );
  return receipt.transactionHash;
}

/** Each message against `CatalogueEventMessage` of the published document (strict: no undocumented field). */
function expectDocumented(messages: SseMessage[]): void {
  for (const m of messages) {
    const value = { id: m.id, event: m.event, data: JSON.parse(m.data) };
    expect(contractValidator().check('#/components/schemas/CatalogueEventMessage', value, m.event)).toEqual(
      [],
    );
  }
}

const parsed = (m: SseMessage) => ({ id: Number(m.id), kind: m.event, data: JSON.parse(m.data) });

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'events-e2e-'));
  // No activity bot: the events are the seed's and this suite's swaps.
  devnet = await startSeededDevnet({ basePort: BASE_PORT, dataDir, activityMs: 3_600_000 });
  svc = await startTestService({
    chains: devnet.chains,
    env: {
      INDEXER_POLL_MS: '100',
      EVENTS_HEARTBEAT_MS: '300',
      // Shorter than a stream lives here: the server's request timeout must not cut an open stream.
      REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
      EVENTS_MAX_STREAMS_PER_CLIENT: '2',
      EVENTS_MAX_STREAMS: '3',
      TRUST_PROXY: '1',
      METRICS_TOKEN,
    },
  });
}, 120_000);

afterAll(async () => {
  for (const s of open) s.close();
  await svc?.stop();
  await devnet?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('GET /api/events', () => {
  it('replays the indexed history in chain order with increasing ids, as the catalogue holds it', async () => {
    const stored = await storedEvents();
    const s = await stream('?lastEventId=0', { ...client(), 'accept-encoding': 'gzip, br' });
    expect(s.res.status).toBe(200);
    expect(s.res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(s.res.headers.get('cache-control')).toBe('no-store, no-transform');
    expect(s.res.headers.get('x-accel-buffering')).toBe('no');
    expect(s.res.headers.get('access-control-allow-origin')).toBe('*');
    expect(s.res.headers.get('content-encoding')).toBeNull();
    expect(s.res.headers.get('ratelimit-policy')).toBe('events;w=60;limit=30');
    expect(s.res.headers.get('x-request-id')).toBeTruthy();

    const messages = (await s.waitForMessages(stored.length)).map(parsed);
    expectMatchesContract('GET', '/api/events', s.res, null);
    expectDocumented(s.messages);
    expect(s.retry).toBe(3000);
    expect(messages).toEqual(stored);
    const ids = messages.map((m) => m.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(ids.length);

    // One event per catalogue fact: every strategy shipped, every counted swap, every dock.
    const db = svc.services.db;
    const one = async (sql: string) => Number((await db.query<{ n: string }>(sql)).rows[0]!.n);
    const kinds = (kind: string) => messages.filter((m) => m.kind === kind);
    expect(kinds('strategy.shipped').length).toBe(await one('SELECT count(*) AS n FROM strategies'));
    expect(kinds('strategy.docked').length).toBe(
      await one(`SELECT count(*) AS n FROM strategies WHERE status = 'docked'`),
    );
    expect(kinds('strategy.docked').length).toBeGreaterThan(0);
    expect(kinds('strategy.swapped').length).toBe(await one('SELECT sum(swap_count) AS n FROM strategies'));
    expect(kinds('strategy.swapped').length).toBeGreaterThan(0);

    // Chain order: a strategy's ship comes before its swaps, its swaps before its dock.
    const seen = new Map<string, string>();
    for (const m of messages) {
      const key = `${m.data.chain}:${m.data.hash}`;
      const before = seen.get(key);
      if (m.kind === 'strategy.shipped') expect(before, key).toBeUndefined();
      else expect(before, `${m.kind} of ${key} after ${before}`).toMatch(/shipped|swapped/);
      seen.set(key, m.kind);
    }
    const swapped = kinds('strategy.swapped')[0]!.data;
    expect(swapped).toMatchObject({
      chain: expect.any(String),
      chainId: expect.any(Number),
      hash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      pair: expect.stringMatching(/^[A-Z]+\/[A-Z]+$/),
      tokenIn: { symbol: expect.any(String), amount: expect.stringMatching(/^\d+$/), decimals: 6 },
      tokenOut: { symbol: expect.any(String), amount: expect.stringMatching(/^\d+$/), decimals: 6 },
      volumeUsd: expect.any(Number),
      block: expect.any(Number),
      txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    const shipped = kinds('strategy.shipped')[0]!.data;
    expect(shipped).toMatchObject({
      tokenA: { amount: expect.stringMatching(/^\d+$/) },
      pair: expect.any(String),
    });
    s.close();
  }, 60_000);

  it('delivers a swap made on the chain live, and pings while idle', async () => {
    const opened = Date.now();
    const s = await stream('', client());
    expect(s.res.status).toBe(200);
    // The stream's position comes first, as an id without data.
    const head = (await storedEvents()).at(-1)!.id;
    await s.waitFor(() => s.lastEventId === String(head), 30_000, 'the position id');
    expect(s.messages).toEqual([]);
    await s.waitFor(() => s.comments.includes('ping'), 30_000, 'a ping');
    // Past REQUEST_TIMEOUT_MS: the stream is still open and still pinged. The ping that arrives later
    // than that after the stream opened is the proof (the deadline only ends a hung test).
    const late = () =>
      s.comments.filter((c, i) => c === 'ping' && s.commentsAt[i]! - opened > REQUEST_TIMEOUT_MS);
    await s.waitFor(() => late().length > 0, 30_000, `a ping past REQUEST_TIMEOUT_MS`);

    const tx = await swap();
    const [message] = await s.waitForMessages(1);
    const event = parsed(message!);
    expect(event.kind).toBe('strategy.swapped');
    expect(event.data.txHash).toBe(tx);
    expect(event.data.chain).toBe('base');
    expect(event.id).toBeGreaterThan(head);
    expect(s.lastEventId).toBe(String(event.id));
    s.close();
  }, 60_000);

  it('listens on one connection per process, and keeps streaming when that connection is lost', async () => {
    const listeners = async () =>
      (
        await svc.services.db.query<{ pid: number }>(
          `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN catalogue_events'`,
        )
      ).rows.map((r) => r.pid);
    const s1 = await stream('', client());
    const s2 = await stream('', client());
    const [pid] = await listeners();
    expect(await listeners()).toEqual([pid]);
    // The store ends the connection (a restart, a failover): the hub connects again and reads what it missed.
    await svc.services.db.query('SELECT pg_terminate_backend($1)', [pid]);
    const tx = await swap();
    for (const s of [s1, s2]) {
      const [message] = await s.waitForMessages(1);
      expect(parsed(message!).data.txHash).toBe(tx);
    }
    await expect.poll(listeners, { timeout: 30_000 }).toHaveLength(1);
    expect((await listeners())[0]).not.toBe(pid);
    s1.close();
    s2.close();
  }, 60_000);

  it('resumes after Last-Event-ID with exactly the events missed, then goes on live', async () => {
    const who = client();
    const first = await stream('', who);
    await first.waitFor(() => first.lastEventId !== '', 30_000, 'the position id');
    const last = first.lastEventId;
    first.close();

    const missed = [await swap(), await swap()];
    await expect.poll(async () => (await storedEvents(Number(last))).length, { timeout: 10_000 }).toBe(2);

    // The header wins over the query (an EventSource reconnects to its first URL with the header).
    const resumed = await stream('?lastEventId=0', { ...who, 'last-event-id': last });
    expect(resumed.res.status).toBe(200);
    const got = (await resumed.waitForMessages(2)).map(parsed);
    expect(got).toEqual(await storedEvents(Number(last)));
    expect(got.map((m) => m.data.txHash)).toEqual(missed);
    const live = await swap();
    await resumed.waitForMessages(3);
    expect(parsed(resumed.messages[2]!).data.txHash).toBe(live);
    expect(resumed.messages.length).toBe(3);
    resumed.close();

    // The query parameter alone resumes too.
    const byQuery = await stream(`?lastEventId=${last}`, client());
    expect((await byQuery.waitForMessages(3)).map((m) => parsed(m).data.txHash)).toEqual([...missed, live]);
    byQuery.close();
  }, 60_000);

  it('refuses an id that is not one, naming the parameter', async () => {
    for (const [query, headers, parameter] of [
      ['', { 'last-event-id': 'abc' }, 'Last-Event-ID'],
      ['?lastEventId=-1', {}, 'lastEventId'],
      ['?lastEventId=1&lastEventId=2', {}, 'lastEventId'],
    ] as const) {
      const res = await svc.get(`/api/events${query}`, { headers: { ...client(), ...headers } });
      expect(res.status).toBe(400);
      const body = (await res.json()) as { error: { code: string; parameter: string } };
      expectMatchesContract('GET', `/api/events${query}`, res, body);
      expect(body.error).toMatchObject({ code: 'INVALID_PARAMETER', parameter });
    }
  });

  it('caps open streams per client (429) and per server (503); a disconnect frees the slot', async () => {
    const gauge = async () => {
      const text = await (
        await svc.get('/metrics', { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
      ).text();
      return Number(/^gateway_event_streams_open (\d+)$/m.exec(text)?.[1]);
    };
    await expect.poll(gauge, { timeout: 30_000 }).toBe(0);
    const a = client();
    const a1 = await stream('', a);
    const a2 = await stream('', a);
    expect([a1.res.status, a2.res.status]).toEqual([200, 200]);
    const refused = await svc.get('/api/events', { headers: a });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    const refusal = (await refused.json()) as { error: { code: string } };
    expect(refusal.error.code).toBe('RATE_LIMITED');
    expectMatchesContract('GET', '/api/events', refused, refusal);

    const b1 = await stream('', client());
    expect(b1.res.status).toBe(200);
    expect(await gauge()).toBe(3);
    const full = await svc.get('/api/events', { headers: client() });
    expect(full.status).toBe(503);
    expect(full.headers.get('retry-after')).not.toBeNull();
    const unavailable = (await full.json()) as { error: { code: string; retryable: boolean } };
    expect(unavailable.error).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', retryable: true });
    expectMatchesContract('GET', '/api/events', full, unavailable);

    a1.close();
    await expect.poll(gauge, { timeout: 30_000 }).toBe(2);
    const again = await stream('', a);
    expect(again.res.status).toBe(200);
    for (const s of [a2, b1, again]) s.close();
    await expect.poll(gauge, { timeout: 30_000 }).toBe(0);
  }, 120_000);

  it('makes no event twice when a chain is indexed again', async () => {
    const before = await storedEvents();
    const s = await stream('', client());
    const db = svc.services.db;
    const { rows } = await db.query<{ last_block: string }>(
      `SELECT last_block FROM indexer_checkpoints WHERE chain_key = 'base'`,
    );
    // Without its checkpoint the chain is indexed again from its start block, every row already stored.
    await db.query(`DELETE FROM indexer_checkpoints WHERE chain_key = 'base'`);
    await expect
      .poll(
        async () =>
          (
            await db.query(
              `SELECT 1 FROM indexer_checkpoints WHERE chain_key = 'base' AND last_block >= $1`,
              [rows[0]!.last_block],
            )
          ).rowCount,
        { timeout: 20_000 },
      )
      .toBe(1);
    expect(await storedEvents()).toEqual(before);
    // A later event is the marker: the stream sends in id order, so once the next swap arrives, any event
    // the re-indexing sent would have arrived before it.
    const marker = await swap();
    await s.waitForMessages(1, 30_000);
    expect(s.messages.map((m) => parsed(m).data.txHash)).toEqual([marker]);
    s.close();
  }, 60_000);

  it('starts with a reset event when the id is older than the window or unknown', async () => {
    const ids = (await storedEvents()).map((e) => e.id);
    const head = ids.at(-1)!;
    const bound = ids.at(-3)!;
    expect(await pruneCatalogueEvents(svc.services.db, { retainHours: 24, retainCount: 2 })).toBe(
      ids.length - 2,
    );
    expect((await storedEvents()).map((e) => e.id)).toEqual(ids.slice(-2));

    const stale = await stream('', { ...client(), 'last-event-id': '1' });
    const [reset] = await stale.waitForMessages(1);
    expect(reset!.event).toBe('reset');
    expect(reset!.id).toBe(String(head));
    expectDocumented([reset!]);
    expect(JSON.parse(reset!.data)).toEqual({
      reason: 'window_exceeded',
      lastEventId: '1',
      oldestResumableId: String(bound),
    });
    // Then live, from the newest event on.
    const tx = await swap();
    await stale.waitForMessages(2);
    expect(parsed(stale.messages[1]!).data.txHash).toBe(tx);
    stale.close();

    const future = await stream(`?lastEventId=${head + 1000}`, client());
    const [unknown] = await future.waitForMessages(1);
    expect(unknown!.event).toBe('reset');
    expect(JSON.parse(unknown!.data).reason).toBe('unknown_id');
    future.close();

    // The oldest id still in the window resumes without a reset.
    const edge = await stream(`?lastEventId=${bound}`, client());
    const kinds = (await edge.waitForMessages(3)).map((m) => m.event);
    expect(kinds).not.toContain('reset');
    edge.close();
  }, 60_000);

  it('streams the same events, with the same ids, from a replica that does not index', async () => {
    const replica = await startTestService({
      chains: devnet.chains,
      env: { DATABASE_URL: svc.services.config.databaseUrl!, INDEXER: 'off', TRUST_PROXY: '1' },
    });
    try {
      const here = await stream('', client());
      const there = await openSse(`${replica.url}/api/events`, client());
      open.push(there);
      expect(there.res.status).toBe(200);
      await there.waitFor(() => there.lastEventId !== '', 30_000, 'the position id');
      const tx = await swap();
      const [a] = await here.waitForMessages(1);
      const [b] = await there.waitForMessages(1);
      expect(b).toEqual(a);
      expect(parsed(b!).data.txHash).toBe(tx);
      here.close();
      there.close();
    } finally {
      await replica.stop();
    }
  }, 60_000);

  it('ends its streams when the service stops, instead of waiting for them', async () => {
    // A service whose drain would wait for open requests two minutes (REQUEST_TIMEOUT_MS): a stream the
    // stop did not end at once would outlive this test's 60 s, so its end at all is the proof.
    const stopped = await startTestService({
      chains: devnet.chains,
      env: { INDEXER: 'off', REQUEST_TIMEOUT_MS: '120000' },
    });
    let stopping: Promise<void> | undefined;
    try {
      const s = await openSse(`${stopped.url}/api/events`, client());
      open.push(s);
      expect(s.res.status).toBe(200);
      stopping = stopped.stop();
      await s.ended;
    } finally {
      await (stopping ?? stopped.stop());
    }
  }, 60_000);
});
