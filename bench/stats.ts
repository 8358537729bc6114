/**
 * Requests/s of cached GET /api/stats (the real route behind the real
 * conventions: request id, rate limiter and its headers, error handler) against an express 5
 * hello-world and bare node:http returning the same bytes (a captured /api/stats response), one run,
 * same machine, autocannon with 20 connections. Every server runs in a process of its own; the rounds
 * are interleaved and the verdict is the median of the per-round ratios. Target: ≥ 0.9× express.
 * Also runs the service with the cache in Redis (REDIS_URL, or the machine's Redis) unless
 * BENCH_REDIS=0: the rate-limit counters are then in Redis too.
 *   npm run bench:stats        (BENCH_SECONDS=8, BENCH_ROUNDS=3)
 * Writes bench/results/stats.json.
 */
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { createDb } from '../store/db.js';
import { migrate } from '../store/migrate.js';
import type { CatalogueRollup } from '../store/rollups.js';
import { writeRollup } from '../store/rollups.js';
import { createTestDatabase, MACHINE_REDIS } from '../test/helpers/postgres.js';
import { type LoadResult, load } from './lib.js';
import { machine, median, medianRow, printTable, writeResult } from './measure.js';
import { freePort, spawnReady, startGateway } from './processes.js';

/** Every server of the run (ours and the baselines) gets the same NODE_ENV: production unless set. */
const NODE_ENV = process.env.NODE_ENV ?? 'production';
const duration = Number(process.env.BENCH_SECONDS ?? 8);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const TARGET = 0.9;

/** A roll-up of the size a busy catalogue has: 3 chains, 12 pairs. */
function rollup(): CatalogueRollup {
  const now = new Date().toISOString();
  const chains = [
    ['base', 8453],
    ['arc', 5042],
    ['baseSepolia', 84532],
  ] as const;
  const symbols = ['USDC', 'USDT', 'EURC', 'DAI', 'WETH'];
  const pairs = symbols
    .flatMap((a, i) => symbols.slice(i + 1).map((b) => [a, b].sort().join('/')))
    .slice(0, 12);
  const chainRows = chains.map(([chain, chainId], i) => ({
    chain,
    chain_id: chainId,
    count: 333_333 + i,
    makers: 40_000 + i,
    pairs: pairs.length,
    swaps_30d: 3_000_000 + i,
    volume_1d_usd: 1_234_567.89 * (i + 1),
    volume_7d_usd: 8_765_432.1 * (i + 1),
    volume_30d_usd: 34_567_890.12 * (i + 1),
    last_activity: now,
  }));
  const sum = (k: 'count' | 'volume_1d_usd' | 'volume_7d_usd' | 'volume_30d_usd') =>
    chainRows.reduce((s, c) => s + c[k], 0);
  return {
    totals: {
      strategies: sum('count'),
      makers: 100_000,
      pairs: pairs.length,
      chains: chains.length,
      volume_1d_usd: sum('volume_1d_usd'),
      volume_7d_usd: sum('volume_7d_usd'),
      volume_30d_usd: sum('volume_30d_usd'),
      last_activity: now,
    },
    chains: chainRows,
    pairs: pairs.map((pair, i) => ({
      pair,
      count: 80_000 - i * 1000,
      chains: chains.map(([c]) => c),
      volume_1d_usd: 100_000 / (i + 1),
      volume_7d_usd: 700_000 / (i + 1),
      volume_30d_usd: 3_000_000 / (i + 1),
      last_activity: now,
    })),
  };
}

async function redisReachable(url: string): Promise<boolean> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false });
  try {
    await redis.connect();
    return (await redis.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}

const database = await createTestDatabase();
const stops: Array<() => Promise<void>> = [];
const samples = new Map<string, LoadResult[]>();
try {
  const db = createDb(database.url, 2);
  await migrate(db);
  await writeRollup(db, rollup());
  await db.end();

  const redisUrl = process.env.REDIS_URL ?? MACHINE_REDIS;
  const variants: Array<[string, Record<string, string>]> = [['gateway /api/stats, cached (memory)', {}]];
  if (process.env.BENCH_REDIS !== '0' && (await redisReachable(redisUrl))) {
    variants.push(['gateway /api/stats, cached (Redis)', { REDIS_URL: redisUrl }]);
  }
  const targets: Array<{ name: string; url: string }> = [];
  for (const [name, env] of variants) {
    const server = await startGateway(['/api/stats'], {
      DATABASE_URL: database.url,
      REDIS_PREFIX: `bench:${Date.now()}:`,
      NODE_ENV,
      ...env,
    });
    stops.push(server.stop);
    targets.push({ name, url: `${server.url}/api/stats` });
  }
  // The bytes of a cached response, served as they are by the baselines.
  const first = await fetch(targets[0]!.url);
  if (first.status !== 200) throw new Error(`/api/stats answered ${first.status}`);
  await first.text();
  const body = await (await fetch(targets[0]!.url)).text();
  if (!body.includes('"cached":true')) throw new Error('the second /api/stats was not a cache hit');
  const bodyFile = join(tmpdir(), `gw-bench-stats-${process.pid}.json`);
  writeFileSync(bodyFile, body);
  for (const kind of ['express', 'http'] as const) {
    const port = await freePort();
    const server = await spawnReady('bench/servers/hello.ts', [kind, String(port), bodyFile], { NODE_ENV });
    stops.push(server.stop);
    targets.unshift({
      name: kind === 'express' ? 'express 5 hello-world' : 'bare node:http',
      url: `http://127.0.0.1:${port}/`,
    });
  }
  for (const target of targets) await load('warm-up', target.url, { duration: 2 });
  for (let round = 1; round <= rounds; round++) {
    for (const target of targets) {
      const result = await load(target.name, target.url, { duration });
      samples.set(target.name, [...(samples.get(target.name) ?? []), result]);
      console.log(`round ${round}: ${target.name} ${result.requestsPerSec} req/s (p99 ${result.p99} ms)`);
    }
  }
  const rows = [...samples].map(([name, results]) => medianRow(name, results));
  const express = rows.find((r) => r.name.startsWith('express'))!.requestsPerSec;
  const http = rows.find((r) => r.name.startsWith('bare'))!.requestsPerSec;
  console.log(
    `\nmedian of ${rounds} interleaved rounds of ${duration} s, 20 connections, body ${body.length} bytes`,
  );
  printTable(rows, { express, 'node:http': http });
  // Each round's gateway run is compared with that round's express run (same background load); the
  // verdict is the median of those per-round ratios.
  const expressRuns = samples.get('express 5 hello-world')!;
  const httpRuns = samples.get('bare node:http')!;
  const verdicts = rows
    .filter((r) => r.name.startsWith('gateway'))
    .map((r) => {
      const runs = samples.get(r.name)!;
      const perRound = runs.map((g, i) =>
        Number((g.requestsPerSec / expressRuns[i]!.requestsPerSec).toFixed(3)),
      );
      const perRoundHttp = runs.map((g, i) =>
        Number((g.requestsPerSec / httpRuns[i]!.requestsPerSec).toFixed(3)),
      );
      const ratio = median(perRound);
      const met = ratio >= TARGET;
      console.log(
        `${r.name}: ${ratio}× express (rounds ${perRound.join(', ')}), ${median(perRoundHttp)}× node:http (target ≥ ${TARGET}× express) ${met ? 'MET' : 'MISSED'}`,
      );
      return { name: r.name, ratioToExpress: ratio, perRound, ratioToNodeHttp: median(perRoundHttp), met };
    });
  const file = writeResult('stats', {
    when: new Date().toISOString(),
    machine: machine({ nodeEnv: NODE_ENV }),
    method: {
      connections: 20,
      seconds: duration,
      rounds,
      statistic: 'median of per-round ratios (rounds interleaved)',
      bodyBytes: body.length,
    },
    target: `>= ${TARGET}x express 5 hello-world returning the same bytes`,
    rows,
    samples: Object.fromEntries(samples),
    verdicts,
  });
  console.log(`written ${file}`);
  if (rows.some((r) => r.non2xx > 0 || r.errors > 0))
    console.log('WARNING: some requests failed (see non2xx / errors)');
} finally {
  for (const stop of stops.reverse()) await stop().catch(() => {});
  await database.drop();
}
