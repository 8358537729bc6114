/**
 * `npm run bench:earnings`: the maker-economics reads and writes at scale.
 *
 * Reads, on the generated catalogue (1,000,000 strategies / 10,000,000 swaps by default; bench/
 * generatedDatabase.ts, BENCH_DB_URL reuses one): the makers leaderboard (GET /api/makers, every sort
 * and period), the maker view with its earnings (GET /api/makers/{address}) and, as the control of the
 * same run, the strategy list (GET /api/strategies); each at a fixed paced rate, with p50/p99 and the
 * gateway's CPU milliseconds per request. The leaderboard's refresh (indexer/makerRankings.ts) is timed
 * too: it runs after each roll-up refresh.
 *
 * Writes, with BENCH_INDEXER=1: the indexer's ingest rate (bench/indexer.ts) with the earnings roll-ups
 * against without them: the same script run in a worktree of BENCH_BASELINE_REF (default: the commit
 * before migration 027), alternated twice, medians compared.
 *
 * BENCH_SECONDS (8) per load, BENCH_RATE (req/s, 100), BENCH_READS=0 skips the reads. Writes
 * bench/results/earnings.json.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { unreadPrices } from '../chain/prices.js';
import { refreshMakerRankings } from '../indexer/makerRankings.js';
import { refreshRollup } from '../indexer/rollup.js';
import { refreshStrategyEarningsSort } from '../indexer/strategyEarningsSort.js';
import { loadConfig } from '../lib/config.js';
import { fixtureChains } from '../test/helpers/catalogue.js';
import { generatedDatabase } from './generatedDatabase.js';
import { cpuMs, machine, median, writeResult } from './measure.js';
import { pacedApart } from './paced.js';
import { ROOT, startGateway } from './processes.js';

const STRATEGIES = Number(process.env.BENCH_STRATEGIES ?? 1_000_000);
const SWAPS = Number(process.env.BENCH_SWAPS ?? 10_000_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const RATE = Number(process.env.BENCH_RATE ?? 100);
const chains = fixtureChains(3);

async function reads(): Promise<Record<string, unknown>> {
  const generated = await generatedDatabase({
    strategies: STRATEGIES,
    swaps: SWAPS,
    chains,
    log: console.log,
  });
  const { db, url } = generated;
  try {
    const prices = unreadPrices(chains, loadConfig({ ...process.env, INDEXER: 'off' }).priceOverridesUsd);
    const rollup = await refreshRollup(db, chains, { prices });
    console.log(`roll-up refreshed in ${rollup.ms} ms, ${rollup.makersRanked ?? 0} leaderboard rows written`);
    // The refresh that runs after every roll-up refresh, on its own: every maker, three periods.
    const tokens = chains.flatMap((c) => c.tokens.map((t) => ({ chain: c.key, ...t })));
    const client = await db.connect();
    const rankMs: number[] = [];
    try {
      for (let i = 0; i < 3; i++) {
        const t = performance.now();
        await refreshMakerRankings(client, tokens, prices, { minIntervalMs: 0 });
        rankMs.push(Math.round(performance.now() - t));
      }
    } finally {
      client.release();
    }
    console.log(`leaderboard refresh: ${rankMs.join(', ')} ms`);
    const sortMs: number[] = [];
    const sortClient = await db.connect();
    try {
      for (let i = 0; i < 2; i++) {
        const t = performance.now();
        await refreshStrategyEarningsSort(sortClient, tokens, prices, { minIntervalMs: 0 });
        sortMs.push(Math.round(performance.now() - t));
      }
    } finally {
      sortClient.release();
    }
    console.log(`strategy list earnings keys: ${sortMs.join(', ')} ms`);

    const { rows: makers } = await db.query<{ chain_key: string; maker: string }>(
      `(SELECT chain_key, maker FROM maker_activity ORDER BY volume_usd DESC LIMIT 100)
       UNION ALL (SELECT chain_key, maker FROM maker_activity TABLESAMPLE SYSTEM (1) LIMIT 100)`,
    );
    const boardPaths: string[] = [];
    for (const sort of ['apy', 'volume', 'fees', 'tvl'])
      for (const period of ['1d', '7d', '30d']) {
        boardPaths.push(`/api/makers?sort=${sort}&period=${period}`);
        for (const c of chains) boardPaths.push(`/api/makers?sort=${sort}&period=${period}&chain=${c.key}`);
      }
    const makerPaths = makers.map((m) => `/api/makers/${m.maker}?chain=${m.chain_key}`);
    const listPaths = [
      '/api/strategies',
      '/api/strategies?sort=volume',
      ...chains.map((c) => `/api/strategies?chain=${c.key}`),
    ];

    const gateway = await startGateway(['/api/makers', '/api/makers/:address', '/api/strategies'], {
      DATABASE_URL: url,
      NODE_ENV: 'production',
      TRUST_PROXY: '1',
    });
    const base = gateway.url;
    async function fetchJson(p: string): Promise<unknown> {
      const res = await fetch(`${base}${p}`);
      if (res.status !== 200) throw new Error(`${p}: ${res.status} ${(await res.text()).slice(0, 300)}`);
      return res.json();
    }
    try {
      // Second pages too: a cursor read is a keyset read.
      for (const p of [...boardPaths]) {
        const res = await fetchJson(`${p}&limit=20`);
        const next = (res as { data: { page: { nextCursor: string | null } } }).data.page.nextCursor;
        if (next) boardPaths.push(`${p}&limit=20&cursor=${encodeURIComponent(next)}`);
      }
      for (const p of [makerPaths[0]!, listPaths[0]!]) await fetchJson(p);
      const cases = [
        { name: 'GET /api/strategies (control)', paths: listPaths },
        { name: 'GET /api/makers (leaderboard)', paths: boardPaths },
        { name: 'GET /api/makers/{address} (maker view, earnings)', paths: makerPaths },
      ];
      const summary: Record<string, unknown>[] = [];
      // Twice, alternated: the control and the new paths see the same box.
      for (let round = 0; round < 2; round++) {
        for (const c of cases) {
          await pacedApart(`warm-up ${c.name}`, base, c.paths, RATE, 2, { distinctClients: true });
          const cpuBefore = cpuMs(gateway.child.pid!);
          const run = await pacedApart(`${c.name} at ${RATE} req/s`, base, c.paths, RATE, SECONDS, {
            distinctClients: true,
          });
          const cpu = cpuMs(gateway.child.pid!) - cpuBefore;
          summary.push({
            round,
            name: c.name,
            p50: run.p50,
            p99: run.p99,
            non2xx: run.non2xx,
            'cpu ms/req': Math.round((cpu / Math.max(1, run.total ?? RATE * SECONDS)) * 100) / 100,
          });
        }
      }
      console.table(summary);
      return { rankRefreshMs: rankMs, sortKeysMs: sortMs, rollupMs: rollup.ms, reads: summary };
    } finally {
      await gateway.stop();
    }
  } finally {
    await generated.close();
  }
}

/**
 * The "ingest N logs/s" figure of one bench/indexer.ts run in `tree`. Its history is made by pipelined
 * taker swaps, a few of which can revert (then it stops before indexing): such a run is made again.
 */
function ingestRate(tree: string, attempts = 3): number {
  const run = spawnSync('node', ['--import', 'tsx', 'bench/indexer.ts'], {
    cwd: tree,
    encoding: 'utf8',
    env: process.env,
    maxBuffer: 64 * 1024 * 1024,
  });
  const match = /ingest (\d+) logs\/s/.exec(run.stdout);
  if (run.status === 0 && match) return Number(match[1]);
  const reverted = /swap\(s\) reverted/.test(run.stderr);
  if (reverted && attempts > 1) return ingestRate(tree, attempts - 1);
  throw new Error(`bench/indexer.ts in ${tree}: ${run.stderr.slice(-2000)}`);
}

function indexerAb(): Record<string, unknown> {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
  const added = git('log', '--format=%H', '--diff-filter=A', '--', 'store/migrations/027_earnings.sql');
  const ref = process.env.BENCH_BASELINE_REF ?? `${added.split('\n').at(-1)}~1`;
  const tree = mkdtempSync(path.join(tmpdir(), 'bench-baseline-'));
  git('worktree', 'add', '--detach', tree, ref);
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(tree, 'node_modules'));
  // The same instrument on both sides: this tree's bench/indexer.ts measures the baseline's indexer.
  copyFileSync(path.join(ROOT, 'bench', 'indexer.ts'), path.join(tree, 'bench', 'indexer.ts'));
  try {
    const withRollups: number[] = [];
    const without: number[] = [];
    for (let i = 0; i < 2; i++) {
      without.push(ingestRate(tree));
      withRollups.push(ingestRate(ROOT));
      console.log(
        `indexer round ${i + 1}: without ${without.at(-1)} logs/s, with ${withRollups.at(-1)} logs/s`,
      );
    }
    const ratio = median(withRollups) / median(without);
    console.log(
      `indexer ingest with the earnings roll-ups: ${(ratio * 100).toFixed(0)} % of without (${ref})`,
    );
    return { baseline: git('rev-parse', ref), without, with: withRollups, ratio };
  } finally {
    git('worktree', 'remove', '--force', tree);
    rmSync(tree, { recursive: true, force: true });
  }
}

const result: Record<string, unknown> = { machine: machine(), strategies: STRATEGIES, swaps: SWAPS };
if (process.env.BENCH_READS !== '0') {
  result.reads = await reads();
  console.log(`written: ${writeResult('earnings', result)}`);
}
if (process.env.BENCH_INDEXER === '1') {
  result.indexer = indexerAb();
  console.log(`written: ${writeResult('earnings', result)}`);
}
