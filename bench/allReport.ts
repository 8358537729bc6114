/**
 * The report of `npm run bench` (bench/all.ts): a row per target against its express and node:http
 * baselines of the same rounds, the performance goals judged (MET / MISSED), printed and written to
 * bench/results/all.json (all-partial.json for a BENCH_ONLY subset).
 *
 * `× express` is the median of the per-round ratios: each round runs express, node:http and the gateway
 * back to back, so a round's ratio keeps what the box did to all three in those seconds, where the
 * ratio of the medians pairs the gateway's median round with another round's express (on this VM the
 * same express moved 5.6-7.5k req/s between rounds of one run). Both are printed.
 */
import { cpus } from 'node:os';
import type { LoadOptions, LoadResult } from './lib.js';
import { machine, median, RSS_TARGET_MB, type rssOf, writeResult } from './measure.js';

export interface Target {
  key: string;
  name: string;
  request: LoadOptions;
  /** ≥ this many × express, or no target. */
  target?: number;
  /** ≤ this many ms of the gateway process's CPU per request (prepare, swap, dock), or no target. */
  cpuTargetMs?: number;
  /** Report the gateway's chain RPC requests per call (gateway_rpc_requests_total, client gateway). */
  countRpc?: boolean;
  note: string;
}

/** One target's rounds: the median rows of express, node:http and the gateway, in that order. */
export interface TargetReport {
  target: Target;
  bodyBytes: number;
  rows: LoadResult[];
  samples: Record<string, LoadResult[]>;
}

export function reportAll(
  report: TargetReport[],
  rss: ReturnType<typeof rssOf>,
  options: { rounds: number; seconds: number; connections: number; redisUrl: string; partial: boolean },
): void {
  const cpuText = (row: LoadResult, keys = ['server', 'postgres', 'redis', 'loadGenerator']) =>
    keys.map((k) => (row.cpuMsPerRequest?.[k] ?? 0).toFixed(2)).join(' · ');
  const table = report.map(({ target, bodyBytes, rows, samples }) => {
    const [express, http, gateway] = rows as [LoadResult, LoadResult, LoadResult];
    const [expressRuns = [], , gatewayRuns = []] = Object.values(samples);
    const perRound = gatewayRuns.map((g, i) => g.requestsPerSec / (expressRuns[i]?.requestsPerSec ?? NaN));
    const ratio = median(perRound);
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
      'rounds × express': perRound.map((r) => r.toFixed(2)).join(', '),
      '× express (of medians)': Number((gateway.requestsPerSec / express.requestsPerSec).toFixed(2)),
      '× node:http': Number((gateway.requestsPerSec / http.requestsPerSec).toFixed(2)),
      goal:
        [
          target.target === undefined
            ? null
            : `≥ ${target.target}× express ${ratio >= target.target ? 'MET' : 'MISSED'}`,
          target.cpuTargetMs === undefined
            ? null
            : `≤ ${target.cpuTargetMs} ms gateway CPU/req ${(gateway.cpuMsPerRequest?.server ?? 0) <= target.cpuTargetMs ? 'MET' : 'MISSED'}`,
        ]
          .filter(Boolean)
          .join('; ') || '—',
      'CPU ms/req gw·pg·redis·gen': cpuText(gateway),
      'CPU ms/req express·gen': cpuText(express, ['server', 'loadGenerator']),
      'RPC/req': gateway.rpcPerRequest ?? '—',
      failed: rows.reduce((s, r) => s + r.non2xx + r.errors, 0),
    };
  });
  console.log(
    `\nmedian of ${options.rounds} interleaved rounds of ${options.seconds} s (× express: median of the per-round ratios), ${options.connections} connections, a distinct X-Forwarded-For per request; ` +
      `Postgres 127.0.0.1:5432, Redis ${options.redisUrl}; ${cpus().length} cores shared by load, service, baselines, Postgres, Redis, anvil`,
  );
  console.table(table);
  for (const row of table)
    if (row.goal !== '—')
      console.log(
        `${row.target}: ${row['× express']}× express, gateway CPU ${row['CPU ms/req gw·pg·redis·gen'].split(' · ')[0]} ms/req${row['RPC/req'] === '—' ? '' : `, ${row['RPC/req']} RPC requests/req`}; ${row.goal}`,
      );
  if (table.some((r) => r.failed > 0))
    console.log('WARNING: some requests failed (non-2xx or errors): see the rounds above');
  // A subset (BENCH_ONLY) never overwrites the full run's figures.
  const file = writeResult(options.partial ? 'all-partial' : 'all', {
    when: new Date().toISOString(),
    machine: machine(),
    method: {
      connections: options.connections,
      seconds: options.seconds,
      rounds: options.rounds,
      statistic:
        'median of interleaved rounds (express, node:http, gateway); × express: median of the per-round ratios',
      clients: 'a distinct X-Forwarded-For per request, TRUST_PROXY=1, for gateway and baselines alike',
      stores: {
        postgres: 'machine 127.0.0.1:5432, fresh database',
        redis: options.redisUrl,
      },
    },
    table,
    rss: { ...rss, target: `<= ${RSS_TARGET_MB} MB peak`, met: rss.peakRssMb <= RSS_TARGET_MB },
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
}
