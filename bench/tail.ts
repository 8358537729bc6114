/**
 * `npm run bench:tail`: what the uncached strategy list's p99 under a paced load is made of (issue 22:
 * p99 at half of peak ≤ 10 ms on 1M/10M, missed). The gateway of bench/catalogue.ts runs with its tail
 * probe (bench/servers/tailProbe.ts). First its closed-loop peak (autocannon, 20 connections, the
 * rotation over every (chain, pair)), then, per rate, the paced load of bench/catalogue.ts (`pacedApart`)
 * and, side by side:
 *   client      p50 / p99 from each request's due time (what bench:catalogue judges);
 *   gateway     p50 / p99 / max from the server's `request` event to the response's `finish`;
 *   busy        the gateway's CPU over the run, as a share of one core, and the box's over both (the
 *               paced client's start-up included);
 *   stalls      event-loop stalls over 6 ms, and how many of them a collection of over 1 ms started in; the
 *               collections' pauses summed by kind (minor: scavenges; major: mark-compacts, with the
 *               incremental marking's finishing steps), and the longest.
 *   BENCH_STRATEGIES, BENCH_SWAPS   dataset (100,000, 1,000,000); BENCH_DB_URL reuses a database,
 *                                   BENCH_KEEP_DB=1 keeps the one generated
 *   BENCH_SECONDS                   seconds of each paced run (6)
 *   BENCH_RATE_SHARES               "0.5,0.3": the rates, as shares of the measured peak
 * Writes bench/results/tail.json.
 */
import { fixtureChains } from '../test/helpers/catalogue.js';
import { generatedListPaths } from './fixtures.js';
import { generatedDatabase } from './generatedDatabase.js';
import { load } from './lib.js';
import { cpuMs, machine, machineJiffies, writeResult } from './measure.js';
import { pacedApart } from './paced.js';
import { lineReplies, startGateway } from './processes.js';
import type { TailProbeReport } from './servers/tailProbe.js';

const STRATEGIES = Number(process.env.BENCH_STRATEGIES ?? 100_000);
const SWAPS = Number(process.env.BENCH_SWAPS ?? 1_000_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
const SHARES = (process.env.BENCH_RATE_SHARES ?? '0.5,0.3').split(',').map(Number);

const chains = fixtureChains(3);
const listPaths = generatedListPaths(chains);

const stops: Array<() => Promise<void>> = [];
const database = await generatedDatabase({ strategies: STRATEGIES, swaps: SWAPS, chains });
try {
  const reports = lineReplies<TailProbeReport>('tail-probe', 5_000);
  const server = await startGateway(
    ['/api/strategies'],
    {
      DATABASE_URL: database.url,
      NODE_ENV: process.env.NODE_ENV ?? 'production',
      BENCH_TAIL_PROBE: '1',
    },
    { onLine: reports.onLine },
  );
  stops.push(server.stop);
  const pid = server.child.pid!;
  /** The probe's counts since the last call. */
  const probe = () => reports.ask(() => process.kill(pid, 'SIGUSR2'));
  const base = server.url;
  await load('warm-up', base, { paths: listPaths, duration: 3 });
  const peak = await load('list, peak', base, { paths: listPaths, duration: SECONDS });
  const runs = [];
  for (const share of SHARES) {
    const rate = Math.max(1, Math.round(peak.requestsPerSec * share));
    await probe();
    const cpuBefore = cpuMs(pid);
    const boxBefore = machineJiffies();
    const client = await pacedApart(`list, ${rate} req/s`, base, listPaths, rate, SECONDS);
    const box = machineJiffies();
    const gateway = await probe();
    const inStall = gateway.stalls.filter(([start, length]) =>
      gateway.collections.some(([at, ms]) => ms > 1 && at >= start - 1 && at <= start + length),
    ).length;
    const pauses = (kind: string) =>
      gateway.collections.filter(([, , k]) => k === kind).reduce((sum, [, ms]) => sum + ms, 0);
    const run = {
      share,
      rate,
      clientP50Ms: client.p50,
      clientP99Ms: client.p99,
      gatewayP50Ms: gateway.serverP50Ms,
      gatewayP99Ms: gateway.serverP99Ms,
      gatewayMaxMs: gateway.serverMaxMs,
      gatewayBusy: Number(((cpuMs(pid) - cpuBefore) / (SECONDS * 1000)).toFixed(2)),
      machineBusy: Number(((box.busy - boxBefore.busy) / (box.all - boxBefore.all)).toFixed(2)),
      stalls: gateway.stalls.length,
      longestStallMs: Math.max(0, ...gateway.stalls.map(([, length]) => length)),
      stallsWithCollection: inStall,
      minorPauseMs: Math.round(pauses('minor')),
      majorPauseMs: Math.round(pauses('major') + pauses('incremental')),
      longestPauseMs: Math.max(0, ...gateway.collections.map(([, ms]) => ms)),
    };
    console.log(JSON.stringify(run));
    console.log(`  stalls ${JSON.stringify(gateway.stalls)}`);
    const long = gateway.collections.filter(([, ms]) => ms > 2.5);
    console.log(`  collections over 2.5 ms ${JSON.stringify(long)}`);
    runs.push(run);
  }
  console.log(`peak ${peak.requestsPerSec} req/s (closed loop, 20 connections)`);
  console.table(runs);
  writeResult('tail', {
    machine: machine(),
    strategies: STRATEGIES,
    seconds: SECONDS,
    peakRequestsPerSec: peak.requestsPerSec,
    runs,
  });
} finally {
  for (const stop of stops.reverse()) await stop().catch(() => {});
  await database.close();
}
