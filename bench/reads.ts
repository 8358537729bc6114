/**
 * The public reads against the baselines, in ONE run: GET /api/stats (cached), /api/badge,
 * /api/chains and /api/strategy-detail, each through the real route (request id, Host check, CORS,
 * rate limiter with a limit the load never reaches, Cache-Control/ETag, access log at info to a pipe
 * this process drains), against an express 5 hello-world and bare node:http serving that read's own
 * bytes (a response captured from the gateway). Targets: each read ≥ 1.0× express; the cached ones
 * toward 0.5× node:http. Every server is a process of its own; rounds are interleaved and each
 * verdict is the median of the per-round ratios (same round, same background load).
 *   npm run bench:reads        BENCH_SECONDS (5), BENCH_ROUNDS (3), BENCH_CONNECTIONS (20)
 * Writes bench/results/reads.json.
 */

import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDb } from '../store/db.js';
import { migrate } from '../store/migrate.js';
import { writeRollup } from '../store/rollups.js';
import { fixtureChains, insertStrategy } from '../test/helpers/catalogue.js';
import { createTestDatabase } from '../test/helpers/postgres.js';
import { busyCatalogueRollup } from './fixtures.js';
import { type LoadResult, load } from './lib.js';
import { machine, median, medianRow, RSS_TARGET_MB, rssOf, writeResult } from './measure.js';
import { freePort, spawnReady, startGateway } from './processes.js';

const NODE_ENV = process.env.NODE_ENV ?? 'production';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
const TARGET = 1.0;

const database = await createTestDatabase();
const stops: Array<() => Promise<void>> = [];
try {
  const db = createDb(database.url, 2);
  await migrate(db);
  await writeRollup(db, busyCatalogueRollup());
  const chain = fixtureChains(3)[0]!;
  const strategy = await insertStrategy(db, {
    chain,
    symbols: ['USDC', 'USDT'],
    shippedAt: new Date(Date.now() - 3_600_000),
    salt: 7n,
  });
  await db.end();

  const reads = [
    { name: 'stats', path: '/api/stats' },
    { name: 'badge', path: '/api/badge?metric=volume30' },
    { name: 'chains', path: '/api/chains' },
    { name: 'strategy-detail', path: `/api/strategy-detail?hash=${strategy.hash}` },
  ];
  const gateway = await startGateway(
    reads.map((r) => r.path.split('?')[0]!),
    {
      DATABASE_URL: database.url,
      NODE_ENV,
      BENCH_LOG_LEVEL: 'info',
      REDIS_PREFIX: `bench:reads:${Date.now()}:`,
    },
  );
  stops.push(gateway.stop);

  const targets: Array<{ read: string; kind: 'gateway' | 'express' | 'node:http'; url: string }> = [];
  for (const read of reads) {
    const url = `${gateway.url}${read.path}`;
    await (await fetch(url)).text();
    const res = await fetch(url);
    const body = await res.text();
    if (res.status !== 200) throw new Error(`${read.path} answered ${res.status}: ${body}`);
    const file = join(tmpdir(), `gw-bench-reads-${process.pid}-${read.name}.json`);
    writeFileSync(file, body);
    targets.push({ read: read.name, kind: 'gateway', url });
    for (const kind of ['express', 'http'] as const) {
      const basePort = await freePort();
      const server = await spawnReady('bench/servers/hello.ts', [kind, String(basePort), file], { NODE_ENV });
      stops.push(server.stop);
      targets.push({
        read: read.name,
        kind: kind === 'http' ? 'node:http' : 'express',
        url: `http://127.0.0.1:${basePort}${read.path}`,
      });
    }
  }

  for (const t of targets) await load('warm-up', t.url, { connections: CONNECTIONS, duration: 2 });
  const samples = new Map<string, LoadResult[]>();
  for (let round = 1; round <= ROUNDS; round++) {
    for (const t of targets) {
      const name = `${t.read} ${t.kind}`;
      const result = await load(name, t.url, { connections: CONNECTIONS, duration: SECONDS });
      samples.set(name, [...(samples.get(name) ?? []), result]);
      console.log(`round ${round}: ${name} ${result.requestsPerSec} req/s (p99 ${result.p99} ms)`);
    }
  }
  const ratio = (read: string, baseline: string) => {
    const ours = samples.get(`${read} gateway`)!;
    const theirs = samples.get(`${read} ${baseline}`)!;
    const perRound = ours.map((r, i) => Number((r.requestsPerSec / theirs[i]!.requestsPerSec).toFixed(3)));
    return { ratio: median(perRound), perRound };
  };
  const table = reads.map(({ name }) => {
    const row = medianRow(name, samples.get(`${name} gateway`)!);
    const express = ratio(name, 'express');
    const http = ratio(name, 'node:http');
    const failed = [...samples]
      .filter(([key]) => key.startsWith(`${name} `))
      .reduce((n, [, runs]) => n + runs.reduce((m, r) => m + r.non2xx + r.errors, 0), 0);
    return {
      read: name,
      'gateway req/s': row.requestsPerSec,
      'express req/s': medianRow(name, samples.get(`${name} express`)!).requestsPerSec,
      'node:http req/s': medianRow(name, samples.get(`${name} node:http`)!).requestsPerSec,
      '× express': express.ratio,
      'rounds × express': express.perRound.join(', '),
      '× node:http': http.ratio,
      'p99 ms': row.p99,
      met: express.ratio >= TARGET,
      failed,
    };
  });
  console.log(
    `\nmedian of ${ROUNDS} interleaved rounds of ${SECONDS} s, ${CONNECTIONS} connections; target ≥ ${TARGET}× express`,
  );
  console.table(table);
  if (table.some((r) => r.failed > 0)) console.log('WARNING: some requests failed (non-2xx or errors)');
  const rss = rssOf(gateway.child.pid);
  console.log(
    `gateway RSS: ${rss.rssMb} MB now, peak ${rss.peakRssMb} MB (target ≤ ${RSS_TARGET_MB} MB) ${rss.peakRssMb <= RSS_TARGET_MB ? 'MET' : 'MISSED'}`,
  );
  const file = writeResult('reads', {
    when: new Date().toISOString(),
    machine: machine({ nodeEnv: NODE_ENV }),
    method: {
      connections: CONNECTIONS,
      seconds: SECONDS,
      rounds: ROUNDS,
      statistic: 'median of per-round ratios',
    },
    target: `each read >= ${TARGET}x express 5 hello-world returning the same bytes`,
    table,
    rss: { ...rss, target: `<= ${RSS_TARGET_MB} MB peak`, met: rss.peakRssMb <= RSS_TARGET_MB },
    samples: Object.fromEntries(samples),
  });
  console.log(`written ${file}`);
} finally {
  for (const stop of stops.reverse()) await stop().catch(() => {});
  await database.drop();
}
