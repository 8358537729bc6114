/**
 * Reorgs on a real anvil. While the devnet bot trades and the indexer follows the
 * chain in the background, a reorg is made with evm_snapshot / evm_revert: the orphaned blocks hold a
 * ship, a swap and a dock; the new blocks (a longer chain, other times) another ship and swap and no
 * dock. Depths 1, 5 and 50. The indexer must rewind exactly the orphaned blocks (the rows indexed
 * before the fork keep their observation times: nothing is indexed anew), and afterwards the catalogue
 * and its roll-up equal a fresh index of the same chain into a second database.
 * The strategies the test ships, swaps and docks belong to a maker of its own (anvil's tenth account):
 * the bot docks its own makers' strategies at random, which would race the test's dock and ships.
 * Ports 19960 (anvil).
 */
import type { Address, Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockCalldata, shipCalldata, swapCalldata } from '../../chain/calldata.js';
import { decodeStrategy, encodeStrategy, strategyHashOf } from '../../chain/order.js';
import { type ChainParts, chainParts } from '../../chain/parts.js';
import { buildProgram, salt, xycSwap } from '../../chain/program.js';
import { ChainRegistry } from '../../chain/registry.js';
import { exactInTakerTraits } from '../../chain/takerTraits.js';
import { type Anvil, startAnvil } from '../../devnet/anvil.js';
import { type ActivityBot, startActivityBot } from '../../devnet/bot.js';
import { DEVNET_CHAINS } from '../../devnet/chains.js';
import { type SeededChain, seedChain } from '../../devnet/seed.js';
import { waitForReceipts } from '../../devnet/wallet.js';
import { type Indexer, startIndexer } from '../../indexer/index.js';
import { loadConfig } from '../../lib/config.js';
import { createLogger } from '../../lib/logger.js';
import { Metrics } from '../../lib/metrics.js';
import type { Services } from '../../lib/services.js';
import type { Db } from '../../store/db.js';
import { migrate } from '../../store/migrate.js';
import { readRollup } from '../../store/rollups.js';
import { catalogueSnapshot } from '../helpers/indexerSnapshot.js';
import { eventually } from '../helpers/load.js';
import { fundOwnMaker } from '../helpers/ownMaker.js';
import { testPort } from '../helpers/ports.js';
import { createTestDatabase, testPool } from '../helpers/postgres.js';

const ANVIL_PORT = testPort(19960);
const spec = DEVNET_CHAINS.find((c) => c.key === 'base')!;

interface TestDb {
  url: string;
  db: Db;
  drop(): Promise<void>;
}

let anvil: Anvil;
let seeded: SeededChain;
/** The test's own maker: not one of the devnet's makers, so the bot never docks its strategies. */
let maker: Address;
let parts: ChainParts;
let bot: ActivityBot | undefined;
let follower: Indexer;
let followed: TestDb;
const metrics = new Metrics();
const databases: TestDb[] = [];
const indexers: Indexer[] = [];

async function freshDb(): Promise<TestDb> {
  const database = await createTestDatabase();
  const db = testPool(database.url, 4);
  await migrate(db);
  const t = { url: database.url, db, drop: database.drop };
  databases.push(t);
  return t;
}

function servicesFor(t: TestDb): Services {
  const config = loadConfig({
    LOG_LEVEL: 'silent',
    DATABASE_URL: t.url,
    INDEXER_POLL_MS: '50',
    ROLLUP_REFRESH_MS: '300',
  });
  return { config, logger: createLogger('silent'), db: t.db, redis: undefined, ...parts, metrics };
}

const call = <T>(method: string, params: unknown[] = []) =>
  seeded.rpc.request({ method, params } as never) as Promise<T>;
const head = async () => Number(await call<Hex>('eth_blockNumber'));

async function indexedTo(t: TestDb): Promise<number> {
  const { rows } = await t.db.query<{ last_block: string }>(
    "SELECT last_block FROM indexer_checkpoints WHERE chain_key = 'base'",
  );
  return rows[0] ? Number(rows[0].last_block) : -1;
}

/** Polls every 50 ms (the indexer's own poll) for up to 30 s. */
const waitFor = (what: string, check: () => Promise<boolean>) => eventually(what, check, 30_000, 50);

async function rewoundBlocks(): Promise<number> {
  const metric = await metrics.registry.getSingleMetric('gateway_indexer_rewound_blocks_total')?.get();
  return metric?.values.find((v) => v.labels.chain === 'base')?.value ?? 0;
}

interface Active {
  strategy_hash: Hex;
  maker: Address;
  strategy: Hex;
  token_a: Address;
  token_b: Address;
  tokens: { address: Address }[];
}

async function activeStrategies(): Promise<Active[]> {
  const { rows } = await followed.db.query<Active>(
    `SELECT strategy_hash, maker, strategy, token_a, token_b, tokens FROM strategies
     WHERE chain_key = 'base' AND status = 'active' AND app = $1 AND pair_key = 'USDC/USDT' AND maker = $2
     ORDER BY shipped_block, strategy_hash`,
    [seeded.config.router.toLowerCase(), maker.toLowerCase()],
  );
  return rows;
}

let shipSalt = 7_000_000n;

/** Sends without waiting (anvil signs for its unlocked accounts). */
const send = (from: Address, to: string, data: Hex) =>
  call<Hex>('eth_sendTransaction', [{ from, to, data, gas: '0x927c0' }]);

/** A ship of a new USDC/USDT strategy by the test's maker, and the hash it will have. */
function ship(): { hash: string; send(): Promise<Hex> } {
  const strategy = encodeStrategy({
    maker,
    traits: 1n << 254n,
    data: buildProgram([xycSwap(), salt(shipSalt++)]),
  });
  const usdc = seeded.tokens.USDC!;
  const usdt = seeded.tokens.USDT!;
  return {
    hash: strategyHashOf(strategy),
    send: () =>
      send(
        maker,
        seeded.config.aqua,
        shipCalldata({
          app: seeded.config.router as Address,
          strategy,
          tokens: [usdc, usdt],
          amounts: [1_000_000_000n, 1_000_000_000n],
        }),
      ),
  };
}

function swapOn(s: Active, amount: bigint): Promise<Hex> {
  return send(
    seeded.roles.taker,
    seeded.config.router,
    swapCalldata({
      order: decodeStrategy(s.strategy)!,
      tokenIn: s.token_a,
      tokenOut: s.token_b,
      amount,
      takerTraits: exactInTakerTraits(),
    }),
  );
}

function dock(s: Active): Promise<Hex> {
  return send(
    s.maker,
    seeded.config.aqua,
    dockCalldata({
      app: seeded.config.router as Address,
      strategyHash: s.strategy_hash as Hex,
      tokens: s.tokens.map((t) => t.address),
    }),
  );
}

/** The transactions given, mined together in one block (the bot's pending ones join it). */
async function oneBlock(sends: (() => Promise<Hex>)[]): Promise<void> {
  await call('evm_setAutomine', [false]);
  try {
    for (const s of sends) await s();
    await call('evm_mine');
  } finally {
    await call('evm_setAutomine', [true]);
  }
}

beforeAll(async () => {
  anvil = await startAnvil({ port: ANVIL_PORT, chainId: spec.chainId });
  seeded = await seedChain(spec, anvil.rpcUrl);
  // The test's strategies belong to a maker of its own (the bot would dock its own makers' ones).
  maker = await fundOwnMaker(seeded.rpc, {
    aqua: seeded.config.aqua as Address,
    tokens: [seeded.tokens.USDC!, seeded.tokens.USDT!],
    amount: 10n ** 15n,
  });
  for (let i = 0; i < 2; i++) await waitForReceipts(seeded.rpc, [await ship().send()], 10_000);
  parts = chainParts(new ChainRegistry([seeded.config]), { rpcTimeoutMs: 5000 }, loadConfig({}));
  followed = await freshDb();
  follower = await startIndexer(servicesFor(followed), { background: true, awaitFirstSync: true });
  indexers.push(follower);
  bot = startActivityBot([seeded], 120, createLogger('silent'));
}, 120_000);

afterAll(async () => {
  await bot?.stop();
  for (const indexer of indexers) await indexer.stop().catch(() => {});
  for (const t of databases) {
    await t.db.end().catch(() => {});
    await t.drop().catch(() => {});
  }
  await anvil?.stop();
});

describe('reorgs under load', () => {
  it.each([1, 5, 50])(
    'rewinds a reorg of depth %i to the fork point and follows the new blocks',
    async (depth) => {
      await waitFor('the indexer at the head', async () => (await indexedTo(followed)) >= (await head()));
      const [target, docked] = await activeStrategies();
      expect(target && docked).toBeTruthy();
      const seenBefore = await followed.db.query<{ strategy_hash: string; first_seen_at: Date }>(
        "SELECT strategy_hash, first_seen_at FROM strategies WHERE chain_key = 'base' ORDER BY strategy_hash",
      );

      const snapshotId = await call<Hex>('evm_snapshot');
      const orphan = ship();
      await oneBlock([orphan.send, () => swapOn(target!, 3_000_000n), () => dock(docked!)]);
      if (depth > 1) await call('anvil_mine', [`0x${(depth - 1).toString(16)}`]);
      const orphanHead = await head();
      await waitFor('the orphaned blocks indexed', async () => (await indexedTo(followed)) >= orphanHead);
      const orphaned = await followed.db.query<{ status: string }>(
        "SELECT status FROM strategies WHERE chain_key = 'base' AND strategy_hash = ANY($1) ORDER BY status",
        [[orphan.hash, docked!.strategy_hash]],
      );
      expect(orphaned.rows.map((r) => r.status)).toEqual(['active', 'docked']);
      const rewoundBefore = await rewoundBlocks();

      // The other history: back to the fork, later times, another ship and swap, no dock; longer.
      // Nothing is mined between the revert and the read of the fork point (the bot's transactions wait
      // in the pool for the next block).
      await call('evm_setAutomine', [false]);
      // anvil answers false, and changes nothing, when it no longer holds the snapshot: say so here
      // rather than as a fork point above the orphaned head below.
      expect(await call<boolean>('evm_revert', [snapshotId]), `evm_revert ${snapshotId}`).toBe(true);
      // The fork point: where the snapshot was taken (a swap of the bot may have come just before).
      const fork = await head();
      expect(orphanHead - fork).toBeGreaterThanOrEqual(depth);
      await call('evm_increaseTime', [13]);
      const kept = ship();
      await oneBlock([kept.send, () => swapOn(docked!, 2_000_000n)]);
      await call('anvil_mine', [`0x${(orphanHead - fork + 1).toString(16)}`]);
      const newHead = await head();
      // Indexed past the new head, on the new blocks (the bot keeps adding some).
      await waitFor('the new blocks indexed', async () => {
        const { rows } = await followed.db.query<{ last_block: string; last_block_hash: string }>(
          "SELECT last_block, last_block_hash FROM indexer_checkpoints WHERE chain_key = 'base'",
        );
        const at = Number(rows[0]?.last_block ?? -1);
        if (at < newHead) return false;
        const block = await parts.clients.get('base').getBlock({ blockNumber: BigInt(at) });
        return rows[0]?.last_block_hash === block.hash;
      });

      // Rewound from the fork point (the orphaned blocks the indexer had stored), not re-indexed.
      const rewound = (await rewoundBlocks()) - rewoundBefore;
      expect(rewound).toBeGreaterThanOrEqual(orphanHead - fork);
      const after = await followed.db.query<{ strategy_hash: string; first_seen_at: Date; status: string }>(
        "SELECT strategy_hash, first_seen_at, status FROM strategies WHERE chain_key = 'base' ORDER BY strategy_hash",
      );
      const firstSeen = new Map(after.rows.map((r) => [r.strategy_hash, r.first_seen_at.getTime()]));
      for (const r of seenBefore.rows)
        if (firstSeen.has(r.strategy_hash))
          expect(firstSeen.get(r.strategy_hash)).toBe(r.first_seen_at.getTime());
      const status = new Map(after.rows.map((r) => [r.strategy_hash, r.status]));
      expect(status.has(orphan.hash)).toBe(false);
      expect(status.get(kept.hash)).toBe('active');
      expect(status.get(docked!.strategy_hash)).toBe('active');
    },
    120_000,
  );

  it('leaves a catalogue and roll-up equal to a fresh index of the same chain', async () => {
    await bot?.stop();
    bot = undefined;
    const final = await head();
    await waitFor('the indexer at the final head', async () => (await indexedTo(followed)) >= final);
    const fresh = await freshDb();
    const indexer = await startIndexer(servicesFor(fresh), { background: false });
    indexers.push(indexer);
    await indexer.syncNow();
    await follower.stop();
    expect(await catalogueSnapshot(followed)).toEqual(await catalogueSnapshot(fresh));

    // The makers' wallets, read by both from the final chain (the follower's loop read them earlier).
    await follower.readWalletsNow();
    await indexer.readWalletsNow();
    await follower.refreshNow();
    await indexer.refreshNow();
    const a = (await readRollup(followed.db))!.payload;
    const b = (await readRollup(fresh.db))!.payload;
    expect(a.totals).toEqual(b.totals);
    expect(a.chains).toEqual(b.chains);
    expect(a.pairs).toEqual(b.pairs);
  }, 120_000);
});
