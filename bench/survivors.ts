/**
 * `npm run bench:survivors`: WHERE the uncached strategy list's promoted bytes come from (bench:promotion
 * says how many). The gateway of bench/catalogue.ts runs with its survivor probe
 * (bench/servers/survivorProbe.ts): after a warm-up, V8's sampling heap profiler records, for one load
 * run, only the allocations that outlived a scavenge. They are summed by allocation site (the innermost
 * frames of the stack) and the largest printed, in KB and in bytes per request. A page kept alive by an
 * old object shows up here as its rows' strings and objects; a healthy list leaves about 0.1 KB per
 * request (bench/results/RESULTS.md, seventeenth pass).
 *   BENCH_STRATEGIES, BENCH_SWAPS   dataset (20,000, 100,000); BENCH_DB_URL reuses a database,
 *                                   BENCH_KEEP_DB=1 keeps the one generated
 *   BENCH_SECONDS                   seconds of the profiled run (6)
 *   BENCH_CONNECTIONS               its connections (2)
 *   BENCH_FRAMES, BENCH_TOP         frames that name a site (4), sites printed (25)
 * Writes bench/results/survivors.json.
 */
import type { HeapProfiler } from 'node:inspector';
import { fixtureChains } from '../test/helpers/catalogue.js';
import { generatedListPaths } from './fixtures.js';
import { generatedDatabase } from './generatedDatabase.js';
import { load } from './lib.js';
import { machine, writeResult } from './measure.js';
import { lineReplies, startGateway } from './processes.js';

const STRATEGIES = Number(process.env.BENCH_STRATEGIES ?? 20_000);
const SWAPS = Number(process.env.BENCH_SWAPS ?? 100_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 2);
const FRAMES = Number(process.env.BENCH_FRAMES ?? 4);
const TOP = Number(process.env.BENCH_TOP ?? 25);
const WARM_UP_SECONDS = 5;

const chains = fixtureChains(3);
const listPaths = generatedListPaths(chains);

/** Bytes sampled per allocation site: its innermost `FRAMES` frames, innermost first. */
function bySite(profile: HeapProfiler.SamplingHeapProfile): Map<string, number> {
  const sites = new Map<string, number>();
  const frame = ({ functionName, url, lineNumber }: HeapProfiler.SamplingHeapProfileNode['callFrame']) =>
    `${functionName || '(anonymous)'} ${url.split('/').slice(-2).join('/')}:${lineNumber + 1}`;
  const walk = (node: HeapProfiler.SamplingHeapProfileNode, stack: string[]) => {
    const here = [...stack, frame(node.callFrame)];
    if (node.selfSize > 0) {
      const site = here.slice(-FRAMES).reverse().join(' < ');
      sites.set(site, (sites.get(site) ?? 0) + node.selfSize);
    }
    for (const child of node.children) walk(child, here);
  };
  walk(profile.head, []);
  return sites;
}

const stops: Array<() => Promise<void>> = [];
const database = await generatedDatabase({ strategies: STRATEGIES, swaps: SWAPS, chains });
try {
  const profiles = lineReplies<HeapProfiler.SamplingHeapProfile>('survivors', 10_000);
  const server = await startGateway(
    ['/api/strategies'],
    {
      DATABASE_URL: database.url,
      NODE_ENV: process.env.NODE_ENV ?? 'production',
      BENCH_SURVIVOR_PROBE: '1',
    },
    { nodeArgs: ['--expose-gc'], onLine: profiles.onLine },
  );
  stops.push(server.stop);
  const base = server.url;
  await load('warm-up', base, { paths: listPaths, duration: WARM_UP_SECONDS, connections: CONNECTIONS });
  server.child.stdin!.write('survivors start\n');
  const result = await load(`list, ${CONNECTIONS} connections`, base, {
    paths: listPaths,
    duration: SECONDS,
    connections: CONNECTIONS,
  });
  const profile = await profiles.ask(() => server.child.stdin!.write('survivors stop\n'));
  const requests = result.total ?? result.requestsPerSec * SECONDS;
  const sites = [...bySite(profile)].sort((a, b) => b[1] - a[1]);
  const totalBytes = sites.reduce((sum, [, bytes]) => sum + bytes, 0);
  const top = sites.slice(0, TOP).map(([site, bytes]) => ({
    kb: Math.round(bytes / 1024),
    bytesPerRequest: Number((bytes / requests).toFixed(1)),
    site,
  }));
  console.log(
    `${requests} requests (${result.requestsPerSec} req/s, ${CONNECTIONS} connections, ${SECONDS} s): ` +
      `${Math.round(totalBytes / 1024)} KB outlived a scavenge, ${(totalBytes / requests / 1024).toFixed(3)} KB per request`,
  );
  for (const { kb, bytesPerRequest, site } of top)
    console.log(`${String(kb).padStart(7)} KB ${String(bytesPerRequest).padStart(8)} B/req  ${site}`);
  writeResult('survivors', {
    machine: machine(),
    strategies: STRATEGIES,
    connections: CONNECTIONS,
    seconds: SECONDS,
    requests,
    survivedKbPerRequest: Number((totalBytes / requests / 1024).toFixed(3)),
    top,
  });
} finally {
  for (const stop of stops.reverse()) await stop().catch(() => {});
  await database.close();
}
