/**
 * `npm run bench`: the one bench command (issue 10). Starts the service itself (`main.ts`, a process of
 * its own) against the machine's real Postgres (a fresh database on 127.0.0.1:5432) and Redis
 * (127.0.0.1:6379, a prefix of this run), over a devnet of its own (three anvil chains, seeded; the
 * embedded indexer fills the catalogue; 20 stored strategies per (chain, pair) make full pages of 20),
 * and measures in ONE run:
 *   cached GET /api/stats, GET /api/badge, filtered GET /api/strategies (uncached) and POST /v1/positions
 * each against an express 5 hello-world and bare node:http serving the same bytes to the same requests
 * (bench/servers/hello.ts, processes of their own), on the same machine. Every request of every target,
 * baselines included, comes from another client (a distinct X-Forwarded-For, TRUST_PROXY=1), so no
 * read bucket fills and the limiter does its full work per request (a Redis round trip); prepares use
 * a key whose prepare bucket is never reached. Rounds are interleaved (express, node:http, gateway);
 * the median of each figure is reported. Targets of the earlier issues: cached stats ≥ 0.9× express,
 * uncached strategies list ≥ 0.5× express (MET / MISSED).
 *   npm run bench            BENCH_SECONDS (5) per run, BENCH_ROUNDS (3), BENCH_CONNECTIONS (20)
 *   BENCH_ONLY=stats,badge   a subset of the targets
 *   BENCH_CPU_PROF=dir       the service runs with --cpu-prof, profiles written to dir on exit
 * Ports 19740-19749. Prints a table and writes bench/results/all.json (all-partial.json with BENCH_ONLY).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { startDevnet } from '../devnet/devnet.js';
import { DEVNET_CHAINS } from '../devnet/seed.js';
import { createDb } from '../store/db.js';
import { migrate } from '../store/migrate.js';
import { insertStrategy } from '../test/helpers/catalogue.js';
import { createTestDatabase, MACHINE_REDIS } from '../test/helpers/postgres.js';
import {
  cpuMs,
  type LoadOptions,
  type LoadResult,
  load,
  machine,
  medianRow,
  type ServiceProcess,
  spawnReady,
  spawnService,
  writeResult,
} from './lib.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
const ONLY = process.env.BENCH_ONLY?.split(',').map((s) => s.trim());
const DEVNET_PORT = 19740;
const SERVICE_PORT = 19745;
const EXPRESS_PORT = 19746;
const HTTP_PORT = 19747;
const INTERNAL_TOKEN = 'bench-internal-token-0123456789';
const FILLER_STRATEGIES = 20;
/** anvil's default mnemonic, index 9: a wallet the devnet does not use. */
const WALLET = '0xa0Ee7A142d267C1f36714E4a8F75612F20a79720';

interface Target {
  key: string;
  name: string;
  request: LoadOptions;
  /** ≥ this many × express, or no target. */
  target?: number;
  note: string;
}

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
      LOG_LEVEL: 'info',
    },
    { nodeArgs: profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [] },
  );
  const running = service;
  stops.push(() => running.stop());
  const url = service.url;
  console.log(`service ready in ${Math.round(performance.now() - started)} ms at ${url}`);

  const res = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${INTERNAL_TOKEN}` },
    body: JSON.stringify({
      query: 'mutation { createApiKey(input: { environment: LIVE, prepareLimitPerMinute: 100000 }) { key } }',
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

  const allTargets: Target[] = [
    {
      key: 'stats',
      name: 'GET /api/stats (cached)',
      request: { path: '/api/stats' },
      target: 0.9,
      note: 'response cache hit: an in-process copy of the Redis entry',
    },
    {
      key: 'badge',
      name: 'GET /api/badge',
      request: { path: '/api/badge' },
      note: 'persisted operation over the roll-up',
    },
    {
      key: 'strategies',
      name: 'GET /api/strategies?chain&pair (uncached)',
      request: { path: listPaths[0]!, paths: listPaths },
      target: 0.5,
      note: `persisted operation, one keyset query on Postgres, never cached; ${listPaths.length} filters in turn`,
    },
    {
      key: 'prepare',
      name: 'POST /v1/positions',
      request: {
        method: 'POST',
        path: '/v1/positions',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
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
      note: 'key lookup, one multicall eth_call (anvil), one INSERT',
    },
  ];
  const targets = allTargets.filter((t) => !ONLY || ONLY.includes(t.key));

  const report: Array<{
    target: Target;
    bodyBytes: number;
    rows: LoadResult[];
    samples: Record<string, LoadResult[]>;
  }> = [];
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
      for (const server of servers) await load('warm-up', server.url, { ...options, duration: 2 });
      const samples: Record<string, LoadResult[]> = {};
      for (let round = 1; round <= ROUNDS; round++) {
        for (const server of servers) {
          const before = await cpuSnapshot(pidOf[server.name]!);
          const result = await load(server.name, server.url, { ...options, duration: SECONDS });
          const after = await cpuSnapshot(pidOf[server.name]!);
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
            `${target.key} round ${round}: ${server.name} ${result.requestsPerSec} req/s, p50 ${result.p50} ms, p99 ${result.p99} ms${result.non2xx + result.errors > 0 ? ` (non2xx ${result.non2xx}, errors ${result.errors})` : ''}`,
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

  const cpuText = (row: LoadResult, keys = ['server', 'postgres', 'redis', 'loadGenerator']) =>
    keys.map((k) => (row.cpuMsPerRequest?.[k] ?? 0).toFixed(2)).join(' · ');
  const table = report.map(({ target, bodyBytes, rows }) => {
    const [express, http, gateway] = rows as [LoadResult, LoadResult, LoadResult];
    const ratio = gateway.requestsPerSec / express.requestsPerSec;
    return {
      target: target.name,
      bytes: bodyBytes,
      'req/s': gateway.requestsPerSec,
      'p50 ms': gateway.p50,
      'p99 ms': gateway.p99,
      'express req/s': express.requestsPerSec,
      'express p50/p99': `${express.p50}/${express.p99}`,
      'node:http req/s': http.requestsPerSec,
      'node:http p50/p99': `${http.p50}/${http.p99}`,
      '× express': Number(ratio.toFixed(2)),
      '× node:http': Number((gateway.requestsPerSec / http.requestsPerSec).toFixed(2)),
      goal:
        target.target === undefined
          ? '—'
          : `≥ ${target.target}× express ${ratio >= target.target ? 'MET' : 'MISSED'}`,
      'CPU ms/req gw·pg·redis·gen': cpuText(gateway),
      'CPU ms/req express·gen': cpuText(express, ['server', 'loadGenerator']),
      failed: rows.reduce((s, r) => s + r.non2xx + r.errors, 0),
    };
  });
  console.log(
    `\nmedian of ${ROUNDS} interleaved rounds of ${SECONDS} s, ${CONNECTIONS} connections, a distinct X-Forwarded-For per request; ` +
      `Postgres 127.0.0.1:5432, Redis ${process.env.REDIS_URL ?? MACHINE_REDIS}; ${cpus().length} cores shared by load, service, baselines, Postgres, Redis, anvil`,
  );
  console.table(table);
  for (const row of table)
    if (row.goal !== '—') console.log(`${row.target}: ${row['× express']}× express, ${row.goal}`);
  if (table.some((r) => r.failed > 0))
    console.log('WARNING: some requests failed (non-2xx or errors): see the rounds above');
  // A subset (BENCH_ONLY) never overwrites the full run's figures.
  const file = writeResult(ONLY ? 'all-partial' : 'all', {
    when: new Date().toISOString(),
    machine: machine(),
    method: {
      connections: CONNECTIONS,
      seconds: SECONDS,
      rounds: ROUNDS,
      statistic: 'median of interleaved rounds (express, node:http, gateway)',
      clients: 'a distinct X-Forwarded-For per request, TRUST_PROXY=1, for gateway and baselines alike',
      stores: {
        postgres: 'machine 127.0.0.1:5432, fresh database',
        redis: process.env.REDIS_URL ?? MACHINE_REDIS,
      },
    },
    table,
    targets: report.map(({ target, bodyBytes, rows, samples }) => ({
      key: target.key,
      name: target.name,
      note: target.note,
      goal: target.target === undefined ? null : `>= ${target.target}x express`,
      met:
        target.target === undefined
          ? null
          : rows[2]!.requestsPerSec / rows[0]!.requestsPerSec >= target.target,
      bodyBytes,
      rows,
      samples,
    })),
  });
  console.log(`written ${file}`);
} finally {
  for (const stop of stops.reverse()) await stop().catch((error: unknown) => console.error(error));
  rmSync(dataDir, { recursive: true, force: true });
}
