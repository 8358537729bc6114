/**
 * `npm run bench:recovery`: what recovery from a replaced chain costs.
 *
 * 1. A chain replaced under the catalogue: a seeded devnet chain plus 10,000 blocks is indexed; it is
 *    then replaced behind the same RPC URL by another chain (another genesis) of the same shape. Timed:
 *    from the indexer's start to the new chain indexed to its head (the rewind to genesis included),
 *    against the same indexer start on an empty database in the same run (the control: indexing that
 *    chain from nothing).
 * 2. The rewinds on the catalogue bench's database (bench/generate.ts; BENCH_STRATEGIES, default
 *    1,000,000, and BENCH_SWAPS, default 10 × that; BENCH_DB_URL reuses a generated one): a reorg of
 *    INDEXER_REORG_WINDOW blocks below the largest chain's last block (`rewindChain`), then the whole
 *    of the smallest chain rewound to genesis (`rewindToGenesis`), each one transaction.
 * Prints one JSON object; BENCH_PARTS=chain or BENCH_PARTS=rewind runs one part.
 */
import { chainParts } from '../chain/parts.js';
import { ChainRegistry } from '../chain/registry.js';
import { startAnvil } from '../devnet/anvil.js';
import { DEVNET_CHAINS } from '../devnet/chains.js';
import { seedChain } from '../devnet/seed.js';
import { startIndexer } from '../indexer/index.js';
import { rewindChain, rewindToGenesis } from '../indexer/rewind.js';
import { type ChainConfig, loadConfig } from '../lib/config.js';
import { createLogger } from '../lib/logger.js';
import type { Services } from '../lib/services.js';
import { createDb, type Db } from '../store/db.js';
import { migrate } from '../store/migrate.js';
import { fixtureChains } from '../test/helpers/catalogue.js';
import { createTestDatabase } from '../test/helpers/postgres.js';
import { generatedDatabase } from './generatedDatabase.js';
import { freePort } from './processes.js';

const BLOCKS = 10_000;
const parts = (process.env.BENCH_PARTS ?? 'chain,rewind').split(',');
const spec = DEVNET_CHAINS.find((c) => c.key === 'base')!;
const logger = createLogger('silent');

function servicesFor(db: Db, url: string, chain: ChainConfig): Services {
  const registry = new ChainRegistry([chain]);
  const config = loadConfig({ LOG_LEVEL: 'silent', DATABASE_URL: url, INDEXER_POLL_MS: '100' });
  return {
    config,
    logger,
    db,
    redis: undefined,
    ...chainParts(registry, { rpcTimeoutMs: 5000 }, config),
  };
}

/** A seeded chain of ~BLOCKS blocks on `port`: what the bench replaces and replaces it with. */
async function chainOf(port: number) {
  const anvil = await startAnvil({ port, chainId: spec.chainId });
  const seeded = await seedChain(spec, anvil.rpcUrl);
  // In steps: one anvil_mine of 10,000 blocks outlasts a request's timeout.
  for (let mined = 0; mined < BLOCKS; mined += 1000)
    await seeded.rpc.request({ method: 'anvil_mine', params: ['0x3e8'] } as never);
  const head = Number(await seeded.rpc.request({ method: 'eth_blockNumber' } as never));
  return { anvil, config: seeded.config, head };
}

async function indexedTo(db: Db): Promise<{ block: number; hash: string }> {
  const { rows } = await db.query<{ last_block: string; last_block_hash: string }>(
    'SELECT last_block, last_block_hash FROM indexer_checkpoints WHERE chain_key = $1',
    [spec.key],
  );
  return { block: Number(rows[0]?.last_block ?? -1), hash: rows[0]?.last_block_hash ?? '' };
}

/** Starts the indexer as the service does (first pass awaited) and times it to the chain's head. */
async function timeToHead(db: Db, url: string, chain: ChainConfig, head: number): Promise<number> {
  const started = performance.now();
  const indexer = await startIndexer(servicesFor(db, url, chain), { background: true, awaitFirstSync: true });
  while ((await indexedTo(db)).block < head) await new Promise((resolve) => setTimeout(resolve, 20));
  const ms = performance.now() - started;
  await indexer.stop();
  return Math.round(ms);
}

async function replacedChain() {
  const port = await freePort();
  const databases = [await createTestDatabase(), await createTestDatabase()];
  const [kept, empty] = databases.map((d) => createDb(d.url, 4)) as [Db, Db];
  try {
    for (const db of [kept, empty]) await migrate(db);
    const first = await chainOf(port);
    const indexer = await startIndexer(servicesFor(kept, databases[0]!.url, first.config), {
      background: false,
    });
    await indexer.syncNow();
    await indexer.stop();
    const before = await indexedTo(kept);
    await first.anvil.stop();

    const second = await chainOf(port);
    try {
      const recoveredMs = await timeToHead(kept, databases[0]!.url, second.config, second.head);
      const controlMs = await timeToHead(empty, databases[1]!.url, second.config, second.head);
      const hashOf = async (db: Db) => (await indexedTo(db)).hash;
      if ((await hashOf(kept)) !== (await hashOf(empty))) throw new Error('the two indexes disagree');
      return {
        blocks: { replaced: before.block, replacement: second.head },
        recoveredMs,
        controlMs,
        ratio: Math.round((recoveredMs / controlMs) * 100) / 100,
      };
    } finally {
      await second.anvil.stop();
    }
  } finally {
    for (const db of [kept, empty]) await db.end().catch(() => {});
    for (const d of databases) await d.drop().catch(() => {});
  }
}

async function rewinds() {
  const strategies = Number(process.env.BENCH_STRATEGIES ?? 1_000_000);
  const swaps = Number(process.env.BENCH_SWAPS ?? strategies * 10);
  const chains = fixtureChains(3);
  const database = await generatedDatabase({ strategies, swaps, chains, log: (line) => console.error(line) });
  try {
    const { db } = database;
    const { rows: sizes } = await db.query<{ chain_key: string; strategies: number; last: string }>(
      `SELECT chain_key, count(*)::int AS strategies, max(shipped_block)::text AS last FROM strategies
       GROUP BY chain_key ORDER BY count(*) DESC`,
    );
    const largest = sizes[0]!;
    const smallest = sizes[sizes.length - 1]!;
    const window = loadConfig({}).indexerReorgWindow;
    const client = await db.connect();
    try {
      const fork = {
        number: Number(largest.last) - window,
        hash: '0x00',
        timestamp: Math.floor(Date.now() / 1000),
      };
      const chainOfKey = (key: string) => chains.find((c) => c.key === key)!;
      let started = performance.now();
      const reorg = await rewindChain(client, chainOfKey(largest.chain_key), fork);
      const reorgMs = Math.round(performance.now() - started);
      started = performance.now();
      const replaced = await rewindToGenesis(client, chainOfKey(smallest.chain_key));
      const replacedMs = Math.round(performance.now() - started);
      return {
        database: { strategies, swaps, generatedSeconds: database.generatedSeconds },
        reorg: { chain: largest.chain_key, depth: window, ms: reorgMs, ...reorg },
        toGenesis: { chain: smallest.chain_key, ms: replacedMs, ...replaced },
      };
    } finally {
      client.release();
    }
  } finally {
    await database.close();
  }
}

const result: Record<string, unknown> = {};
if (parts.includes('chain')) result.replacedChain = await replacedChain();
if (parts.includes('rewind')) result.rewinds = await rewinds();
console.log(JSON.stringify(result, null, 2));
process.exit(0);
