/**
 * Bad input proves nothing breaks. Property-based: fast-check generates 10,200 hostile
 * requests over every endpoint (wrong types, huge numbers, unicode and lone surrogates, injection
 * strings, repeated and bracketed parameters, oversized and deeply nested bodies, wrong content types,
 * oversized and CR/LF-laden headers, weird methods, bad keys, Idempotency-Keys and origins) and sends
 * them as raw bytes over real sockets to ONE service on a devnet whose catalogue the indexer filled
 * (then paused), so the chain-backed paths (quote, prepare, pilot, balances) really run.
 *
 * Every answer must be a documented status of its endpoint: a valid success body, or the SPEC §7
 * envelope (code of that status, requestId = X-Request-Id, retryable as the table says). No 5xx, the
 * server stays up, no stack trace leaks, no injected header comes back. Afterwards the store holds
 * exactly the positions of the 200 prepares, each one valid; no API key appeared; the catalogue
 * tables are byte for byte what they were.
 *
 * Devnet ports 19600-19602. Half the requests come from the fixed seed, half from the run's random one;
 * a failure names its seed, and TEST_SEED=<seed> generates its requests again.
 *
 * The pieces live in test/e2e/fuzz/ (modules, not test files): config.ts (seed, scale, requests per
 * endpoint), arbitraries.ts (the hostile values and encodings every generator draws from), request.ts
 * (the raw request a generator yields), cases/ (one generator per endpoint family, built by
 * cases/index.ts from the context.ts the setup below fills in), oracle.ts (the statuses each endpoint
 * may answer and the checks of every answer), run.ts (sends the requests, checks the answers). This
 * file starts the service, runs them and asserts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Devnet } from '../../devnet/devnet.js';
import { startIndexer } from '../../indexer/index.js';
import { POSITION_LIMITS, WALLET_PATTERN } from '../../resolvers/positions/request.js';
import { query } from '../../store/db.js';
import { startSeededDevnet } from '../helpers/devnetSnapshot.js';
import { seeds } from '../helpers/seeds.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { generators } from './fuzz/cases/index.js';
import { BASE_PORT, type Endpoint, RUNS, SCALE } from './fuzz/config.js';
import type { FuzzContext } from './fuzz/context.js';
import type { Case } from './fuzz/request.js';
import { describeFailure, type Outcome, run } from './fuzz/run.js';

// ---------------------------------------------------------------------------------------------------
// The service under test and what the generators need from it

let devnet: Devnet;
let dataDir: string;
let svc: TestService;
/** What the generators read of the service: complete once beforeAll has run. */
let ctx: FuzzContext;
/** Position ids of the 200 prepares (the oracle adds them), to compare with the store. */
const preparedIds = new Set<string>();
let apiKeysBefore = 0;
let catalogueBefore: Record<string, string> = {};
const CATALOGUE = [
  'strategies',
  'swaps',
  'balance_changes',
  'volume_hourly',
  'rollups',
  'indexer_checkpoints',
];

async function catalogueSnapshot(): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const table of CATALOGUE) {
    const { rows } = await query<{ n: string; digest: string | null }>(
      svc.services.db,
      `SELECT count(*) AS n, md5(string_agg(t::text, '|' ORDER BY t::text)) AS digest FROM ${table} t`,
    );
    out[table] = `${rows[0]!.n}:${rows[0]!.digest}`;
  }
  return out;
}

async function countOf(table: string): Promise<number> {
  const { rows } = await query<{ n: string }>(svc.services.db, `SELECT count(*) AS n FROM ${table}`);
  return Number(rows[0]!.n);
}

const json = (res: Response) => res.json() as Promise<Record<string, unknown>>;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'fuzz-e2e-'));
  // The activity bot stays idle and the indexer runs once, then never again: the catalogue is frozen.
  devnet = await startSeededDevnet({ basePort: BASE_PORT, dataDir, activityMs: 0 });
  svc = await startTestService({
    chains: devnet.chains,
    // A request that never completes (a Content-Length with no body) is cut after 1.5 s, not 10.
    env: { INDEXER: 'off', TRUST_PROXY: '1', RPC_TIMEOUT_MS: '10000', REQUEST_TIMEOUT_MS: '1500' },
  });
  const port = Number(new URL(svc.url).port);
  const indexer = await startIndexer(svc.services, { background: false });
  await indexer.syncNow();
  await indexer.refreshNow();
  await indexer.stop();

  const create = async (input: Record<string, unknown>) =>
    (await svc.createKey({ prepareLimitPerMinute: 100_000, ...input })).key;
  const liveKeys: string[] = [];
  for (let i = 0; i < 12; i++) liveKeys.push(await create({ environment: 'LIVE', label: `fuzz ${i}` }));
  const testKey = await create({ environment: 'TEST' });
  const noScopeKey = await create({ environment: 'LIVE', scopes: [] });
  const originKey = await create({ environment: 'LIVE', origins: ['https://integrator.example'] });
  const revoked = await svc.createKey({ environment: 'LIVE' });
  await svc.graphql('mutation($id: String!) { revokeApiKey(keyId: $id) }', { id: revoked.keyId });
  const revokedKey = revoked.key;

  /** Positions prepared in setup: [id, the key that prepared it]. */
  const known: [string, string][] = [];
  // One position per live key, so GET /v1/positions/{id} has 200s (owner) and 404s (any other key).
  for (const key of liveKeys) {
    const res = await svc.get('/v1/positions', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({
        chain: 'base',
        wallet: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
        deposits: [
          { symbol: 'USDC', amount: '1000000' },
          { symbol: 'USDT', amount: '1000000' },
        ],
      }),
    });
    const body = (await json(res)) as { data: { strategyHash: string } };
    expect(res.status, JSON.stringify(body)).toBe(200);
    known.push([body.data.strategyHash, key]);
  }

  const { rows } = await query<{ strategy_hash: string; app: string; chain_key: string; pair_key: string }>(
    svc.services.db,
    'SELECT strategy_hash, app, chain_key, pair_key FROM strategies',
  );
  const strategyHashes = [...new Set(rows.map((r) => r.strategy_hash))];
  const quotable = rows
    .filter(
      (r) =>
        r.pair_key === 'USDC/USDT' &&
        r.app === devnet.chains.find((c) => c.key === r.chain_key)?.router.toLowerCase(),
    )
    .map((r): [string, string] => [r.strategy_hash, r.chain_key]);
  expect(strategyHashes.length).toBeGreaterThan(3);
  expect(quotable.length).toBeGreaterThan(0);
  const list = (await json(
    await svc.get('/api/strategies?limit=1', { headers: { 'x-forwarded-for': '10.255.0.1' } }),
  )) as { data: { page: { nextCursor: string | null } } };
  const cursor = list.data.page.nextCursor ?? '';
  ctx = {
    port,
    liveKeys,
    testKey,
    noScopeKey,
    originKey,
    revokedKey,
    known,
    strategyHashes,
    quotable,
    cursor,
  };

  apiKeysBefore = await countOf('api_keys');
  catalogueBefore = await catalogueSnapshot();
}, 120_000);

afterAll(async () => {
  await svc?.stop();
  await devnet?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

// ---------------------------------------------------------------------------------------------------

const SEEDS = seeds();

describe(`fuzzing every endpoint (seeds ${SEEDS.join(', ')})`, () => {
  const outcomes: Outcome[] = [];

  it('answers every generated request with a documented status and a valid body or envelope', async () => {
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    const arbitraries = generators(ctx);
    const cases: Case[] = [];
    for (const seed of SEEDS) {
      let offset = 0;
      for (const [endpoint, runs] of Object.entries(RUNS) as [Endpoint, number][]) {
        const numRuns = Math.ceil((runs * SCALE) / SEEDS.length);
        for (const c of fc.sample(arbitraries[endpoint], { seed: seed + offset++, numRuns }))
          cases.push({ ...c, seed });
      }
    }
    // Interleave the endpoints so the buckets, caches and the pool see a mixed load (seeded shuffle).
    const shuffled = [...cases];
    const order = fc.sample(fc.integer({ min: 0, max: 2 ** 31 - 1 }), {
      seed: SEEDS.at(-1)!,
      numRuns: shuffled.length,
    });
    for (let i = shuffled.length - 1; i > 0; i--) {
      const j = order[i]! % (i + 1);
      [shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!];
    }
    expect(shuffled.length).toBeGreaterThanOrEqual(Math.min(1, SCALE) * 10_000);
    const t1 = performance.now();
    const cpu1 = process.cpuUsage(cpu0);
    outcomes.push(...(await run(shuffled, ctx.port, preparedIds)));
    const cpu2 = process.cpuUsage(cpu0);
    console.info(
      `generated in ${Math.round(t1 - t0)} ms (cpu ${Math.round((cpu1.user + cpu1.system) / 1000)}), sent in ${Math.round(performance.now() - t1)} ms (cpu ${Math.round((cpu2.user + cpu2.system - cpu1.user - cpu1.system) / 1000)})`,
    );

    const failures = outcomes.filter((o) => o.failure);
    const perEndpoint = Object.fromEntries(
      Object.keys(RUNS).map((e) => {
        const mine = outcomes.filter((o) => o.c.endpoint === e);
        const statuses: Record<number, number> = {};
        for (const o of mine)
          if (o.response) statuses[o.response.status] = (statuses[o.response.status] ?? 0) + 1;
        const ms = mine.map((o) => o.ms).sort((a, b) => a - b);
        return [
          e,
          {
            sent: mine.length,
            statuses,
            p50: Math.round(ms[ms.length >> 1] ?? 0),
            max: Math.round(ms.at(-1) ?? 0),
          },
        ];
      }),
    );
    console.info(`fuzz seeds ${SEEDS.join(', ')}: ${outcomes.length} requests`, JSON.stringify(perEndpoint));
    expect(failures.length, failures.slice(0, 15).map(describeFailure).join('\n')).toBe(0);
    // ~35 s of CPU (the service and the client share this process); more on a busy machine.
  }, 300_000);

  it('really exercised the chain-backed and success paths', () => {
    const ok = (e: Endpoint) =>
      outcomes.filter((o) => o.c.endpoint === e && o.response?.status === 200).length;
    for (const e of [
      'stats',
      'chains',
      'strategies',
      'strategy-detail',
      'quote',
      'badge',
      'pilot',
      'balances',
      'prepare',
      'position',
    ] as const)
      expect(ok(e), e).toBeGreaterThan(0);
  });

  it('stays up and keeps answering normal requests', async () => {
    expect((await svc.get('/healthz')).status).toBe(200);
    const stats = await svc.get('/api/stats', { headers: { 'x-forwarded-for': '10.254.0.1' } });
    expect(stats.status).toBe(200);
  });

  it('stored exactly the positions of the 200 prepares, each one valid', async () => {
    const { rows } = await query<{
      strategy_hash: string;
      wallet: string;
      amount_a: string;
      amount_b: string;
      chain_key: string;
      maker_fee_bps: number;
      protocol_fee_bps: number;
      metadata: Record<string, unknown> | null;
      payload: { status?: string };
    }>(
      svc.services.db,
      'SELECT strategy_hash, wallet, amount_a::text, amount_b::text, chain_key, maker_fee_bps, protocol_fee_bps, metadata, payload FROM positions',
    );
    for (const [id] of ctx.known) preparedIds.add(id.toLowerCase());
    expect(new Set(rows.map((r) => r.strategy_hash))).toEqual(preparedIds);
    expect(rows.length).toBe(preparedIds.size);
    for (const row of rows) {
      expect(row.strategy_hash).toMatch(/^0x[0-9a-f]{64}$/);
      expect(row.wallet).toMatch(WALLET_PATTERN);
      for (const amount of [row.amount_a, row.amount_b]) {
        expect(amount).toMatch(/^[1-9][0-9]*$/);
        expect(BigInt(amount) <= POSITION_LIMITS.maxAmount).toBe(true);
      }
      expect(['base', 'arc', 'baseSepolia']).toContain(row.chain_key);
      expect(row.maker_fee_bps).toBeGreaterThanOrEqual(0);
      expect(row.maker_fee_bps).toBeLessThanOrEqual(POSITION_LIMITS.maxMakerFeeBps);
      expect(row.protocol_fee_bps).toBe(5000);
      expect(row.payload.status).toBe('prepared');
      for (const value of Object.values(row.metadata ?? {})) expect(typeof value).toBe('string');
    }
  });

  it('created no API key and left the catalogue tables unchanged', async () => {
    expect(await countOf('api_keys')).toBe(apiKeysBefore);
    expect(await catalogueSnapshot()).toEqual(catalogueBefore);
  });
});
