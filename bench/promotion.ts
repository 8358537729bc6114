/**
 * `npm run bench:promotion`: how much of the uncached strategy list's garbage V8 promotes to the old
 * generation, per request, and what the young generation's collections cost the gateway (issue 22: the
 * list at 0.64x express in `npm run bench`, ~14 KB promoted per request there).
 *
 * The gateway of bench/catalogue.ts (bench/servers/catalogue.ts, the service's node flags) runs with
 * `--trace-gc-nvp` over a generated catalogue; V8's line per collection is read from its stdout as it
 * comes (spawnReady's `onLine`). For each connection count (autocannon, the rotation over every (chain, pair) of bench/catalogue.ts),
 * a warm-up, then a measured run: requests, the gateway's CPU per request (/proc), the scavenges (how
 * many, their pauses as a share of the run), and the bytes they promoted per request.
 *   BENCH_STRATEGIES, BENCH_SWAPS   dataset (20,000, 100,000); BENCH_DB_URL reuses a database,
 *                                   BENCH_KEEP_DB=1 keeps the one generated
 *   BENCH_SECONDS                   seconds of each measured run (6)
 *   BENCH_CONNECTION_COUNTS         "20,2": the runs, one per count
 *   BENCH_NODE_FLAGS                more V8 flags for the gateway (a heap setting to compare)
 * Writes bench/results/promotion.json.
 */
import { fixtureChains } from '../test/helpers/catalogue.js';
import { generatedListPaths } from './fixtures.js';
import { generatedDatabase } from './generatedDatabase.js';
import { load } from './lib.js';
import { cpuMs, machine, nvpField, writeResult } from './measure.js';
import { startGateway } from './processes.js';

const STRATEGIES = Number(process.env.BENCH_STRATEGIES ?? 20_000);
const SWAPS = Number(process.env.BENCH_SWAPS ?? 100_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
const COUNTS = (process.env.BENCH_CONNECTION_COUNTS ?? '20,2').split(',').map(Number);
const WARM_UP_SECONDS = 5;

const chains = fixtureChains(3);
const listPaths = generatedListPaths(chains);

/** The young generation's collections of one run, summed from V8's nvp lines. */
interface Young {
  scavenges: number;
  pauseMs: number;
  promotedBytes: number;
  markCompacts: number;
  markCompactPauseMs: number;
}
const none = (): Young => ({
  scavenges: 0,
  pauseMs: 0,
  promotedBytes: 0,
  markCompacts: 0,
  markCompactPauseMs: 0,
});

const stops: Array<() => Promise<void>> = [];
const database = await generatedDatabase({ strategies: STRATEGIES, swaps: SWAPS, chains });
try {
  const { url } = database;

  // What V8's lines count towards: null outside a measured run (start-up, warm-ups).
  let counting: Young | null = null;
  const server = await startGateway(
    ['/api/strategies'],
    { DATABASE_URL: url, NODE_ENV: process.env.NODE_ENV ?? 'production' },
    {
      nodeArgs: ['--trace-gc-nvp'],
      onLine: (line) => {
        if (counting === null) return;
        if (line.includes(' gc=s ')) {
          counting.scavenges++;
          counting.pauseMs += nvpField(line, 'pause');
          counting.promotedBytes += nvpField(line, 'promoted');
        } else if (line.includes(' gc=mc ')) {
          counting.markCompacts++;
          counting.markCompactPauseMs += nvpField(line, 'pause');
        }
      },
    },
  );
  stops.push(server.stop);
  const child = server.child;
  const base = server.url;
  const runs = [];
  for (const connections of COUNTS) {
    await load('warm-up', base, { paths: listPaths, duration: WARM_UP_SECONDS, connections });
    const young = none();
    counting = young;
    const cpuBefore = cpuMs(child.pid!);
    const result = await load(`list, ${connections} connections`, base, {
      paths: listPaths,
      duration: SECONDS,
      connections,
    });
    const cpu = cpuMs(child.pid!) - cpuBefore;
    // The nvp lines of the run's last moments may still be in the pipe.
    await new Promise((r) => setTimeout(r, 200));
    counting = null;
    const requests = result.total ?? result.requestsPerSec * SECONDS;
    const run = {
      connections,
      requestsPerSec: result.requestsPerSec,
      p99Ms: result.p99,
      gatewayCpuMsPerRequest: Number((cpu / requests).toFixed(4)),
      scavenges: young.scavenges,
      requestsPerScavenge: Math.round(requests / Math.max(young.scavenges, 1)),
      scavengePauseShareOfCpu: Number((young.pauseMs / cpu).toFixed(4)),
      promotedKbPerRequest: Number((young.promotedBytes / requests / 1024).toFixed(2)),
      markCompacts: young.markCompacts,
      markCompactPauseMs: Math.round(young.markCompactPauseMs),
    };
    console.log(JSON.stringify(run));
    runs.push(run);
  }
  console.table(runs);
  writeResult('promotion', { machine: machine(), strategies: STRATEGIES, seconds: SECONDS, runs });
} finally {
  for (const stop of stops.reverse()) await stop().catch(() => {});
  await database.close();
}
