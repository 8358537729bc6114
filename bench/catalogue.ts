/**
 * The catalogue figures, on the real Postgres (a fresh database on 127.0.0.1:5432) loaded with
 * 1,000,000 strategies and 10,000,000 swaps:
 *   1. GET /api/strategies?pair=…&chain=… p99 ≤ 10 ms at half of its peak load;
 *   2. its uncached throughput ≥ 0.7× an express 5 hello-world returning the same bytes (raised from
 *      0.5×);
 *   3. the gateway's peak RSS (VmHWM) over the whole run ≤ 300 MB.
 * Half of peak is an open-loop paced load (`pacedApart`: latency from each request's due time, from a
 * fresh process of its own), peak is autocannon. Both send the list requests from one rotation over
 * every (chain, pair) of the data in both spellings, shared by all connections (lib.ts `paths`: with a
 * rotation per connection, autocannon's connections asked for the same page at the same moment and
 * shared batched results, a peak half again higher than independent clients give), through the real
 * route (persisted operation, rate limiter with a limit the load never reaches, no response cache:
 * strategy lists are never cached). Servers run in processes of their own, with the service's node
 * flags (SERVER_NODE_FLAGS, baselines too); autocannon, 20 connections. The query plans (custom and
 * generic) of the filtered list are printed.
 *   npm run bench:catalogue
 *   BENCH_STRATEGIES, BENCH_SWAPS   dataset size (1e6, 1e7)
 *   BENCH_SECONDS, BENCH_ROUNDS     seconds per load run (8), interleaved rounds (3; medians compared)
 *   BENCH_DB_URL                    reuse a database a previous run kept (BENCH_KEEP_DB=1 keeps it)
 * The rows come from `generateCatalogue` (bench/generate.ts, through bench/generatedDatabase.ts). Writes bench/results/catalogue.json.
 */
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { refreshRollup } from '../indexer/rollup.js';
import type { ChainConfig } from '../lib/config.js';
import type { Db } from '../store/db.js';
import { listOpenStrategies } from '../store/strategyList.js';
import { fixtureChains } from '../test/helpers/catalogue.js';
import { GENERATED_PAIRS, generatedListPaths } from './fixtures.js';
import { generatedDatabase } from './generatedDatabase.js';
import { type LoadResult, load } from './lib.js';
import { cpuMs, machine, median, ownCpuMsSince, RSS_TARGET_MB, rssOf, writeResult } from './measure.js';
import { pacedApart } from './paced.js';
import { freePort, spawnReady, startGateway } from './processes.js';

/** Every server of the run (ours and the baselines) gets the same NODE_ENV: production unless set. */
const NODE_ENV = process.env.NODE_ENV ?? 'production';
const STRATEGIES = Number(process.env.BENCH_STRATEGIES ?? 1_000_000);
const SWAPS = Number(process.env.BENCH_SWAPS ?? 10_000_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const P99_TARGET_MS = 10;
const THROUGHPUT_TARGET = 0.7;

const chains = fixtureChains(3);

interface Combo {
  chain: ChainConfig;
  symbols: readonly [string, string];
  pairKey: string;
}
const combos: Combo[] = chains.flatMap((chain) =>
  GENERATED_PAIRS.map((symbols) => ({ chain, symbols, pairKey: [...symbols].sort().join('/') })),
);

/** The SQL and values the list route sends for a filter, captured from store/catalogue.ts itself. */
async function listStatement(combo: Combo, after = false, sort: 'recent' | 'volume' = 'recent') {
  let captured: { text: string; values: unknown[] } | undefined;
  const spy = {
    query: async (config: { text: string; values: unknown[] }) => {
      captured = config;
      return { rows: [] };
    },
  } as unknown as Db;
  // The route resolves "A/B" in either order to the one stored key (resolvePair): one branch.
  await listOpenStrategies(spy, {
    sort,
    chains: [combo.chain.key],
    pairs: [combo.pairKey],
    projection: 'summaries',
    after: after
      ? {
          value: sort === 'volume' ? 1 : new Date(Date.now() - 86_400_000).toISOString(),
          hash: `0x${'0'.repeat(64)}`,
          chain: '',
        }
      : null,
    limit: 20,
  });
  return captured!;
}

/**
 * CPU per call of the list's store read alone, in this process (the pg client's share: the statement
 * runs in Postgres), over the (chain, pair) combinations: one call at a time, then 20 in flight.
 */
async function storeReadFloor(db: Db): Promise<{ sequential: number; concurrent: number }> {
  const run = async (calls: number, inFlight: number) => {
    let next = 0;
    const worker = async () => {
      while (next < calls) {
        const combo = combos[next++ % combos.length]!;
        await listOpenStrategies(db, {
          sort: 'recent',
          chains: [combo.chain.key],
          pairs: [combo.pairKey],
          after: null,
          limit: 21,
          projection: 'summaries',
        });
      }
    };
    const cpu = process.cpuUsage();
    await Promise.all(Array.from({ length: inFlight }, worker));
    return Number((ownCpuMsSince(cpu) / calls).toFixed(3));
  };
  await run(1000, 4);
  return { sequential: await run(5000, 1), concurrent: await run(5000, 20) };
}

async function explain(db: Db, combo: Combo): Promise<Record<string, string>> {
  const client = await db.connect();
  const plans: Record<string, string> = {};
  try {
    for (const [after, sort] of [
      [false, 'recent'],
      [true, 'recent'],
      [false, 'volume'],
      [true, 'volume'],
    ] as const) {
      const { text, values } = await listStatement(combo, after, sort);
      const literals = values.map((v) => client.escapeLiteral(String(v))).join(', ');
      await client.query(`PREPARE bench_list AS ${text}`);
      for (const mode of ['force_custom_plan', 'force_generic_plan']) {
        await client.query(`SET plan_cache_mode = ${mode}`);
        const { rows } = await client.query<{ 'QUERY PLAN': string }>(
          `EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) EXECUTE bench_list(${literals})`,
        );
        plans[
          `sort=${sort}, ${after ? 'page 2+' : 'page 1'}, ${mode.replace('force_', '').replace('_plan', '')}`
        ] = rows.map((r) => r['QUERY PLAN']).join('\n');
      }
      await client.query('DEALLOCATE bench_list');
      await client.query('RESET plan_cache_mode');
    }
  } finally {
    client.release();
  }
  return plans;
}

const stops: Array<() => Promise<void>> = [];
const database = await generatedDatabase({
  strategies: STRATEGIES,
  swaps: SWAPS,
  chains,
  log: (line) => console.log(line),
});
try {
  const { url, db } = database;
  const generation =
    database.generatedSeconds === null ? { reused: url } : { seconds: database.generatedSeconds };
  const refreshed = await refreshRollup(db, chains);
  const { rows: sizes } = await db.query<{ strategies: number; open: number; swaps: number; table: string }>(
    `SELECT (SELECT count(*)::int FROM strategies) AS strategies,
            (SELECT count(*)::int FROM strategies WHERE status = 'active') AS open,
            (SELECT reltuples::bigint FROM pg_class WHERE relname = 'swaps') AS swaps,
            pg_size_pretty(pg_total_relation_size('strategies')) AS table`,
  );
  console.log(`dataset: ${JSON.stringify(sizes[0])}; roll-up refreshed in ${refreshed.ms} ms`);

  // The smallest (chain, pair) of the data: where a filter on an unsuited index reads the most rows.
  const plans = await explain(db, combos.at(-1)!);
  for (const [name, plan] of Object.entries(plans)) console.log(`\n-- plan (${name}) --\n${plan}`);

  const server = await startGateway(['/api/strategies', '/api/strategy-detail'], {
    DATABASE_URL: url,
    NODE_ENV,
  });
  stops.push(server.stop);
  const gatewayPid = server.child.pid ?? -1;
  const base = server.url;
  const listPaths = generatedListPaths(chains);
  const { rows: sample } = await db.query<{ strategy_hash: string }>(
    'SELECT strategy_hash FROM strategies TABLESAMPLE SYSTEM (0.1) LIMIT 200',
  );
  const detailPaths = sample.map((r) => `/api/strategy-detail?hash=${r.strategy_hash}`);
  // The bytes of a real list response, served as they are by the baseline.
  const listBody = await (await fetch(`${base}${listPaths[0]}`)).text();
  const parsed = JSON.parse(listBody) as { data: { strategies: unknown[] } };
  if (parsed.data.strategies.length !== 20)
    throw new Error(`unexpected list body: ${listBody.slice(0, 200)}`);
  const bodyFile = join(tmpdir(), `gw-bench-catalogue-${process.pid}.json`);
  writeFileSync(bodyFile, listBody);
  const helloPort = await freePort();
  const hello = await spawnReady('bench/servers/hello.ts', ['express', String(helloPort), bodyFile], {
    NODE_ENV,
  });
  stops.push(hello.stop);

  await load('warm-up', base, { paths: listPaths, duration: 3 });
  await load('warm-up', `http://127.0.0.1:${helloPort}`, { duration: 2 });
  // Rounds interleave the baseline and the list so both see the same background load; medians compare.
  const runs: LoadResult[] = [];
  const expressRuns: LoadResult[] = [];
  const peakRuns: LoadResult[] = [];
  const halfRuns: LoadResult[] = [];
  const floorRuns: LoadResult[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const expressCpu = cpuMs(hello.child.pid ?? -1);
    const express = await load(
      `express 5 hello-world (same bytes), round ${round}`,
      `http://127.0.0.1:${helloPort}`,
      { duration: SECONDS },
    );
    const answered = Math.max(1, express.total ?? express.requestsPerSec * SECONDS);
    express.cpuMsPerRequest = {
      server: Number(((cpuMs(hello.child.pid ?? -1) - expressCpu) / answered).toFixed(3)),
    };
    const peak = await load(`GET /api/strategies?pair&chain, peak, round ${round}`, base, {
      paths: listPaths,
      duration: SECONDS,
    });
    const rate = Math.max(1, Math.round(peak.requestsPerSec / 2));
    const cpuBefore = cpuMs(gatewayPid);
    const half = await pacedApart(
      `GET /api/strategies?pair&chain, half of peak (${rate} req/s, paced), round ${round}`,
      base,
      listPaths,
      rate,
      SECONDS,
    );
    // How busy "half of peak" keeps the gateway's one thread: its CPU over the paced run.
    half.cpuMsPerRequest = {
      server: Number(((cpuMs(gatewayPid) - cpuBefore) / Math.max(1, rate * SECONDS)).toFixed(3)),
    };
    const busy = Math.round((half.cpuMsPerRequest.server! * rate) / 10);
    // The same paced load on the baseline: the p99 this machine and this client give a server that
    // does nothing but answer (the floor under the list's figure; it moves from run to run).
    const floor = await pacedApart(
      `express 5 hello-world (same bytes), the same paced rate (${rate} req/s), round ${round}`,
      `http://127.0.0.1:${helloPort}`,
      ['/'],
      rate,
      SECONDS,
    );
    expressRuns.push(express);
    peakRuns.push(peak);
    halfRuns.push(half);
    floorRuns.push(floor);
    runs.push(express, peak, half, floor);
    console.log(
      `round ${round}: express ${express.requestsPerSec} req/s; list peak ${peak.requestsPerSec} req/s; half of peak p99 ${half.p99} ms, gateway ${busy}% busy (express at that rate: ${floor.p99} ms)`,
    );
  }
  const storeRead = await storeReadFloor(db);
  runs.push(
    await load('GET /api/strategy-detail?hash, peak (info)', base, { paths: detailPaths, duration: SECONDS }),
  );

  console.log(
    `\n${sizes[0]!.strategies.toLocaleString()} strategies, ~${Number(sizes[0]!.swaps).toLocaleString()} swaps; ${SECONDS} s per run, ${ROUNDS} rounds, body ${listBody.length} bytes`,
  );
  console.table(
    runs.map((r) => ({
      target: r.name,
      'req/s': r.requestsPerSec,
      'p50 ms': r.p50,
      'p90 ms': r.p90,
      'p99 ms': r.p99,
      'max ms': r.max,
      non2xx: r.non2xx,
      errors: r.errors,
    })),
  );
  // Each round's list run against that round's express run (same background load): median of ratios.
  const expressRps = median(expressRuns.map((r) => r.requestsPerSec));
  const peakRps = median(peakRuns.map((r) => r.requestsPerSec));
  const perRound = peakRuns.map((p, i) =>
    Number((p.requestsPerSec / expressRuns[i]!.requestsPerSec).toFixed(3)),
  );
  const ratio = median(perRound);
  const half = { p99: median(halfRuns.map((r) => r.p99)) };
  const floorP99 = median(floorRuns.map((r) => r.p99));
  const peak = { requestsPerSec: peakRps };
  const rss = rssOf(gatewayPid);
  const verdicts = {
    p99AtHalfPeak: {
      ms: half.p99,
      perRound: halfRuns.map((r) => r.p99),
      gatewayCpuMsPerRequest: halfRuns.map((r) => r.cpuMsPerRequest?.server),
      expressAtSameRateMs: floorP99,
      target: `<= ${P99_TARGET_MS} ms`,
      met: half.p99 <= P99_TARGET_MS,
    },
    throughput: {
      ratioToExpress: ratio,
      perRound,
      expressRps,
      listRps: peak.requestsPerSec,
      target: `>= ${THROUGHPUT_TARGET}x express`,
      met: ratio >= THROUGHPUT_TARGET,
    },
    rss: { ...rss, target: `<= ${RSS_TARGET_MB} MB peak`, met: rss.peakRssMb <= RSS_TARGET_MB },
  };
  console.log(
    `p99 at half of peak: ${half.p99} ms (rounds ${halfRuns.map((r) => r.p99).join(', ')}; express hello-world at the same paced rate: ${floorP99} ms; target ≤ ${P99_TARGET_MS} ms) ${verdicts.p99AtHalfPeak.met ? 'MET' : 'MISSED'}`,
  );
  console.log(
    `uncached list: ${ratio}× express (rounds ${perRound.join(', ')}; medians ${peak.requestsPerSec} vs ${expressRps} req/s; target ≥ ${THROUGHPUT_TARGET}) ${verdicts.throughput.met ? 'MET' : 'MISSED'}`,
  );
  console.log(
    `gateway RSS: ${rss.rssMb} MB now, peak ${rss.peakRssMb} MB (target ≤ ${RSS_TARGET_MB} MB) ${verdicts.rss.met ? 'MET' : 'MISSED'}`,
  );
  // What the list cannot do without: its store read. Lists are never cached (SPEC), so every request
  // pays it; concurrent ones share a batched statement (store/batch.ts), independent ones do not.
  const expressCpuMs = median(expressRuns.map((r) => r.cpuMsPerRequest?.server ?? 0));
  console.log(
    `store read alone (listOpenStrategies in this process, CPU per call): ${storeRead.sequential} ms one at a time, ${storeRead.concurrent} ms with 20 in flight; express hello-world: ${expressCpuMs} ms per request (0.7× express leaves ${(expressCpuMs / THROUGHPUT_TARGET).toFixed(3)} ms per list request in all)`,
  );
  const file = writeResult('catalogue', {
    when: new Date().toISOString(),
    machine: machine({ nodeEnv: NODE_ENV }),
    dataset: { ...sizes[0], generation },
    method: { connections: 20, seconds: SECONDS, listPaths, bodyBytes: listBody.length },
    runs,
    verdicts,
    floors: { storeReadCpuMsPerCall: storeRead, expressCpuMsPerRequest: expressCpuMs },
    plans,
  });
  console.log(`written ${file}`);
} finally {
  for (const stop of stops.reverse()) await stop().catch(() => {});
  await database.close();
}
