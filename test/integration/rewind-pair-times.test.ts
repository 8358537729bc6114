/**
 * A rewind leaves the pair counts (catalogue_pair_counts, migration 004) as a fresh index of the same
 * chain has them, latest ship and dock times included. Rows go in through the indexer's own write path
 * (indexer/write.ts `writeChunk`) and out through its rewind (indexer/rewind.ts `rewindChain`), on two
 * databases: one follows the chain through the reorg, the other indexes the chain that remains.
 *
 * The triggers keep the latest times as maxima: a dock takes a strategy out of the pair's open ones but
 * leaves their latest ship, so on a fresh index the open group's last ship is the latest ship of the
 * pair, docked strategies included. A rewind that touched the pair must give that back, not the latest
 * ship of the strategies open now (which is lower when the latest one shipped was docked before the fork).
 * The recount from the rows (catalogue_counts_rebuild, after a bulk load) must give the same.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProgram, salt, xycSwap } from '../../chain/program.js';
import type { ChunkBatch, StrategyRow } from '../../indexer/batch.js';
import { rewindChain } from '../../indexer/rewind.js';
import { writeChunk } from '../../indexer/write.js';
import type { Db } from '../../store/db.js';
import { migrate } from '../../store/migrate.js';
import { fixtureChains, shippedRow } from '../helpers/catalogue.js';
import { catalogueSnapshot } from '../helpers/indexerSnapshot.js';
import { createTestDatabase, testPool } from '../helpers/postgres.js';

const base = fixtureChains()[0]!;
const chain = { key: base.key, chainId: base.chainId, router: base.router.toLowerCase() };
const token = (symbol: string) => base.tokens.find((t) => t.symbol === symbol)!;
const MAKER = '0x00000000000000000000000000000000000a2001';
const T0 = Date.parse('2026-12-06T20:00:00Z');
/** Block n's time: 12 s a block, as a chain's times only go forward. */
const timeOf = (block: number) => new Date(T0 + block * 12_000).toISOString();
const hashOf = (block: number, branch: 'a' | 'b' = 'a') =>
  `0x${branch.repeat(8)}${block.toString(16).padStart(56, '0')}`;

function strategyOf(n: bigint, block: number): StrategyRow {
  return shippedRow({
    maker: MAKER,
    router: chain.router,
    data: buildProgram([xycSwap(), salt(n)]),
    tokens: [token('EURC'), token('USDC')],
    block,
    tx: `0x${n.toString(16).padStart(64, 'a')}`,
    time: timeOf(block),
  });
}

const empty = (): ChunkBatch => ({ strategies: [], balances: [], swaps: [], docks: [] });
const ships = (...strategies: StrategyRow[]): ChunkBatch => ({ ...empty(), strategies });
const dock = (s: StrategyRow, block: number): ChunkBatch => ({
  ...empty(),
  docks: [
    {
      hash: s.hash,
      maker: MAKER,
      app: chain.router,
      block,
      tx: `0x${block.toString(16).padStart(64, 'd')}`,
      time: timeOf(block),
    },
  ],
});

interface TestDb {
  db: Db;
  drop(): Promise<void>;
}
const databases: TestDb[] = [];

async function freshDb(): Promise<TestDb> {
  const database = await createTestDatabase();
  const db = testPool(database.url, 2);
  await migrate(db);
  const t = { db, drop: database.drop };
  databases.push(t);
  return t;
}

/** Writes one block's rows as the follower does, the checkpoint at that block. */
async function write(t: TestDb, block: number, batch: ChunkBatch, branch: 'a' | 'b' = 'a'): Promise<void> {
  const client = await t.db.connect();
  try {
    await writeChunk(client, chain, batch, {
      lastBlock: block,
      lastBlockHash: hashOf(block, branch),
      genesisHash: hashOf(0),
      indexedThroughAt: new Date(timeOf(block)),
      headers: [],
      reorgWindow: 256,
    });
  } finally {
    client.release();
  }
}

async function rewind(t: TestDb, fork: number): Promise<void> {
  const client = await t.db.connect();
  try {
    await rewindChain(client, chain, {
      number: fork,
      hash: hashOf(fork),
      timestamp: Date.parse(timeOf(fork)) / 1000,
    });
  } finally {
    client.release();
  }
}

const pairCounts = async (t: TestDb) =>
  (
    await t.db.query<{
      status: string;
      strategies: number;
      last_shipped_at: Date | null;
      last_docked_at: Date | null;
    }>(
      `SELECT status, strategies, last_shipped_at, last_docked_at FROM catalogue_pair_counts
       WHERE chain_key = $1 AND pair_key = 'EURC/USDC' AND strategies <> 0 ORDER BY status`,
      [chain.key],
    )
  ).rows;

afterAll(async () => {
  for (const t of databases) {
    await t.db.end().catch(() => {});
    await t.drop().catch(() => {});
  }
});

// A and B shipped, B (the latest ship of the pair) docked, all before the fork at block 12; the orphaned
// block 13 touches the pair (a dock of A, or a ship of C), so the rewind retimes the pair's counts.
const A = strategyOf(9_100n, 10);
const B = strategyOf(9_101n, 11);
const C = strategyOf(9_102n, 13);
const kept: [number, ChunkBatch][] = [
  [10, ships(A)],
  [11, ships(B)],
  [12, dock(B, 12)],
];
const orphaned: Record<string, ChunkBatch> = { 'a dock undone': dock(A, 13), 'a ship deleted': ships(C) };

describe('a rewind retimes the pair counts as a fresh index has them', () => {
  let fresh: TestDb;
  beforeAll(async () => {
    fresh = await freshDb();
    for (const [block, batch] of kept) await write(fresh, block, batch);
    for (const block of [13, 14]) await write(fresh, block, empty(), 'b');
  }, 60_000);

  it.each(Object.keys(orphaned))('%s in the orphaned blocks', async (what) => {
    const followed = await freshDb();
    for (const [block, batch] of kept) await write(followed, block, batch);
    await write(followed, 13, orphaned[what]!);
    await rewind(followed, 12);
    for (const block of [13, 14]) await write(followed, block, empty(), 'b');

    expect(await pairCounts(fresh)).toEqual([
      { status: 'active', strategies: 1, last_shipped_at: new Date(B.time), last_docked_at: null },
      {
        status: 'docked',
        strategies: 1,
        last_shipped_at: new Date(B.time),
        last_docked_at: new Date(timeOf(12)),
      },
    ]);
    expect(await pairCounts(followed)).toEqual(await pairCounts(fresh));
    expect(await catalogueSnapshot(followed)).toEqual(await catalogueSnapshot(fresh));
  });
});

describe('a recount from the rows gives the pair counts the triggers keep', () => {
  it('the open group keeps the latest ship of the pair, a docked strategy included', async () => {
    const t = await freshDb();
    for (const [block, batch] of kept) await write(t, block, batch);
    const byTriggers = await pairCounts(t);
    expect(byTriggers[0]).toMatchObject({ status: 'active', last_shipped_at: new Date(B.time) });
    await t.db.query('SELECT catalogue_counts_rebuild()');
    expect(await pairCounts(t)).toEqual(byTriggers);
  });
});
