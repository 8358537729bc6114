/**
 * `npm run bench:fairness`: fair share. One heavy but legitimate client must not slow everyone else.
 * One service (main.ts, a process of its own) on a devnet of its own (embedded), the machine's Postgres
 * (a fresh database) and a Redis server of this bench's own, under one evenly paced load of public reads
 * (the bystander: stats, chains, badge, strategy lists; a distinct client per request, TRUST_PROXY=1, so
 * no read bucket refuses), in four phases of one run (after a warm-up phase that is not reported):
 *   0. quiet: nothing else running;
 *   a. exports: one key owning BENCH_FAIRNESS_POSITIONS positions (seeded by SQL) runs 20 concurrent
 *      `GET /v1/positions/export?format=csv` (its own http agent), each sent again when answered (after
 *      its Retry-After when refused) for the whole phase; statuses and bytes counted;
 *   b. webhooks: key B has five bad endpoints (never answers; 200 after 8 s; 500; a 50 MB body; a 302),
 *      key C one healthy receiver, all subscribed to position.shipped; ten positions of each key, prepared
 *      over HTTP before the phase, are shipped on the devnet during it (the maker wallet signs). Reports
 *      the healthy endpoint's delivery latency, ship receipt → verified arrival;
 *   c. analytics: two loops (each sends as soon as answered) of the heaviest /graphql document the service
 *      accepts with ANALYTICS_TOKEN: 20 aliased `volumeSeries(granularity: HOUR)` over 92 days, or the
 *      largest smaller one when that is refused (the refusal is detected and counted); accepted vs refused.
 * Each phase reports the bystander's p50/p99 and the ratio of its p99 to the quiet phase's. The goal:
 * every ratio ≤ 2, and the healthy endpoint's delivery p99 < 5 s during (b).
 * The heavy clients (export readers, analytics loops, webhook receivers, the ship signer) stand for other
 * machines, but here they share the service's two cores: once the service is up, this process runs at a
 * lower CPU priority (nice BENCH_FAIRNESS_CLIENT_NICE, default 10) and the bystander's process at the
 * service's (0), so what a phase measures is the service's share, not the clients' own CPU.
 *   BENCH_FAIRNESS_RATE (bystander requests/s, default 150), BENCH_FAIRNESS_SECONDS (per phase, default
 *   20: the p99 of 3,000 samples moves less than that of 1,500),
 *   BENCH_FAIRNESS_POSITIONS (the exporting key's positions, default 100000),
 *   BENCH_FAIRNESS_DELIVERY_WAIT_SECONDS (longest wait for the healthy deliveries after the last ship,
 *   default 60), BENCH_FAIRNESS_DEVNET_PORT (first of the devnet's three ports, default 19790).
 * Prints one JSON object and writes bench/results/fairness.json.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { getPriority, setPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createWalletClient, type Hex, http as viemHttp } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { createChainClient, viemChainOf } from '../chain/clients.js';
import { manifestPathOf } from '../devnet/devnet.js';
import { readChainsFile } from '../lib/chains.js';
import { createTestDatabase } from '../test/helpers/postgres.js';
import { startRedisServer } from '../test/helpers/redis.js';
import { type Receiver, startReceiver, verified } from '../test/helpers/webhookReceiver.js';
import {
  ANALYTICS_LOOPS,
  ANALYTICS_TOKEN,
  analyticsLoad,
  badEndpoints,
  EXPORTS,
  exportLoad,
  heaviestAccepted,
  percentile,
  seedPositions,
  seriesDocument,
  sleep,
} from './fairnessLoads.js';
import type { LoadResult } from './lib.js';
import { machine, writeResult } from './measure.js';
import { pacedApart } from './paced.js';
import { freePort, profileFlags, type ServiceProcess, spawnService } from './processes.js';

const RATE = Number(process.env.BENCH_FAIRNESS_RATE ?? 150);
const SECONDS = Number(process.env.BENCH_FAIRNESS_SECONDS ?? 20);
const POSITIONS = Number(process.env.BENCH_FAIRNESS_POSITIONS ?? 100_000);
const DELIVERY_WAIT_SECONDS = Number(process.env.BENCH_FAIRNESS_DELIVERY_WAIT_SECONDS ?? 60);
const DEVNET_PORT = Number(process.env.BENCH_FAIRNESS_DEVNET_PORT ?? 19790);
const CLIENT_NICE = Number(process.env.BENCH_FAIRNESS_CLIENT_NICE ?? 10);
const INTERNAL_TOKEN = 'bench-fairness-internal-token-0123';
const WEBHOOK_POSITIONS = 10;
const P99_RATIO_TARGET = 2;
const DELIVERY_P99_TARGET_MS = 5_000;
const maker = mnemonicToAccount('test test test test test test test test test test test junk', {
  addressIndex: 9,
});

const PATHS = [
  '/api/stats',
  '/api/chains',
  '/api/badge?metric=volume30',
  '/api/strategies?chain=base&pair=USDC%2FUSDT',
  '/api/strategies?chain=arc&pair=USDC%2FEURC',
  '/api/strategies?limit=20',
];

/** A /graphql call with the internal token (administration: keys). */
async function internalGraphql<T>(url: string, query: string): Promise<T> {
  const res = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${INTERNAL_TOKEN}` },
    body: JSON.stringify({ query }),
  });
  const body = (await res.json()) as { data?: T; errors?: unknown };
  if (res.status !== 200 || body.errors) throw new Error(`/graphql ${res.status}: ${JSON.stringify(body)}`);
  return body.data!;
}

async function createLiveKey(url: string, label: string): Promise<{ key: string; keyId: string }> {
  const data = await internalGraphql<{ createApiKey: { key: string; keyId: string } }>(
    url,
    `mutation { createApiKey(input: { environment: LIVE, label: "${label}", prepareLimitPerMinute: 1000 }) { key keyId } }`,
  );
  return data.createApiKey;
}

async function main(): Promise<void> {
  const began = performance.now();
  const stops: Array<() => Promise<unknown>> = [];
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-fairness-'));
  stops.push(async () => rmSync(dataDir, { recursive: true, force: true }));
  try {
    const redis = await startRedisServer(await freePort());
    stops.unshift(() => redis.stop());
    const database = await createTestDatabase();
    stops.unshift(() => database.drop());
    const service: ServiceProcess = await spawnService(
      {
        PORT: '0',
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        DEVNET_PORT: String(DEVNET_PORT),
        DATABASE_URL: database.url,
        REDIS_URL: redis.url,
        TRUST_PROXY: '1',
        INTERNAL_TOKEN,
        ANALYTICS_TOKEN,
        // DATABASE_URL set: receivers on 127.0.0.1 over http need both.
        WEBHOOK_ALLOW_PRIVATE: '1',
        WEBHOOK_ALLOW_HTTP: '1',
        // info: spawnService waits for the `gateway ready` line.
        LOG_LEVEL: 'info',
      },
      // BENCH_CPU_PROF_DIR / BENCH_NODE_FLAGS (e.g. --trace-gc) reach the service.
      { nodeArgs: profileFlags() },
    );
    stops.unshift(() => service.stop());
    const url = service.url;
    // The service, its anvils and Redis were started at this process's priority; the clients from here on
    // run below it (children inherit it), the bystander back at the service's.
    const servicePriority = getPriority();
    setPriority(servicePriority + CLIENT_NICE);
    const startedMs = Math.round(performance.now() - began);
    const base = readChainsFile(manifestPathOf(dataDir)).find((c) => c.key === 'base');
    if (!base) throw new Error('no base chain in the devnet manifest');

    // Key A and its positions (phase a).
    const keyA = await createLiveKey(url, 'fairness exports');
    const seedMs = await seedPositions(database.url, keyA.keyId, base, POSITIONS);

    for (const path of PATHS)
      await (await fetch(`${url}${path}`, { headers: { 'x-forwarded-for': '192.0.2.9' } })).text();
    const phase = (name: string, seconds = SECONDS) =>
      pacedApart(name, url, PATHS, RATE, seconds, {
        distinctClients: true,
        priority: servicePriority,
      });
    const results: Array<LoadResult & { heavy?: unknown }> = [];

    // Not reported: the indexer's first passes, JIT and pools settle.
    await phase('warm-up', Math.min(SECONDS, 5));
    results.push(await phase('0. quiet'));

    // (a) exports.
    const exports = exportLoad(url, keyA.key);
    try {
      const figures = await phase(`a. ${EXPORTS} concurrent CSV exports of ${POSITIONS} positions`);
      results.push({ ...figures, heavy: await exports.stop() });
    } finally {
      await exports.stop();
    }
    // The cut exports' last pages and sockets end before the next phase.
    await sleep(2_000);

    // (b) webhooks: receivers, keys, endpoints and prepared positions first, the ships during the phase.
    const healthy: Receiver = await startReceiver();
    stops.unshift(() => healthy.stop());
    const bad = await badEndpoints(healthy.url);
    let badStopped = false;
    const stopBad = async () => {
      if (badStopped) return;
      badStopped = true;
      await Promise.all(bad.map((b) => b.stop()));
    };
    stops.unshift(stopBad);
    const keyB = await createLiveKey(url, 'fairness bad endpoints');
    const keyC = await createLiveKey(url, 'fairness healthy endpoint');
    const register = async (key: string, hookUrl: string) => {
      const res = await fetch(`${url}/v1/webhooks`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({ url: hookUrl, events: ['position.shipped'] }),
      });
      const body = (await res.json()) as { data?: { id: string; secret: string } };
      if (res.status !== 201 && res.status !== 200)
        throw new Error(`POST /v1/webhooks ${res.status}: ${JSON.stringify(body)}`);
      return body.data!;
    };
    const badHooks = [];
    for (const b of bad) badHooks.push(await register(keyB.key, b.url));
    const healthyHook = await register(keyC.key, healthy.url);
    const chain = createChainClient(base, { rpcTimeoutMs: 10_000 });
    const wallet = createWalletClient({
      account: maker,
      chain: viemChainOf(base),
      transport: viemHttp(base.rpcUrl),
    });
    const prepared: Array<{ owner: 'B' | 'C'; hash: Hex; ship: { to: Hex; data: Hex } }> = [];
    for (let i = 0; i < WEBHOOK_POSITIONS; i++) {
      for (const [owner, key, offset] of [
        ['B', keyB.key, 2_000_000],
        ['C', keyC.key, 3_000_000],
      ] as const) {
        const res = await fetch(`${url}/v1/positions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
          body: JSON.stringify({
            chain: 'base',
            wallet: maker.address,
            deposits: [
              { symbol: 'USDC', amount: String(offset + i) },
              { symbol: 'USDT', amount: '1000000' },
            ],
            includeApprovals: false,
          }),
        });
        if (res.status !== 200) throw new Error(`prepare answered ${res.status}: ${await res.text()}`);
        const p = (await res.json()) as {
          data: { strategyHash: Hex; transactions: { to: Hex; data: Hex }[] };
        };
        prepared.push({ owner, hash: p.data.strategyHash, ship: p.data.transactions.at(-1)! });
      }
    }
    const shippedAt = new Map<string, number>();
    let shipError: unknown = null;
    const shipping = (async () => {
      // The ships spread over the first 60% of the phase (the bystander's process starts in under a second).
      const gap = (SECONDS * 600) / prepared.length;
      const start = performance.now() + 500;
      for (const [i, p] of prepared.entries()) {
        await sleep(start + i * gap - performance.now());
        const hash = await wallet.sendTransaction({ to: p.ship.to, data: p.ship.data });
        await chain.waitForTransactionReceipt({ hash });
        shippedAt.set(p.hash.toLowerCase(), Date.now());
      }
    })().catch((error: unknown) => {
      shipError = error;
    });
    const webhookFigures = await phase('b. webhooks: 5 bad endpoints (key B), 1 healthy (key C)');
    await shipping;
    if (shipError) throw shipError;
    const healthyHashes = prepared.filter((p) => p.owner === 'C').map((p) => p.hash.toLowerCase());
    const lastShip = Math.max(...shippedAt.values());
    await healthy
      .waitFor(
        healthyHashes.length,
        (r) => healthyHashes.some((h) => r.body.toLowerCase().includes(h)),
        Math.max(1, lastShip + DELIVERY_WAIT_SECONDS * 1000 - Date.now()),
      )
      .catch(() => []);
    const deliveryMs: number[] = [];
    for (const h of healthyHashes) {
      const got = healthy.received.find((r) => r.body.toLowerCase().includes(h));
      if (!got) continue;
      verified(healthyHook.secret, got);
      deliveryMs.push(got.at - shippedAt.get(h)!);
    }
    const badHashes = prepared.filter((p) => p.owner === 'B').map((p) => p.hash.toLowerCase());
    const delivery = {
      from: 'ship receipt → verified arrival at the healthy receiver',
      positions: healthyHashes.length,
      delivered: deliveryMs.length,
      undelivered: healthyHashes.length - deliveryMs.length,
      waitedUpToSeconds: DELIVERY_WAIT_SECONDS,
      p50: percentile(deliveryMs, 50),
      p99: percentile(deliveryMs, 99),
      max: percentile(deliveryMs, 100),
      samples: deliveryMs,
    };
    results.push({
      ...webhookFigures,
      heavy: {
        healthyDelivery: delivery,
        badEndpointRequests: Object.fromEntries(bad.map((b) => [b.name, b.hits])),
        redirectFollowed: healthy.received.filter((r) =>
          badHashes.some((h) => r.body.toLowerCase().includes(h)),
        ).length,
      },
    });
    // Key B's endpoints go, so their retries do not run into phase (c).
    for (const hook of badHooks)
      await fetch(`${url}/v1/webhooks/${hook.id}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${keyB.key}` },
      }).then((r) => r.arrayBuffer());
    await stopBad();
    await sleep(2_000);

    // (c) analytics.
    const heaviest = await heaviestAccepted(url);
    const analytics = analyticsLoad(url, seriesDocument(heaviest.aliases, heaviest.days));
    try {
      const figures = await phase(
        `c. ${ANALYTICS_LOOPS} analytics loops: ${heaviest.aliases} × volumeSeries(HOUR) over ${heaviest.days} days`,
      );
      const heavy = await analytics.stop();
      results.push({
        ...figures,
        heavy: {
          document: { aliases: heaviest.aliases, days: heaviest.days, responseBytes: heaviest.bytes },
          refusedByProbe: heaviest.refused,
          ...heavy,
        },
      });
    } finally {
      await analytics.stop();
    }

    const quiet = results[0]!.p99;
    const phases = results.map((r) => ({
      name: r.name,
      p50: r.p50,
      p99: r.p99,
      p99RatioToQuiet: quiet > 0 ? Number((r.p99 / quiet).toFixed(2)) : null,
      p90: r.p90,
      max: r.max,
      requestsPerSec: r.requestsPerSec,
      total: r.total,
      non2xx: r.non2xx,
      errors: r.errors,
      ...(r.heavy ? { heavy: r.heavy } : {}),
    }));
    const report = {
      bench: 'fairness',
      machine: machine({ rate: RATE, seconds: SECONDS, positions: POSITIONS, clientNice: CLIENT_NICE }),
      bystander: `paced public reads, ${RATE} req/s for ${SECONDS} s per phase, a distinct client per request`,
      setup: { serviceReadyMs: startedMs, seedPositionsMs: seedMs },
      goal: { p99RatioToQuietAtMost: P99_RATIO_TARGET, healthyDeliveryP99UnderMs: DELIVERY_P99_TARGET_MS },
      phases,
      verdict: {
        everyPhaseWithin2x: phases.every(
          (p) => p.p99RatioToQuiet !== null && p.p99RatioToQuiet <= P99_RATIO_TARGET,
        ),
        healthyDeliveryP99Under5s:
          delivery.undelivered === 0 && delivery.p99 !== null && delivery.p99 < DELIVERY_P99_TARGET_MS,
      },
      elapsedSeconds: Math.round((performance.now() - began) / 1000),
    };
    console.log(JSON.stringify(report, null, 2));
    const file = writeResult('fairness', report);
    console.error(`written to ${file}`);
  } finally {
    for (const stop of stops) await stop().catch((error: unknown) => console.error('stop failed', error));
  }
}

await main();
