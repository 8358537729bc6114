/**
 * `npm run bench:backfill`: a backfill of a chain far behind its head, then a reorg of depth 50.
 *
 * The chain is bench/servers/chainStub.ts in a process of its own: a generated log set of
 * BENCH_BACKFILL_LOGS logs (default 1,000,000; BENCH_STRATEGIES strategies shipped first, then
 * BENCH_SWAPS_PER_BLOCK swaps of three logs per block), served the way a provider does (eth_getLogs
 * over 10,000 results refused with -32005, so the indexer's ranges adapt). The indexer (default
 * configuration, INDEXER_CHUNK_BLOCKS 2000) indexes it into a fresh database on the machine's Postgres
 * (BENCH_PG_URL): first up to the middle, then, as a new indexer (a restart), resumes from its
 * checkpoint to the head. Halfway, the roll-up is refreshed and its freshnessSeconds read: it must be
 * the age of the last indexed block, not of the refresh. Then the stub replaces its last 50 blocks by
 * 51 others and one sync is timed: detection, rewind of the orphaned rows, indexing of the new blocks.
 * Prints a table and the backfill's own progress lines; writes bench/results/backfill.json.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { Address } from 'viem';
import { AQUA_TRAITS, encodeStrategy, strategyHashOf } from '../chain/order.js';
import { chainParts } from '../chain/parts.js';
import { buildProgram, salt, xycSwap } from '../chain/program.js';
import { ChainRegistry } from '../chain/registry.js';
import { type Indexer, startIndexer } from '../indexer/index.js';
import { type ChainConfig, loadConfig } from '../lib/config.js';
import { createLogger } from '../lib/logger.js';
import { Metrics } from '../lib/metrics.js';
import type { Services } from '../lib/services.js';
import { freshnessSeconds } from '../resolvers/catalogue/stats.js';
import { createDb, type Db } from '../store/db.js';
import { migrate } from '../store/migrate.js';
import { readRollup } from '../store/rollups.js';
import { ownCpuMsSince, writeResult } from './measure.js';
import { freePort, spawnReady } from './processes.js';
import { SHIPS_PER_BLOCK, type StubManifest } from './servers/chainStubManifest.js';

const LOGS = Number(process.env.BENCH_BACKFILL_LOGS ?? 1_000_000);
const STRATEGIES = Number(process.env.BENCH_STRATEGIES ?? 500);
const SWAPS_PER_BLOCK = Number(process.env.BENCH_SWAPS_PER_BLOCK ?? 3);
const REORG_DEPTH = Number(process.env.BENCH_REORG_DEPTH ?? 50);
const ADMIN_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
/** The chain's head block is this old: the freshness halfway is about the indexed block's age. */
const END_AGE_SECONDS = 60;

const address = (n: number) => `0x${n.toString(16).padStart(40, '0')}` as Address;
const AQUA = address(0xa0a);
const ROUTER = address(0x5a9);
const USDC = address(0x1001);
const USDT = address(0x1002);
const makers = [address(0xbeef01), address(0xbeef02), address(0xbeef03)];

const strategies = Array.from({ length: STRATEGIES }, (_, i) => {
  const maker = makers[i % makers.length]!;
  const strategy = encodeStrategy({
    maker,
    traits: AQUA_TRAITS,
    data: buildProgram([xycSwap(), salt(BigInt(i + 1))]),
  });
  return { maker: maker.toLowerCase(), hash: strategyHashOf(strategy), strategy };
});
const shipLogs = 3 * STRATEGIES;
const swapBlocks = Math.max(1, Math.ceil((LOGS - shipLogs) / (3 * SWAPS_PER_BLOCK)));
const manifest: StubManifest = {
  chainId: 8453,
  aqua: AQUA,
  router: ROUTER,
  tokens: [USDC, USDT],
  taker: address(0xcafe),
  strategies,
  swapBlocks,
  swapsPerBlock: SWAPS_PER_BLOCK,
  endAgeSeconds: END_AGE_SECONDS,
};
const head = Math.ceil(STRATEGIES / SHIPS_PER_BLOCK) + swapBlocks;

const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-backfill-'));
const manifestFile = path.join(dataDir, 'manifest.json');
writeFileSync(manifestFile, JSON.stringify(manifest));
const port = await freePort();
const stub = await spawnReady('bench/servers/chainStub.ts', [String(port), manifestFile]);
const rpcUrl = `http://127.0.0.1:${port}`;
const stubCall = async <T>(method: string, params: unknown[] = []): Promise<T> => {
  const res = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return ((await res.json()) as { result: T }).result;
};

const chain: ChainConfig = {
  key: 'base',
  chainId: 8453,
  name: 'Stub',
  rpcUrl,
  aqua: AQUA,
  router: ROUTER,
  multicall: address(0xca11),
  feeReceiver: address(0xfee),
  testnet: false,
  tokens: [
    { symbol: 'USDC', address: USDC, decimals: 6 },
    { symbol: 'USDT', address: USDT, decimals: 6 },
  ],
  startBlock: 0,
  confirmations: 0,
};

const dbName = `bench_backfill_${randomBytes(5).toString('hex')}`;
const admin = new pg.Client({ connectionString: ADMIN_URL });
await admin.connect();
await admin.query(`CREATE DATABASE ${dbName}`);
await admin.end();
const dbUrl = new URL(ADMIN_URL);
dbUrl.pathname = `/${dbName}`;
const db: Db = createDb(dbUrl.toString(), 4);
const metrics = new Metrics();
const registry = new ChainRegistry([chain]);

function services(): Services {
  const config = loadConfig({
    LOG_LEVEL: 'info',
    DATABASE_URL: dbUrl.toString(),
    INDEXER_PROGRESS_SECONDS: process.env.INDEXER_PROGRESS_SECONDS ?? '5',
  });
  return {
    config,
    // The backfill's progress lines (info) are part of what this bench shows.
    logger: createLogger('info', 'bench-backfill'),
    db,
    redis: undefined,
    ...chainParts(registry, { rpcTimeoutMs: config.rpcTimeoutMs }, config),
    metrics,
  };
}

const count = async (sql: string) => Number((await db.query<{ n: string }>(sql)).rows[0]!.n);
const gauge = async (name: string) =>
  (await metrics.registry.getSingleMetric(name)?.get())?.values.find((v) => v.labels.chain === 'base')?.value;

let indexer: Indexer | undefined;
try {
  await migrate(db);
  console.log(
    `chain stub: ${head} blocks, ${shipLogs + swapBlocks * 3 * SWAPS_PER_BLOCK} logs (${STRATEGIES} strategies, ${SWAPS_PER_BLOCK} swaps per block)`,
  );
  const half = Math.floor(head / 2);
  const started = performance.now();
  const cpu = process.cpuUsage();
  indexer = await startIndexer(services(), { background: false });
  const [first] = await indexer.syncNow({ toBlock: half });
  await indexer.refreshNow();
  const halfway = await readRollup(db);
  const freshnessHalfway = freshnessSeconds(halfway!.dataAsOf);
  const ratioHalfway = await gauge('gateway_indexer_backfill_ratio');
  await indexer.stop();
  // A restart: a new indexer resumes from the checkpoint the first one left.
  indexer = await startIndexer(services(), { background: false });
  const [second] = await indexer.syncNow();
  const ms = performance.now() - started;
  const cpuUsedMs = ownCpuMsSince(cpu);
  await indexer.refreshNow();
  const caughtUp = await readRollup(db);
  const logs = first!.logs + second!.logs;
  const backfill = {
    run: 'backfill from block 0 (stop at half, resume)',
    blocks: second!.to + 1,
    logs,
    ms: Math.round(ms),
    'logs/s': Math.round(logs / (ms / 1000)),
    'blocks/s': Math.round((second!.to + 1) / (ms / 1000)),
    'resumed from': second!.from,
    'read wait ms': first!.readMs + second!.readMs,
    'write ms': first!.writeMs + second!.writeMs,
    'node cpu ms': Math.round(cpuUsedMs),
  };
  const stored = {
    strategies: await count('SELECT count(*) AS n FROM strategies'),
    swaps: await count('SELECT count(*) AS n FROM swaps'),
    balanceChanges: await count('SELECT count(*) AS n FROM balance_changes'),
  };
  const expectedBefore = await stubCall<{ swaps: number; logs: number }>('stub_expected');

  // The reorg: the last REORG_DEPTH blocks replaced by REORG_DEPTH + 1 others.
  await stubCall('stub_reorg', [REORG_DEPTH]);
  const reorgStarted = performance.now();
  const [after] = await indexer.syncNow();
  const reorgMs = performance.now() - reorgStarted;
  const expected = await stubCall<{ swaps: number; logs: number; head: number }>('stub_expected');
  const swapsAfter = await count('SELECT count(*) AS n FROM swaps');
  const reorg = {
    run: `reorg of depth ${REORG_DEPTH}: detect, rewind, index ${REORG_DEPTH + 1} new blocks`,
    blocks: after!.to - after!.from + 1,
    logs: after!.logs,
    ms: Math.round(reorgMs),
    rewound: after!.rewound,
  };
  console.table([backfill, reorg]);
  const checks = {
    'every swap stored': stored.swaps === expectedBefore.swaps,
    'resumed where the first indexer stopped': second!.from === half + 1,
    'freshness halfway is the age of the indexed block': (freshnessHalfway ?? 0) >= 2 * (head - half),
    'freshness when caught up': freshnessSeconds(caughtUp!.dataAsOf),
    'rewound exactly the orphaned blocks': after!.rewound === REORG_DEPTH,
    'swaps after the reorg as on the new chain': swapsAfter === expected.swaps,
  };
  console.log('stored', stored, 'checks', checks);
  console.log(
    `halfway: backfill ratio ${ratioHalfway}, freshnessSeconds ${freshnessHalfway} (the indexed block is ${2 * (head - half) + END_AGE_SECONDS} s old)`,
  );
  console.log(`load average (1 min) ${loadavg()[0]!.toFixed(1)} on ${cpus().length} cores`);
  const file = writeResult('backfill', {
    at: new Date().toISOString(),
    loadAverage1m: loadavg()[0],
    chain: { head, strategies: STRATEGIES, swapsPerBlock: SWAPS_PER_BLOCK },
    backfill,
    reorg,
    stored,
    freshnessHalfway,
    checks,
  });
  console.log(`written ${file}`);
} finally {
  await indexer?.stop().catch(() => {});
  await db.end().catch(() => {});
  const c = new pg.Client({ connectionString: ADMIN_URL });
  await c.connect();
  await c.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  await c.end();
  await stub.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
