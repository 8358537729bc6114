/**
 * Analytics reads on the 1,000,000 strategies / 10,000,000 swaps dataset: the maker view
 * (GET /api/makers/{address}), a strategy's 30-day daily series (GET /api/strategies/{hash}/activity)
 * and the 30-day daily series over the whole catalogue (`volumeSeries(granularity: DAY)` on /graphql,
 * GET, internal token: volume_hourly, the largest roll-up a series reads), and the graph's strategy
 * filters (maker, token with both statuses, shipped in the last week; first 20). Targets: the 30-day daily
 * series p99 under 50 ms; every path measured at half of its peak (autocannon peak, then an open-loop
 * paced load at half of it: bench/paced.ts).
 *   BENCH_DB_URL=postgres://…/db npm run bench:analytics
 *   The database is generated (bench/generate.ts, BENCH_STRATEGIES / BENCH_SWAPS) when it holds no
 *   strategies, reused otherwise (generation takes ~15-30 min on 2 shared cores: generate once).
 *   BENCH_SECONDS (8) per load run. Writes bench/results/analytics.json.
 */

import { unreadPrices } from '../chain/prices.js';
import { refreshRollup } from '../indexer/rollup.js';
import { loadConfig } from '../lib/config.js';
import { createDb } from '../store/db.js';
import { migrate } from '../store/migrate.js';
import { fixtureChains } from '../test/helpers/catalogue.js';
import { generateCatalogue } from './generate.js';
import { type LoadResult, load } from './lib.js';
import { machine, printTable, writeResult } from './measure.js';
import { pacedApart } from './paced.js';
import { startGateway } from './processes.js';

const url = process.env.BENCH_DB_URL;
if (!url) {
  console.error('set BENCH_DB_URL (a database to generate into, or one generated before)');
  process.exit(1);
}
const STRATEGIES = Number(process.env.BENCH_STRATEGIES ?? 1_000_000);
const SWAPS = Number(process.env.BENCH_SWAPS ?? 10_000_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const SERIES_P99_TARGET_MS = 50;
const TOKEN = 'bench-internal-token-0123456789abcdef';
const chains = fixtureChains(3);

const db = createDb(url, 4);
const stops: (() => Promise<void>)[] = [];
try {
  await migrate(db);
  const { rows: existing } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM strategies');
  if (existing[0]!.n === 0) {
    console.log(
      `generating ${STRATEGIES.toLocaleString('en-US')} strategies, ${SWAPS.toLocaleString('en-US')} swaps`,
    );
    const generated = await generateCatalogue(db, {
      strategies: STRATEGIES,
      swaps: SWAPS,
      chains,
      log: console.log,
    });
    console.log(`generated in ${generated.seconds} s`);
  }
  const prices = unreadPrices(chains, loadConfig({ ...process.env, INDEXER: 'off' }).priceOverridesUsd);
  const refreshed = await refreshRollup(db, chains, { prices });
  console.log(`roll-up refreshed in ${refreshed.ms} ms (${refreshed.makersPriced ?? 0} makers priced)`);
  const { rows: sizes } = await db.query(
    `SELECT (SELECT reltuples::bigint FROM pg_class WHERE relname = 'swaps') AS swaps,
            (SELECT reltuples::bigint FROM pg_class WHERE relname = 'strategies') AS strategies,
            (SELECT reltuples::bigint FROM pg_class WHERE relname = 'strategy_hourly') AS strategy_hourly,
            (SELECT reltuples::bigint FROM pg_class WHERE relname = 'maker_hourly') AS maker_hourly,
            (SELECT reltuples::bigint FROM pg_class WHERE relname = 'maker_activity') AS makers`,
  );
  console.log(`dataset: ${JSON.stringify(sizes[0])}`);

  // Makers and strategies of every size: the busiest (most hourly rows to sum) and a sample.
  const { rows: makers } = await db.query<{ chain_key: string; maker: string }>(
    `(SELECT chain_key, maker FROM maker_activity ORDER BY volume_usd DESC LIMIT 100)
     UNION ALL (SELECT chain_key, maker FROM maker_activity TABLESAMPLE SYSTEM (1) LIMIT 100)`,
  );
  const { rows: strategies } = await db.query<{ chain_key: string; strategy_hash: string }>(
    `(SELECT chain_key, strategy_hash FROM strategies ORDER BY swap_count DESC LIMIT 100)
     UNION ALL (SELECT chain_key, strategy_hash FROM strategies TABLESAMPLE SYSTEM (0.1) LIMIT 100)`,
  );
  const makerPaths = makers.map((m) => `/api/makers/${m.maker}?chain=${m.chain_key}`);
  const activityPaths = strategies.map(
    (s) => `/api/strategies/${s.strategy_hash}/activity?chain=${s.chain_key}`,
  );
  const seriesQuery = (chain: string | null) =>
    `/graphql?query=${encodeURIComponent(
      `{ volumeSeries(granularity: DAY${chain ? `, chain: "${chain}"` : ''}) { buckets { start volumeUsd swapCount makerFeesUsd protocolFeesUsd } } }`,
    )}`;
  const seriesPaths = [seriesQuery(null), ...chains.map((c) => seriesQuery(c.key))];
  // The graph's strategy filters: a maker, a token with both statuses, a shipped week.
  const listQuery = (args: string) =>
    `/graphql?query=${encodeURIComponent(
      `{ strategies(${args}, first: 20) { edges { node { hash chain pair status volumeUsd maker } } pageInfo { hasNextPage endCursor } } }`,
    )}`;
  const weekAgo = new Date(Date.now() - 7 * 86_400_000).toISOString();
  const filterPaths = [
    ...makers.slice(0, 40).map((m) => listQuery(`maker: "${m.maker}", status: null`)),
    ...['USDC', 'USDT', 'EURC'].flatMap((t) => [
      listQuery(`token: "${t}", status: null`),
      listQuery(`token: "${t}", sort: VOLUME`),
    ]),
    ...chains.map((c) => listQuery(`chain: "${c.key}", shippedFrom: "${weekAgo}"`)),
  ];

  const server = await startGateway(['/api/makers/:address', '/api/strategies/:hash/activity'], {
    DATABASE_URL: url,
    NODE_ENV: 'production',
    INTERNAL_TOKEN: TOKEN,
    TRUST_PROXY: '1',
  });
  stops.push(server.stop);
  const base = server.url;
  const auth = { authorization: `Bearer ${TOKEN}` };
  for (const [path, headers] of [
    [makerPaths[0]!, {}],
    [activityPaths[0]!, {}],
    [seriesPaths[0]!, auth],
    [filterPaths[0]!, auth],
  ] as const) {
    const res = await fetch(`${base}${path}`, { headers });
    const text = await res.text();
    if (res.status !== 200 || text.includes('"errors"'))
      throw new Error(`${path}: ${res.status} ${text.slice(0, 300)}`);
  }

  const cases = [
    { name: 'GET /api/makers/{address} (maker view)', paths: makerPaths, headers: {}, distinct: false },
    {
      name: 'GET /api/strategies/{hash}/activity (30-day daily)',
      paths: activityPaths,
      headers: {},
      distinct: false,
    },
    {
      name: 'volumeSeries(DAY) 30 days, all / per chain (/graphql)',
      paths: seriesPaths,
      headers: auth,
      distinct: true,
    },
    {
      name: 'strategies(maker | token | shippedFrom) first 20 (/graphql)',
      paths: filterPaths,
      headers: auth,
      distinct: true,
    },
  ];
  const rows: LoadResult[] = [];
  const summary: Record<string, unknown>[] = [];
  for (const c of cases) {
    await load(`warm-up ${c.name}`, base, {
      paths: c.paths,
      duration: 2,
      headers: c.headers,
      distinctClients: c.distinct,
    });
    const peak = await load(`${c.name}, peak`, base, {
      paths: c.paths,
      duration: SECONDS,
      headers: c.headers,
      distinctClients: c.distinct,
    });
    const rate = Math.max(1, Math.round(peak.requestsPerSec / 2));
    const half = await pacedApart(
      `${c.name}, half of peak (${rate} req/s, paced)`,
      base,
      c.paths,
      rate,
      SECONDS,
      {
        distinctClients: c.distinct,
        headers: c.headers,
      },
    );
    rows.push(peak, half);
    summary.push({
      name: c.name,
      peakRps: peak.requestsPerSec,
      halfRate: rate,
      halfP99: half.p99,
      non2xx: peak.non2xx + half.non2xx,
    });
  }
  printTable(rows, {});
  console.table(summary);
  // The target names the series over the whole catalogue (10M swaps): volumeSeries. The per-strategy
  // activity path is printed above (a strategy's hourly rows, and its latest swaps from the swaps table).
  const seriesP99 = Number(summary[2]!.halfP99);
  console.log(
    `30-day daily series p99 at half of peak: ${seriesP99} ms (target < ${SERIES_P99_TARGET_MS} ms): ${seriesP99 < SERIES_P99_TARGET_MS ? 'met' : 'NOT met'}`,
  );
  console.log(
    `written: ${writeResult('analytics', { machine: machine(), dataset: sizes[0], rows, summary })}`,
  );
} finally {
  for (const stop of stops.reverse()) await stop().catch(() => {});
  await db.end();
}
