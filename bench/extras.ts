/**
 * `npm run bench:extras` (and the second half of `npm run bench`): what issue 18's additions cost on the
 * hottest read, cached GET /api/stats, in ONE run:
 *   off        the same build with CORS=off HTTP_CACHE=off COMPRESSION=off ACCESS_LOG=off
 *   on         every switch at its default (CORS, Cache-Control + ETag, the compression wrapper, the
 *              access log where the build has one), a browser's request (Origin), no Accept-Encoding
 *   on, gzip   the same server, the client asks `Accept-Encoding: gzip` (the body is over the threshold)
 *   on, br     the same, `Accept-Encoding: br`
 * Goal (issue 18): the cost of CORS, ETag and the access log under 10%, judged on the server's CPU per
 * request in each variant's least disturbed round (from /proc: what the additions add in work; the
 * medians are printed too), with req/s beside it (on a shared machine
 * throughput swings with whatever else runs). The compression rows are what a client asking for it
 * costs (a measure, no goal).
 * Each server is a process of its own (bench/servers/catalogue.ts, the real service over a fresh
 * database with a roll-up written), logging at info to a pipe this process drains; rounds are
 * interleaved and the verdict is the median of the per-round ratios.
 *   BENCH_SECONDS (5), BENCH_ROUNDS (3), BENCH_CONNECTIONS (20); BENCH_REDIS=1: limiter and cache in
 *   the machine's Redis (default: in memory, where the additions are the larger share of a request).
 * Writes bench/results/extras.json.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { request } from 'node:http';
import { join } from 'node:path';
import { createDb } from '../store/db.js';
import { migrate } from '../store/migrate.js';
import { type CatalogueRollup, writeRollup } from '../store/rollups.js';
import { createTestDatabase, MACHINE_REDIS } from '../test/helpers/postgres.js';
import {
  cpuMs,
  freePort,
  type LoadResult,
  load,
  machine,
  median,
  medianRow,
  ROOT,
  SERVER_NODE_FLAGS,
  writeResult,
} from './lib.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
const GOAL = 0.9;
const ORIGIN = 'https://app.example';

/** The switches of the additions; a build without one of them ignores its variable. */
const OFF = { CORS: 'off', HTTP_CACHE: 'off', COMPRESSION: 'off', ACCESS_LOG: 'off' };

/** A roll-up of a busy catalogue's size (3 chains, 10 pairs): a stats body over the 1 KiB threshold. */
function rollup(): CatalogueRollup {
  const now = new Date().toISOString();
  const chains = [
    ['base', 8453],
    ['arc', 5042],
    ['baseSepolia', 84532],
  ] as const;
  const symbols = ['USDC', 'USDT', 'EURC', 'DAI', 'WETH'];
  const pairs = symbols.flatMap((a, i) => symbols.slice(i + 1).map((b) => [a, b].sort().join('/')));
  const volume = { volume_1d_usd: 1_234_567.89, volume_7d_usd: 8_765_432.1, volume_30d_usd: 34_567_890.12 };
  return {
    totals: {
      strategies: 999_999,
      makers: 100_000,
      pairs: pairs.length,
      chains: 3,
      ...volume,
      last_activity: now,
    },
    chains: chains.map(([chain, chainId], i) => ({
      chain,
      chain_id: chainId,
      count: 333_333 + i,
      makers: 40_000 + i,
      pairs: pairs.length,
      swaps_30d: 3_000_000 + i,
      ...volume,
      last_activity: now,
    })),
    pairs: pairs.map((pair, i) => ({
      pair,
      count: 80_000 - i * 1000,
      chains: chains.map(([c]) => c),
      ...volume,
      last_activity: now,
    })),
  };
}

/**
 * The service for one variant, in a process of its own; resolves once it printed `ready`. Its stdout
 * (the access log, when the build has one) is read and dropped, as a log shipper's pipe would be.
 */
async function startServer(env: Record<string, string>): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [
      ...SERVER_NODE_FLAGS,
      '--import',
      'tsx',
      join(ROOT, 'bench/servers/catalogue.ts'),
      String(port),
      '/api/stats',
    ],
    {
      cwd: ROOT,
      env: { ...process.env, BENCH_LOG_LEVEL: 'info', ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  await new Promise<void>((resolve, reject) => {
    let head = '';
    const timer = setTimeout(
      () => reject(new Error('bench/servers/catalogue.ts not ready in 120 s')),
      120_000,
    );
    child.stdout!.on('data', (chunk: Buffer) => {
      if (head.length > 65_536) return;
      head += chunk.toString();
      if (/(^|\n)ready/.test(head)) {
        clearTimeout(timer);
        head = 'x'.repeat(65_537);
        resolve();
      }
    });
    child.once('exit', (code) => reject(new Error(`bench/servers/catalogue.ts exited with ${code}`)));
  });
  return { url: `http://127.0.0.1:${port}`, child };
}

/** The bytes of one response's body as sent (compressed when asked). */
function wireBytes(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    request(url, { headers }, (res) => {
      let n = 0;
      res.on('data', (c: Buffer) => {
        n += c.length;
      });
      res.on('end', () => resolve(n));
    })
      .on('error', reject)
      .end();
  });
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

const database = await createTestDatabase();
const children: ChildProcess[] = [];
try {
  const db = createDb(database.url, 2);
  await migrate(db);
  await writeRollup(db, rollup());
  await db.end();
  const common: Record<string, string> = {
    DATABASE_URL: database.url,
    NODE_ENV: process.env.NODE_ENV ?? 'production',
    REDIS_PREFIX: `bench:extras:${Date.now()}:`,
    ...(process.env.BENCH_REDIS === '1' ? { REDIS_URL: process.env.REDIS_URL ?? MACHINE_REDIS } : {}),
  };
  const off = await startServer({ ...common, ...OFF });
  const on = await startServer(common);
  children.push(off.child, on.child);
  const variants = [
    { name: 'off', url: off.url, pid: off.child.pid!, headers: {} as Record<string, string> },
    { name: 'on', url: on.url, pid: on.child.pid!, headers: { origin: ORIGIN } },
    {
      name: 'on, gzip',
      url: on.url,
      pid: on.child.pid!,
      headers: { origin: ORIGIN, 'accept-encoding': 'gzip' },
    },
    { name: 'on, br', url: on.url, pid: on.child.pid!, headers: { origin: ORIGIN, 'accept-encoding': 'br' } },
  ];

  // Fill both caches, and check that each variant is what it says.
  const sizes: Record<string, number> = {};
  for (const v of variants) {
    await (await fetch(`${v.url}/api/stats`)).text();
    const res = await fetch(`${v.url}/api/stats`, { headers: v.headers });
    await res.arrayBuffer();
    const cors = res.headers.get('access-control-allow-origin');
    const etag = res.headers.get('etag');
    if ((v.name === 'off') !== (cors === null && etag === null))
      throw new Error(`${v.name}: CORS ${cors}, ETag ${etag}: the switches are not as the variant says`);
  }
  // fetch decodes: the bytes on the wire, from a raw request.
  for (const v of variants) sizes[v.name] = await wireBytes(`${v.url}/api/stats`, v.headers);

  for (const v of variants)
    await load('warm-up', `${v.url}/api/stats`, {
      headers: v.headers,
      connections: CONNECTIONS,
      duration: 2,
    });
  const samples: Record<string, LoadResult[]> = {};
  for (let round = 1; round <= ROUNDS; round++) {
    for (const v of variants) {
      const before = cpuMs(v.pid);
      const result = await load(v.name, `${v.url}/api/stats`, {
        headers: v.headers,
        connections: CONNECTIONS,
        duration: SECONDS,
      });
      // The server's own CPU per answered request: what the additions cost in work, which other
      // processes sharing the cores (the load generator, anything else running) change far less than
      // they change req/s.
      result.cpuMsPerRequest = { server: (cpuMs(v.pid) - before) / Math.max(1, result.total ?? 0) };
      samples[v.name] = [...(samples[v.name] ?? []), result];
      console.log(
        `round ${round}: ${v.name} ${result.requestsPerSec} req/s, ${(result.cpuMsPerRequest.server! * 1000).toFixed(0)} µs CPU/req, p50 ${result.p50} ms, p99 ${result.p99} ms${result.non2xx + result.errors > 0 ? ` (non2xx ${result.non2xx}, errors ${result.errors})` : ''}`,
      );
    }
  }
  const offRuns = samples.off!;
  const table = variants.map((v) => {
    const runs = samples[v.name]!;
    const row = medianRow(v.name, runs);
    const perRound = runs.map((r, i) => Number((r.requestsPerSec / offRuns[i]!.requestsPerSec).toFixed(3)));
    // The least disturbed round of each: its lowest CPU per request (contention only adds to it:
    // cache misses, context switches, a loop woken for fewer requests), then the median.
    const cpuOf = (list: LoadResult[]) => list.map((r) => (r.cpuMsPerRequest?.server ?? 0) * 1000);
    const cpu = Math.min(...cpuOf(runs));
    const cpuOff = Math.min(...cpuOf(offRuns));
    return {
      variant: v.name,
      'body bytes': sizes[v.name],
      'server CPU µs/req (best)': Math.round(cpu),
      'CPU × off': Number((cpu / cpuOff).toFixed(3)),
      'CPU µs/req (median)': Math.round(median(cpuOf(runs))),
      'req/s': row.requestsPerSec,
      'p50 ms': row.p50,
      'p99 ms': row.p99,
      '× off': median(perRound),
      rounds: perRound.join(', '),
      failed: row.non2xx + row.errors,
    };
  });
  console.log(
    `\nGET /api/stats (cached), median of ${ROUNDS} interleaved rounds of ${SECONDS} s, ${CONNECTIONS} connections; limiter and cache ${process.env.BENCH_REDIS === '1' ? 'in Redis' : 'in memory'}`,
  );
  console.table(table);
  // The verdict: the CPU a request costs the server in its least disturbed round (throughput on a
  // shared machine swings with what else runs; the medians are printed beside it). Under 10% more CPU per request is ≥ 0.9× the requests per CPU second.
  const onRow = table.find((r) => r.variant === 'on')!;
  const cost = onRow['CPU × off'] - 1;
  const met = cost < 1 - GOAL;
  console.log(
    `CORS + ETag/Cache-Control (+ access log where built) on: ${onRow['CPU × off']}× the server CPU per request of off (cost ${(cost * 100).toFixed(1)}%, goal under ${((1 - GOAL) * 100).toFixed(0)}%) ${met ? 'MET' : 'MISSED'}; req/s ${onRow['× off']}× off`,
  );
  if (table.some((r) => r.failed > 0)) console.log('WARNING: some requests failed (non-2xx or errors)');
  const file = writeResult('extras', {
    when: new Date().toISOString(),
    machine: machine(),
    method: {
      connections: CONNECTIONS,
      seconds: SECONDS,
      rounds: ROUNDS,
      statistic: 'median of per-round ratios to the off server (rounds interleaved)',
      stores: process.env.BENCH_REDIS === '1' ? 'Redis' : 'memory',
      off: OFF,
    },
    goal: 'on: server CPU per request less than 10% above off',
    met,
    table,
    samples,
  });
  console.log(`written ${file}`);
} finally {
  for (const child of children) await stop(child).catch(() => {});
  await database.drop();
}
