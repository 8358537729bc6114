/**
 * `npm run bench`: the one bench command. Starts the service itself (`main.ts`, a process of
 * its own) against the machine's real Postgres (a fresh database on 127.0.0.1:5432) and Redis
 * (127.0.0.1:6379, a prefix of this run), over a devnet of its own (three anvil chains, seeded; the
 * embedded indexer fills the catalogue; 20 stored strategies per (chain, pair) make full pages of 20),
 * and measures in ONE run:
 *   cached GET /api/stats, GET /api/badge, filtered GET /api/strategies (uncached), POST /v1/positions,
 *   POST /v1/swaps and POST /v1/positions/{id}/dock
 * each against an express 5 hello-world and bare node:http serving the same bytes to the same requests
 * (bench/servers/hello.ts, processes of their own), on the same machine. Every request of every target,
 * baselines included, comes from another client (a distinct X-Forwarded-For, TRUST_PROXY=1), so no
 * read bucket fills and the limiter does its full work per request (a count in Redis, in the script
 * call of its event-loop turn: rest/windowCounter.ts); prepares, swaps and docks use one key whose
 * agreed prepare and write buckets (prepareLimitPerMinute,
 * writeLimitPerMinute: 100000) are never reached. Swaps sell 1 USDC to the devnet's earliest open
 * USDC/USDT strategy on base; docks prepare the dock of one position of the key, shipped by a maker
 * wallet before the run (bench/writeSetup.ts, shared with bench:swap). Rounds are interleaved
 * (express, node:http, gateway); the median of each figure is reported, and `× express` is the median
 * of the per-round ratios (bench/allReport.ts). Targets (MET /
 * MISSED): cached stats and badge ≥ 1.0× express, the uncached strategies list ≥ 0.7× express, a
 * prepare, a swap and a dock each ≤ 1.5 ms of the gateway's CPU per request (with the gateway's chain
 * RPC requests per call, from its /metrics, beside them: the target is one); the gateway's peak RSS
 * ≤ 300 MB. The other figures have their own scripts: chains and strategy detail (bench:reads),
 * the list's p99 at half of peak on 1M/10M (bench:catalogue), quote overhead (bench:quote), swap and
 * dock as lone sequential calls (bench:swap); bench/results/RESULTS.md maps them.
 *   npm run bench            BENCH_SECONDS (5) per run, BENCH_ROUNDS (3), BENCH_CONNECTIONS (20),
 *                            BENCH_WARM_UP_SECONDS (15: the gateway's load per target before its rounds)
 *   BENCH_ONLY=stats,badge   a subset of the targets (stats, badge, strategies, prepare, swap, dock)
 *   BENCH_CPU_PROF=dir       the service runs with --cpu-prof, profiles written to dir on exit
 *   BENCH_NODE_FLAGS='…'     more node / V8 flags for the service (e.g. --perf-basic-prof for `perf`)
 * Ports 19740-19749. Prints a table and writes bench/results/all.json (all-partial.json with BENCH_ONLY).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { DEVNET_CHAINS } from '../devnet/chains.js';
import { startDevnet } from '../devnet/devnet.js';
import { createDb } from '../store/db.js';
import { migrate } from '../store/migrate.js';
import { insertStrategy } from '../test/helpers/catalogue.js';
import { eventually } from '../test/helpers/load.js';
import { createTestDatabase, MACHINE_REDIS } from '../test/helpers/postgres.js';
import { reportAll, type Target, type TargetReport } from './allReport.js';
import { type LoadOptions, type LoadResult, load } from './lib.js';
import { cpuMs, medianRow, RSS_TARGET_MB, rssOf } from './measure.js';
import { type ServiceProcess, spawnReady, spawnService } from './processes.js';
import { openStrategyHash, swapBody, writeWallets } from './writeSetup.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
const WARM_UP_SECONDS = Number(process.env.BENCH_WARM_UP_SECONDS ?? 15);
const ONLY = process.env.BENCH_ONLY?.split(',').map((s) => s.trim());
const DEVNET_PORT = 19740;
const SERVICE_PORT = 19745;
const EXPRESS_PORT = 19746;
const HTTP_PORT = 19747;
const INTERNAL_TOKEN = 'bench-internal-token-0123456789';
const METRICS_TOKEN = 'bench-metrics-token-0123456789';
const FILLER_STRATEGIES = 20;
/** anvil's default mnemonic, index 9: a wallet the devnet does not use. */
const WALLET = '0xa0Ee7A142d267C1f36714E4a8F75612F20a79720';

const dataDir = mkdtempSync(join(tmpdir(), 'bench-all-'));
const stops: Array<() => Promise<unknown>> = [];
const prefix = `bench:${Date.now()}:`;
let service: ServiceProcess | undefined;

try {
  const started = performance.now();
  const [database, devnet] = await Promise.all([
    createTestDatabase(),
    // The activity bot would share the CPU with the load: it never ticks during the run.
    startDevnet({ basePort: DEVNET_PORT, dataDir, activityMs: 2_000_000_000 }),
  ]);
  stops.push(
    () => database.drop(),
    () => devnet.stop(),
  );
  // The devnet ships a handful of strategies per pair; 20 more on every (chain, pair), stored the way
  // the indexer stores them, make each filtered list a full page of 20, the page of the earlier issues'
  // bench.
  const db = createDb(database.url, 2);
  await migrate(db);
  const combos = DEVNET_CHAINS.flatMap((spec) =>
    spec.pairs.map((symbols) => ({ chain: devnet.chains.find((c) => c.key === spec.key)!, symbols })),
  );
  let salt = 9_000_000n;
  for (const { chain, symbols } of combos) {
    for (let i = 0; i < FILLER_STRATEGIES; i++) {
      await insertStrategy(db, {
        chain,
        symbols: [...symbols],
        shippedAt: new Date(Date.now() - i * 60_000),
        volumeUsd: 1000 + i,
        swapCount: i % 7,
        salt: salt++,
      });
    }
  }
  // Every (chain, pair) in both spellings, from one rotation shared by the connections (lib.ts `paths`).
  const listPaths = combos.flatMap(({ chain, symbols }) =>
    [symbols.join('/'), [...symbols].reverse().join('/')].map(
      (pair) => `/api/strategies?chain=${chain.key}&pair=${encodeURIComponent(pair)}`,
    ),
  );
  await db.end();
  const profileDir = process.env.BENCH_CPU_PROF ? resolve(process.env.BENCH_CPU_PROF) : undefined;
  service = await spawnService(
    {
      PORT: String(SERVICE_PORT),
      HOST: '127.0.0.1',
      DATABASE_URL: database.url,
      REDIS_URL: process.env.REDIS_URL ?? MACHINE_REDIS,
      REDIS_PREFIX: prefix,
      CHAINS_FILE: devnet.manifestPath,
      INDEXER: 'embedded',
      TRUST_PROXY: '1',
      INTERNAL_TOKEN,
      METRICS_TOKEN,
      LOG_LEVEL: 'info',
    },
    {
      nodeArgs: [
        ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []),
        ...(process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean),
      ],
    },
  );
  const running = service;
  stops.push(() => running.stop());
  const url = service.url;
  console.log(`service ready in ${Math.round(performance.now() - started)} ms at ${url}`);

  const res = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${INTERNAL_TOKEN}` },
    body: JSON.stringify({
      query:
        'mutation { createApiKey(input: { environment: LIVE, prepareLimitPerMinute: 100000, writeLimitPerMinute: 100000 }) { key } }',
    }),
  });
  const key = ((await res.json()) as { data: { createApiKey: { key: string } } }).data.createApiKey.key;

  // Where the CPU of a request goes: the server process, this database's Postgres backends, the
  // Redis server, and the load generator (a process of its own per run). The box has 2 cores for all of them.
  const redisUrl = process.env.REDIS_URL ?? MACHINE_REDIS;
  const redisInfo = new Redis(redisUrl);
  const redisPid = Number(/process_id:(\d+)/.exec(await redisInfo.info('server'))?.[1] ?? -1);
  redisInfo.disconnect();
  const pgClient = new pg.Client({ connectionString: database.url });
  await pgClient.connect();
  pgClient.on('error', () => {});
  stops.push(() => pgClient.end());
  const cpuSnapshot = async (serverPid: number): Promise<Record<string, number>> => {
    const { rows } = await pgClient.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
    );
    return {
      server: cpuMs(serverPid),
      serverKernel: cpuMs(serverPid, 'system'),
      postgres: rows.reduce((sum, r) => sum + cpuMs(r.pid), 0),
      redis: redisPid > 0 ? cpuMs(redisPid) : 0,
    };
  };

  // The write paths' set-up (bench/writeSetup.ts, as bench:swap): the devnet's earliest open USDC/USDT
  // strategy on base to swap against, a funded taker, and a position of the bench's key shipped by the
  // maker wallet and seen active by the embedded indexer, to dock (dock prepares only: the same position
  // answers every call).
  const wantsWrites = !ONLY || ONLY.includes('swap') || ONLY.includes('dock');
  let swapHash = '';
  let dockPosition = '';
  if (wantsWrites) {
    const base = devnet.chains.find((c) => c.key === 'base')!;
    const wallets = writeWallets(base);
    await wallets.fundTaker();
    dockPosition = await wallets.shipPosition(url, key);
    await eventually(
      'the indexer to see the shipped position',
      async () =>
        (
          await pgClient.query("SELECT 1 FROM strategies WHERE strategy_hash = $1 AND status = 'active'", [
            dockPosition,
          ])
        ).rows.length > 0,
      120_000,
      250,
    );
    // The indexer has stored every block up to the position's by now: the devnet's strategies included.
    const hash = await openStrategyHash(pgClient, base);
    if (!hash) throw new Error('no open USDC/USDT strategy on the devnet');
    swapHash = hash;
  }
  // The gateway's own chain RPC requests (the embedded indexer's are labelled client="indexer").
  const rpcRequests = async (): Promise<number> => {
    const text = await (
      await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
    ).text();
    return text
      .split('\n')
      .filter((line) => line.startsWith('gateway_rpc_requests_total{') && line.includes('client="gateway"'))
      .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
  };
  const writeHeaders = { 'content-type': 'application/json', authorization: `Bearer ${key}` };

  const allTargets: Target[] = [
    {
      key: 'stats',
      name: 'GET /api/stats (cached)',
      request: { path: '/api/stats' },
      target: 1.0,
      note: 'response cache hit: an in-process copy of the Redis entry',
    },
    {
      key: 'badge',
      name: 'GET /api/badge',
      request: { path: '/api/badge' },
      target: 1.0,
      note: 'persisted operation over the roll-up',
    },
    {
      key: 'strategies',
      name: 'GET /api/strategies?chain&pair (uncached)',
      request: { path: listPaths[0]!, paths: listPaths },
      target: 0.7,
      note: `persisted operation, one keyset query on Postgres, never cached; ${listPaths.length} filters in turn`,
    },
    {
      key: 'prepare',
      name: 'POST /v1/positions',
      request: {
        method: 'POST',
        path: '/v1/positions',
        headers: writeHeaders,
        body: JSON.stringify({
          chain: 'base',
          wallet: WALLET,
          deposits: [
            { symbol: 'USDC', amount: '1000000000' },
            { symbol: 'USDT', amount: '1000000000' },
          ],
          makerFeeBps: 30000,
        }),
      },
      cpuTargetMs: 1.5,
      countRpc: true,
      note: 'key lookup, one multicall eth_call (anvil), one INSERT',
    },
    {
      key: 'swap',
      name: 'POST /v1/swaps',
      request: { method: 'POST', path: '/v1/swaps', headers: writeHeaders, body: swapBody(swapHash) },
      cpuTargetMs: 1.5,
      countRpc: true,
      note: "key lookup, one eth_call (quote + maker's funding + taker's balance and allowance), no write",
    },
    {
      key: 'dock',
      name: 'POST /v1/positions/{id}/dock',
      request: {
        method: 'POST',
        path: `/v1/positions/${dockPosition}/dock`,
        headers: { authorization: `Bearer ${key}` },
      },
      cpuTargetMs: 1.5,
      countRpc: true,
      note: "key lookup, the position's row, one eth_call (Aqua's rawBalances), no write",
    },
  ];
  const targets = allTargets.filter((t) => !ONLY || ONLY.includes(t.key));

  const report: TargetReport[] = [];
  // Fill the stats cache: the bench measures hits.
  await (await fetch(`${url}/api/stats`)).text();
  for (const target of targets) {
    // The bytes the gateway answers this request with, served as they are by the baselines.
    const sample = await fetch(`${url}${target.request.path}`, {
      method: target.request.method ?? 'GET',
      headers: { ...target.request.headers, 'x-forwarded-for': '192.0.2.1' },
      ...(target.request.body ? { body: target.request.body } : {}),
    });
    const body = await sample.text();
    if (sample.status !== 200)
      throw new Error(`${target.name} answered ${sample.status}: ${body.slice(0, 300)}`);
    if (target.key === 'stats' && !body.includes('"cached":true'))
      throw new Error('/api/stats was not a cache hit');
    const bodyFile = join(dataDir, `${target.key}.json`);
    writeFileSync(bodyFile, body);
    const express = await spawnReady('bench/servers/hello.ts', ['express', String(EXPRESS_PORT), bodyFile]);
    const http = await spawnReady('bench/servers/hello.ts', ['http', String(HTTP_PORT), bodyFile]);
    const servers = [
      { name: 'express 5 hello-world', url: `http://127.0.0.1:${EXPRESS_PORT}` },
      { name: 'bare node:http', url: `http://127.0.0.1:${HTTP_PORT}` },
      { name: `gateway ${target.name}`, url },
    ];
    const options: LoadOptions = { ...target.request, connections: CONNECTIONS, distinctClients: true };
    const pidOf: Record<string, number> = {
      'express 5 hello-world': express.child.pid ?? -1,
      'bare node:http': http.child.pid ?? -1,
      [`gateway ${target.name}`]: service.child.pid ?? -1,
    };
    try {
      // The gateway's code is compiled as it runs: a prepare cost 4 ms of CPU in its first 5 s and
      // ~1.9 ms from about its 15th second on (the per-round figures below). A service in operation
      // runs warm, so the gateway is loaded for WARM_UP_SECONDS before the first round; the baselines,
      // a few lines of code each, for 2 s.
      for (const server of servers)
        await load('warm-up', server.url, { ...options, duration: server.url === url ? WARM_UP_SECONDS : 2 });
      const samples: Record<string, LoadResult[]> = {};
      for (let round = 1; round <= ROUNDS; round++) {
        for (const server of servers) {
          const gateway = server.url === url && target.countRpc;
          const rpcBefore = gateway ? await rpcRequests() : 0;
          const before = await cpuSnapshot(pidOf[server.name]!);
          const result = await load(server.name, server.url, { ...options, duration: SECONDS });
          const after = await cpuSnapshot(pidOf[server.name]!);
          if (gateway) {
            result.rpcPerRequest = Number(
              ((await rpcRequests()) - rpcBefore) / Math.max(1, result.total ?? 0),
            );
          }
          // The load generator runs in a process of its own (lib.ts `load`), which reports its CPU.
          after.loadGenerator = result.generatorCpuMs ?? 0;
          result.cpuMsPerRequest = Object.fromEntries(
            Object.keys(after).map((k) => [
              k,
              Number(((after[k]! - (before[k] ?? 0)) / Math.max(1, result.total ?? 0)).toFixed(3)),
            ]),
          );
          samples[server.name] = [...(samples[server.name] ?? []), result];
          console.log(
            `${target.key} round ${round}: ${server.name} ${result.requestsPerSec} req/s, ${result.cpuMsPerRequest.server} ms CPU/req, p50 ${result.p50} ms, p99 ${result.p99} ms${result.non2xx + result.errors > 0 ? ` (non2xx ${result.non2xx}, errors ${result.errors})` : ''}`,
          );
        }
      }
      report.push({
        target,
        bodyBytes: Buffer.byteLength(body),
        rows: Object.entries(samples).map(([name, results]) => medianRow(name, results)),
        samples,
      });
    } finally {
      await express.stop();
      await http.stop();
    }
  }

  // The gateway's resident memory over the whole run (its peak: VmHWM), against its bound.
  const rss = rssOf(service.child.pid);
  console.log(
    `gateway RSS: ${rss.rssMb} MB now, peak ${rss.peakRssMb} MB (target ≤ ${RSS_TARGET_MB} MB) ${rss.peakRssMb <= RSS_TARGET_MB ? 'MET' : 'MISSED'}`,
  );
  reportAll(report, rss, {
    rounds: ROUNDS,
    seconds: SECONDS,
    connections: CONNECTIONS,
    redisUrl: process.env.REDIS_URL ?? MACHINE_REDIS,
    partial: ONLY !== undefined,
  });
} finally {
  for (const stop of stops.reverse()) await stop().catch((error: unknown) => console.error(error));
  rmSync(dataDir, { recursive: true, force: true });
}
