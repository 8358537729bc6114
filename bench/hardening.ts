/**
 * `npm run bench:hardening`: the measure of the hardening issue. One service (main.ts, a process of its
 * own) on a devnet of its own, the machine's Postgres (a fresh database) and a Redis server of this
 * bench's own, under one evenly paced load of public reads (stats, chains, badge, strategy lists; a
 * distinct client per request, TRUST_PROXY=1, so no read bucket refuses), in three phases of one run:
 *   1. nothing wrong;
 *   2. the service's Redis hung (SIGSTOP for the whole phase, then SIGCONT);
 *   3. three /graphql bombs in flight the whole phase (210 aliases of strategies(first: 100) with
 *      recentSwaps(limit:100), each sent again as soon as it is answered).
 * Reports p50/p99 of each phase and the ratio of its p99 to the first phase's.
 *   BENCH_HARDENING_RATE (requests/s, default 300), BENCH_HARDENING_SECONDS (per phase, default 8).
 * Writes bench/results/hardening.json.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase } from '../test/helpers/postgres.js';
import { startRedisServer } from '../test/helpers/redis.js';
import type { LoadResult } from './lib.js';
import { machine, writeResult } from './measure.js';
import { pacedApart } from './paced.js';
import { freePort, type ServiceProcess, spawnService } from './processes.js';

const RATE = Number(process.env.BENCH_HARDENING_RATE ?? 300);
const SECONDS = Number(process.env.BENCH_HARDENING_SECONDS ?? 8);
const INTERNAL_TOKEN = 'bench-hardening-internal-token-0123';
const BOMBS = 3;

/** The document of the report: 210 aliases of a 100 × 100 list. */
export function graphqlBomb(aliases = 210): string {
  const one = (i: number) =>
    `a${i}: strategies(first: 100) { edges { node { hash recentSwaps(limit: 100) { txHash amountIn amountOut taker } } } }`;
  return `{ ${Array.from({ length: aliases }, (_, i) => one(i)).join(' ')} }`;
}

const PATHS = [
  '/api/stats',
  '/api/chains',
  '/api/badge?metric=volume30',
  '/api/strategies?chain=base&pair=USDC%2FUSDT',
  '/api/strategies?chain=arc&pair=USDC%2FEURC',
  '/api/strategies?limit=20',
];

async function main(): Promise<void> {
  const stops: Array<() => Promise<unknown>> = [];
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-hardening-'));
  stops.push(async () => rmSync(dataDir, { recursive: true, force: true }));
  try {
    const redis = await startRedisServer(await freePort());
    stops.push(() => redis.stop());
    const database = await createTestDatabase();
    stops.push(() => database.drop());
    const devnetPort = Number(process.env.BENCH_HARDENING_DEVNET_PORT ?? 19760);
    const service: ServiceProcess = await spawnService({
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      DEVNET_PORT: String(devnetPort),
      DATABASE_URL: database.url,
      REDIS_URL: redis.url,
      TRUST_PROXY: '1',
      INTERNAL_TOKEN,
      // info: spawnService waits for the `gateway ready` line.
      LOG_LEVEL: 'info',
    });
    stops.unshift(() => service.stop());
    const url = service.url;
    // Warm every path once (the stats cache, the prepared statements).
    for (const path of PATHS)
      await (await fetch(`${url}${path}`, { headers: { 'x-forwarded-for': '192.0.2.9' } })).text();

    const phase = (name: string) => pacedApart(name, url, PATHS, RATE, SECONDS, { distinctClients: true });
    const results: Array<LoadResult & { note: string }> = [];

    // A phase of the same load first, not reported: the indexer's first passes, JIT and pools settle.
    await phase('warm-up');
    results.push({ ...(await phase('nothing wrong')), note: '' });

    redis.hang();
    // Resumed when the phase's last request is due, so requests a hung Redis holds are answered (late)
    // and counted, instead of the phase waiting on them for ever.
    const resume = setTimeout(() => redis.resume(), SECONDS * 1000);
    try {
      results.push({ ...(await phase('Redis hung (SIGSTOP)')), note: `hung for ${SECONDS} s` });
    } finally {
      clearTimeout(resume);
      redis.resume();
    }
    await new Promise((resolve) => setTimeout(resolve, 2_000));

    let bombing = true;
    const bombStatuses: Record<number, number> = {};
    const bomb = async () => {
      while (bombing) {
        const res = await fetch(`${url}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${INTERNAL_TOKEN}` },
          body: JSON.stringify({ query: graphqlBomb() }),
        }).catch(() => null);
        const status = res?.status ?? 0;
        bombStatuses[status] = (bombStatuses[status] ?? 0) + 1;
        await res?.arrayBuffer();
      }
    };
    const bombers = Array.from({ length: BOMBS }, bomb);
    try {
      const figures = await phase(`${BOMBS} GraphQL bombs`);
      results.push({ ...figures, note: `bomb answers ${JSON.stringify(bombStatuses)}` });
    } finally {
      bombing = false;
      await Promise.all(bombers);
    }

    const baseline = results[0]!.p99;
    console.log(
      `\npaced public reads, ${RATE} req/s for ${SECONDS} s per phase, a distinct client per request\n`,
    );
    console.log('| phase | req/s | p50 ms | p99 ms | p99 ÷ nothing wrong | non-2xx | errors | note |');
    console.log('|---|---|---|---|---|---|---|---|');
    for (const r of results) {
      const ratio = baseline > 0 ? (r.p99 / baseline).toFixed(2) : 'n/a';
      console.log(
        `| ${r.name} | ${r.requestsPerSec} | ${r.p50} | ${r.p99} | ${ratio}× | ${r.non2xx} | ${r.errors} | ${r.note} |`,
      );
    }
    const file = writeResult('hardening', { machine: machine({ rate: RATE, seconds: SECONDS }), results });
    console.log(`\nwritten to ${file}`);
  } finally {
    for (const stop of stops) await stop().catch((error: unknown) => console.error('stop failed', error));
  }
}

await main();
