/**
 * `npm run bench:extras` (and the second half of `npm run bench`): what CORS, ETag, compression and the
 * access log cost on the hottest read, cached GET /api/stats, in ONE run:
 *   off        the same build with CORS=off HTTP_CACHE=off COMPRESSION=off ACCESS_LOG=off
 *   on         every switch at its default (CORS, Cache-Control + ETag, the compression wrapper, the
 *              access log where the build has one)
 * Both get the same request, a browser's (Origin), without Accept-Encoding;
 *   on, gzip   the on server, the client asks `Accept-Encoding: gzip` (the body is over the threshold)
 *   on, br     the same, `Accept-Encoding: br`
 * Goal: the cost of CORS, ETag and the access log under 10% of the server's CPU per request
 * (from /proc: what the additions add in work), judged twice, each variant side by side with off (both
 * servers sent the same requests at the same rate in the same seconds, an evenly paced client each, so
 * that what the host does to this VM's cores in that round falls on both), as the median of the
 * per-round ratios, after a second of the same load on both (a server left idle while other pairs ran
 * pays more per request for a while):
 *   paced       a quarter of off's peak (BENCH_PACED_RATE), BENCH_PACED_ROUNDS (5) rounds;
 *   near peak   70% of the slowest variant's rate in the closed loops beside off (a compressing one's,
 *               where they run; BENCH_HIGH_RATE), as many rounds.
 * Printed, not judged:
 *   at peak     a closed loop (autocannon, 20 connections) on each at once, BENCH_ROUNDS rounds. The two
 *               are not sent alike: on's load generator parses five more headers per response (a quarter
 *               more of its CPU), so on is sent fewer requests, and a server's CPU per request rises
 *               the fewer it is sent. In the thirteenth pass its rounds spread 0.81-1.35x over three
 *               runs, the near-peak rounds of the same runs 0.996-1.061x;
 *   alone       each variant's closed loop alone, rounds interleaved, for req/s and latency, and their
 *               lowest CPU per request (one server's moved from 94 to 142 µs between two 5 s rounds).
 * BENCH_AA=1 starts the `on` server with every addition off too and loads only the two: what the method
 * reads where nothing differs (the thirteenth pass: near peak 1.004x, paced 0.960x, closed loops 1.013x
 * with rounds 0.97-1.20).
 * The compression rows are what a client asking for it costs (a measure, no goal).
 * Each server is a process of its own (bench/servers/catalogue.ts, the real service over a fresh
 * database with a roll-up written), logging at info to a pipe this process drains.
 *   BENCH_SECONDS (5), BENCH_ROUNDS (3), BENCH_CONNECTIONS (20); BENCH_REDIS=1: limiter and cache in
 *   the machine's Redis (default: in memory, where the additions are the larger share of a request);
 *   BENCH_PROBE=1: also a server per switch (COMPRESSION too) with only that one off (what each costs), and a
 *   second server with all of them off (`off, again`: the A/A pair, what the method reads of no change);
 *   BENCH_VARIANTS=off again: only the variants named (their names without the comma), off and on.
 * Writes bench/results/extras.json.
 */

import type { ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { createDb } from '../store/db.js';
import { migrate } from '../store/migrate.js';
import { writeRollup } from '../store/rollups.js';
import { createTestDatabase, MACHINE_REDIS } from '../test/helpers/postgres.js';
import { busyCatalogueRollup } from './fixtures.js';
import { type LoadResult, load } from './lib.js';
import { cpuMs, machine, median, medianRow, writeResult } from './measure.js';
import { pacedApart } from './paced.js';
import { startGateway } from './processes.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PACED_ROUNDS = Number(process.env.BENCH_PACED_ROUNDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
const GOAL = 0.9;
const ORIGIN = 'https://app.example';

/** The switches of the additions; a build without one of them ignores its variable. */
const OFF = { CORS: 'off', HTTP_CACHE: 'off', COMPRESSION: 'off', ACCESS_LOG: 'off' };

/**
 * The service for one variant, in a process of its own (`startGateway`); resolves once it printed
 * `ready`. Its stdout (the access log, when the build has one) is read and dropped, as a log shipper's
 * pipe would be.
 */
async function startServer(env: Record<string, string>): Promise<{ url: string; child: ChildProcess }> {
  const server = await startGateway(['/api/stats'], {
    BENCH_LOG_LEVEL: 'info',
    ...env,
  });
  stops.push(server.stop);
  return { url: server.url, child: server.child };
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

/** Ends every server started (`startServer`). */
const stops: Array<() => Promise<void>> = [];
const database = await createTestDatabase();
try {
  const db = createDb(database.url, 2);
  await migrate(db);
  await writeRollup(db, busyCatalogueRollup());
  await db.end();
  const common: Record<string, string> = {
    DATABASE_URL: database.url,
    NODE_ENV: process.env.NODE_ENV ?? 'production',
    REDIS_PREFIX: `bench:extras:${Date.now()}:`,
    ...(process.env.BENCH_REDIS === '1' ? { REDIS_URL: process.env.REDIS_URL ?? MACHINE_REDIS } : {}),
  };
  const off = await startServer({ ...common, ...OFF });
  // BENCH_AA=1: the `on` server started with every addition off too, and only the two of them loaded:
  // the verdict's own pair with nothing between them, what the method reads of no difference.
  const aa = process.env.BENCH_AA === '1';
  const on = await startServer(aa ? { ...common, ...OFF } : common);
  const variants = [
    { name: 'off', url: off.url, pid: off.child.pid!, headers: { origin: ORIGIN } as Record<string, string> },
    { name: 'on', url: on.url, pid: on.child.pid!, headers: { origin: ORIGIN } },
    {
      name: 'on, gzip',
      url: on.url,
      pid: on.child.pid!,
      headers: { origin: ORIGIN, 'accept-encoding': 'gzip' },
    },
    { name: 'on, br', url: on.url, pid: on.child.pid!, headers: { origin: ORIGIN, 'accept-encoding': 'br' } },
  ];
  // BENCH_PROBE=1: one more server per switch, with every addition on but that one (what each costs),
  // and a second server with all of them off (an A/A pair: what the method reads where nothing differs).
  if (process.env.BENCH_PROBE === '1') {
    const again = await startServer({ ...common, ...OFF });
    variants.push({ name: 'off, again', url: again.url, pid: again.child.pid!, headers: { origin: ORIGIN } });
    for (const name of ['CORS', 'HTTP_CACHE', 'ACCESS_LOG', 'COMPRESSION'] as const) {
      const probe = await startServer({ ...common, [name]: 'off' });
      variants.push({
        name: `on, ${name} off`,
        url: probe.url,
        pid: probe.child.pid!,
        headers: { origin: ORIGIN },
      });
    }
  }

  // BENCH_VARIANTS=off again: only those, beside off and on (the verdict's two), for a shorter run.
  const only = aa ? [] : process.env.BENCH_VARIANTS?.split(',').map((name) => name.trim());
  if (only) {
    const names = variants.map((v) => v.name.replace(',', ''));
    const unknown = only.filter((name) => !names.includes(name));
    if (unknown.length > 0)
      throw new Error(`BENCH_VARIANTS: no variant ${unknown.join(', ')} (there are: ${names.join(', ')})`);
    const kept = variants.filter(
      (v) => v.name === 'off' || v.name === 'on' || only.includes(v.name.replace(',', '')),
    );
    variants.splice(0, variants.length, ...kept);
  }
  // Fill both caches, and check that each variant is what it says.
  const sizes: Record<string, number> = {};
  for (const v of variants) {
    await (await fetch(`${v.url}/api/stats`)).text();
    const res = await fetch(`${v.url}/api/stats`, { headers: v.headers });
    await res.arrayBuffer();
    const cors = res.headers.get('access-control-allow-origin');
    const etag = res.headers.get('etag');
    if ((aa || v.name.startsWith('off')) !== (cors === null && etag === null))
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
  /** The load generator's own CPU per answered request, in µs. */
  const generatorUs = (r: LoadResult) =>
    (((r.generatorCpuMs ?? 0) / Math.max(1, r.total ?? 0)) * 1000).toFixed(1);
  type Variant = (typeof variants)[number];
  /**
   * Each variant loaded beside off in the same seconds (`drive` runs one's load), `rounds` times: the
   * server CPU µs per request of each, and the variant's ratio to off per round.
   */
  const besideOff = async (
    label: string,
    rounds: number,
    drive: (v: Variant, seconds: number) => Promise<LoadResult>,
  ) => {
    const cpu: Record<string, number[]> = {};
    const ratio: Record<string, number[]> = {};
    const rates: Record<string, number[]> = {};
    const cpuAt = async (v: Variant) => {
      const before = cpuMs(v.pid);
      const result = await drive(v, SECONDS);
      return { result, perRequest: ((cpuMs(v.pid) - before) / Math.max(1, result.total ?? 0)) * 1000 };
    };
    for (let round = 1; round <= rounds; round++) {
      for (const v of variants.slice(1)) {
        // Both loaded alike for a second first: a server that sat idle while other pairs ran (the
        // probe's) pays more per request for a while, and off never sits idle. An A/A pair read 1.07-1.11
        // without this, and 0.96-1.02 where both servers were loaded in every round.
        await Promise.all([drive(variants[0]!, 1), drive(v, 1)]);
        const [base, here] = await Promise.all([cpuAt(variants[0]!), cpuAt(v)]);
        cpu[v.name] = [...(cpu[v.name] ?? []), here.perRequest];
        cpu.off = [...(cpu.off ?? []), base.perRequest];
        ratio[v.name] = [...(ratio[v.name] ?? []), here.perRequest / base.perRequest];
        rates[v.name] = [...(rates[v.name] ?? []), here.result.requestsPerSec];
        rates.off = [...(rates.off ?? []), base.result.requestsPerSec];
        const failed = here.result.non2xx + here.result.errors + base.result.non2xx + base.result.errors;
        console.log(
          `${label} round ${round}: ${v.name} ${here.perRequest.toFixed(1)} µs CPU/req (${here.result.requestsPerSec} req/s) beside off ${base.perRequest.toFixed(1)} (${base.result.requestsPerSec} req/s): ${(here.perRequest / base.perRequest).toFixed(3)}×; load generators ${generatorUs(here.result)} and ${generatorUs(base.result)} µs CPU/req${failed > 0 ? ` (${failed} failed)` : ''}`,
        );
      }
    }
    return { cpu, ratio, rates };
  };
  // The closed loop again, each variant side by side with off (printed, not judged: the two load
  // generators do not send alike), and the rates it reaches give the near-peak rate below.
  const {
    cpu: peakCpu,
    ratio: peakRatio,
    rates: peakRates,
  } = await besideOff('peak', ROUNDS, (v, seconds) =>
    load(v.name, `${v.url}/api/stats`, { headers: v.headers, connections: CONNECTIONS, duration: seconds }),
  );
  // The same requests at one fixed rate (open loop, evenly paced), each variant side by side with
  // off: both servers take the same load at the same time, so whatever else the machine does in that
  // round (the host's scheduling of this VM's cores moved a server's CPU per request by ±30% from one
  // run to the next) falls on both, and their ratio keeps only what the variant does. A closed loop
  // runs each server as fast as it goes instead, and how many requests one event-loop turn serves
  // (and so the CPU a request costs) then follows its speed.
  const offPeak = median(samples.off!.map((r) => r.requestsPerSec));
  const rate = Number(process.env.BENCH_PACED_RATE ?? Math.round((offPeak * 0.25) / 100) * 100);
  const { cpu: pacedCpu, ratio: pacedRatio } = await besideOff('paced', PACED_ROUNDS, (v, seconds) =>
    pacedApart(v.name, v.url, ['/api/stats'], rate, seconds, { headers: v.headers }),
  );
  // Near peak, at one rate for every pair: 70% of what the slowest variant answered in the closed loop
  // beside off (so that the gzip and br rows fit too; what two paced clients, each costlier per request
  // than autocannon, and two servers still fit in two cores). Beside each other at peak, the two closed
  // loops do not send alike: the load generator of `on` parses five more headers per response and spent
  // a quarter more CPU per response than off's, so `on` was sent fewer requests, and a server sent fewer
  // requests pays more for each (twelfth pass: 2.4x for a hello-world between 300 req/s and its peak).
  // At one rate both are sent the same requests in the same seconds, and the ratio is the cost of the
  // additions alone.
  const slowest = Math.min(...Object.values(peakRates).map((list) => median(list)));
  const highRate = Number(process.env.BENCH_HIGH_RATE ?? Math.round((slowest * 0.7) / 100) * 100);
  const { cpu: highCpu, ratio: highRatio } = await besideOff('near peak', PACED_ROUNDS, (v, seconds) =>
    pacedApart(v.name, v.url, ['/api/stats'], highRate, seconds, { headers: v.headers }),
  );
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
      'peak beside off µs/req': Number(median(peakCpu[v.name]!).toFixed(1)),
      'peak beside off CPU × off': v.name === 'off' ? 1 : Number(median(peakRatio[v.name]!).toFixed(3)),
      'req/s': row.requestsPerSec,
      'p50 ms': row.p50,
      'p99 ms': row.p99,
      '× off': median(perRound),
      rounds: perRound.join(', '),
      'paced CPU µs/req': Number(median(pacedCpu[v.name]!).toFixed(1)),
      'paced CPU × off': v.name === 'off' ? 1 : Number(median(pacedRatio[v.name]!).toFixed(3)),
      'near peak CPU µs/req': Number(median(highCpu[v.name]!).toFixed(1)),
      'near peak CPU × off': v.name === 'off' ? 1 : Number(median(highRatio[v.name]!).toFixed(3)),
      failed: row.non2xx + row.errors,
    };
  });
  console.log(
    `\nGET /api/stats (cached), median of ${ROUNDS} interleaved rounds of ${SECONDS} s, ${CONNECTIONS} connections; limiter and cache ${process.env.BENCH_REDIS === '1' ? 'in Redis' : 'in memory'}`,
  );
  console.table(table);
  // Two verdicts, each the median of per-round ratios to off with both servers sent the same requests
  // at the same rate in the same seconds: at a quarter of off's peak (a service below saturation) and
  // near peak (70% of the slowest variant's closed-loop rate). Under 10% more CPU per request is >= 0.9x
  // the requests per CPU second. Printed beside them, not judged: the closed loops at once (their load
  // generators differ per response, so the two servers are not sent the same number of requests, and
  // a server's CPU per request follows how many it is sent), and the one-after-another rounds' lowest
  // CPU per request (the host moved a round by more than the additions cost).
  const onRow = table.find((r) => r.variant === 'on')!;
  const pacedCost = onRow['paced CPU × off'] - 1;
  const highCost = onRow['near peak CPU × off'] - 1;
  const limit = 1 - GOAL;
  const verdict = (cost: number) => `${(cost * 100).toFixed(1)}% ${cost < limit ? 'MET' : 'MISSED'}`;
  const met = pacedCost < limit && highCost < limit;
  console.log(
    `CORS + ETag/Cache-Control + access log on, cost in server CPU per request against off (goal under ${(limit * 100).toFixed(0)}%): ` +
      `at ${rate} req/s beside off ${onRow['paced CPU × off']}× (${verdict(pacedCost)}); ` +
      `near peak at ${highRate} req/s beside off ${onRow['near peak CPU × off']}× (${verdict(highCost)}), rounds ${highRatio.on!.map((r) => r.toFixed(3)).join(', ')}; ` +
      `not judged: closed loops at once ${onRow['peak beside off CPU × off']}×, rounds ${peakRatio.on!.map((r) => r.toFixed(3)).join(', ')}; ` +
      `one after the other: best rounds ${onRow['CPU × off']}×, req/s ${onRow['× off']}× off`,
  );
  if (table.some((r) => r.failed > 0)) console.log('WARNING: some requests failed (non-2xx or errors)');
  const file = writeResult('extras', {
    when: new Date().toISOString(),
    machine: machine(),
    method: {
      connections: CONNECTIONS,
      seconds: SECONDS,
      rounds: ROUNDS,
      pacedRounds: PACED_ROUNDS,
      statistic:
        'median of per-round ratios to the off server, sent the same requests at the same rate in the same seconds (paced, near peak)',
      pacedRate: rate,
      nearPeakRate: highRate,
      aa,
      stores: process.env.BENCH_REDIS === '1' ? 'Redis' : 'memory',
      off: OFF,
    },
    goal: 'on: server CPU per request less than 10% above off, beside it at a quarter of peak and near peak, at the same rate',
    met,
    table,
    samples,
    pacedCpu,
    pacedRatio,
    highCpu,
    highRatio,
    peakCpu,
    peakRatio,
  });
  console.log(`written ${file}`);
} finally {
  for (const stop of stops) await stop().catch(() => {});
  await database.drop();
}
