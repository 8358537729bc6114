/**
 * A chain replaced under the catalogue, on a real anvil: a fork deeper than the kept block hashes
 * (evm_snapshot / evm_revert past INDEXER_REORG_WINDOW), then another chain behind the same RPC URL
 * (a fresh anvil: another genesis block). Each time the indexer rewinds the chain to genesis in one
 * transaction, says so in one error line (no warning loop), counts it, tells the live stream
 * (`chain.rewound`) and the position whose ship was lost (`position.reverted`, its status `prepared`
 * again), and indexes the chain anew: the catalogue equals a fresh index of the same chain.
 * Ports 19970 (anvil).
 */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import type { Address, Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shipCalldata } from '../../chain/calldata.js';
import { encodeStrategy, strategyHashOf } from '../../chain/order.js';
import { chainParts } from '../../chain/parts.js';
import { buildProgram, salt, xycSwap } from '../../chain/program.js';
import { ChainRegistry } from '../../chain/registry.js';
import { migrateQueue } from '../../delivery/worker.js';
import { type Anvil, startAnvil } from '../../devnet/anvil.js';
import { DEVNET_CHAINS } from '../../devnet/chains.js';
import { type SeededChain, seedChain } from '../../devnet/seed.js';
import { waitForReceipts } from '../../devnet/wallet.js';
import { type Indexer, startIndexer } from '../../indexer/index.js';
import { loadConfig } from '../../lib/config.js';
import { Metrics } from '../../lib/metrics.js';
import type { Services } from '../../lib/services.js';
import type { Db } from '../../store/db.js';
import { migrate } from '../../store/migrate.js';
import { catalogueSnapshot } from '../helpers/indexerSnapshot.js';
import { eventually } from '../helpers/load.js';
import { fundOwnMaker } from '../helpers/ownMaker.js';
import { testPort } from '../helpers/ports.js';
import { createTestDatabase, testPool } from '../helpers/postgres.js';

const ANVIL_PORT = testPort(19970);
const WINDOW = 16;
const spec = DEVNET_CHAINS.find((c) => c.key === 'base')!;

let anvil: Anvil;
let seeded: SeededChain;
let maker: Address;
let follower: Indexer;
let db: Db;
let dropDb: () => Promise<void>;
const metrics = new Metrics();
const others: Array<{ db: Db; drop(): Promise<void>; indexer: Indexer }> = [];
/** The indexer's log lines, parsed. */
const lines: Array<{ level: number; msg: string }> = [];

const logger = pino(
  { level: 'debug' },
  new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line) lines.push(JSON.parse(line));
      done();
    },
  }),
);

function servicesFor(database: Db, url: string, registry: ChainRegistry): Services {
  const config = loadConfig({
    LOG_LEVEL: 'silent',
    DATABASE_URL: url,
    INDEXER_POLL_MS: '50',
    ROLLUP_REFRESH_MS: '300',
    INDEXER_REORG_WINDOW: String(WINDOW),
  });
  return {
    config,
    logger,
    db: database,
    redis: undefined,
    ...chainParts(registry, { rpcTimeoutMs: 5000 }, config),
    metrics,
  };
}

const call = <T>(method: string, params: unknown[] = []) =>
  seeded.rpc.request({ method, params } as never) as Promise<T>;
const head = async () => Number(await call<Hex>('eth_blockNumber'));
const waitFor = (what: string, check: () => Promise<boolean>) => eventually(what, check, 60_000, 50);

async function checkpoint(): Promise<{ last: number; hash: string } | null> {
  const { rows } = await db.query<{ last_block: string; last_block_hash: string }>(
    "SELECT last_block, last_block_hash FROM indexer_checkpoints WHERE chain_key = 'base'",
  );
  return rows[0] ? { last: Number(rows[0].last_block), hash: rows[0].last_block_hash } : null;
}

/** Indexed up to the chain's head, on the chain's own blocks. */
async function atHead(): Promise<boolean> {
  const at = await checkpoint();
  const now = await head();
  if (!at || at.last < now) return false;
  const block = await call<{ hash: string }>('eth_getBlockByNumber', [`0x${at.last.toString(16)}`, false]);
  return block.hash === at.hash;
}

async function replacedCount(): Promise<number> {
  const metric = await metrics.registry.getSingleMetric('gateway_indexer_chain_replaced_total')?.get();
  return metric?.values.find((v) => v.labels.chain === 'base')?.value ?? 0;
}

/** The test's ship: the same strategy (hash) whenever it is sent again. */
function testStrategy(): { hash: string; send(): Promise<Hex> } {
  const strategy = encodeStrategy({
    maker,
    traits: 1n << 254n,
    data: buildProgram([xycSwap(), salt(9_100_001n)]),
  });
  return {
    hash: strategyHashOf(strategy),
    send: () =>
      call<Hex>('eth_sendTransaction', [
        {
          from: maker,
          to: seeded.config.aqua,
          gas: '0x927c0',
          data: shipCalldata({
            app: seeded.config.router as Address,
            strategy,
            tokens: [seeded.tokens.USDC!, seeded.tokens.USDT!],
            amounts: [1_000_000n, 1_000_000n],
          }),
        },
      ]),
  };
}

/** A position of a key of its own for the test's strategy, with a webhook subscribed to its lifecycle. */
async function trackPosition(hash: string): Promise<void> {
  await db.query(
    `INSERT INTO api_keys (key_id, environment, secret_hash) VALUES ('replkey', 'test', '\\x00')
     ON CONFLICT DO NOTHING`,
  );
  await db.query(
    `INSERT INTO positions (strategy_hash, key_id, chain_key, chain_id, wallet, token_a, token_b, amount_a,
       amount_b, maker_fee_bps, protocol_fee_bps, request_fingerprint, payload)
     VALUES ($1, 'replkey', 'base', $2, $3, $4, $5, 1000000, 1000000, 0, 5, 'x', '{}')`,
    [
      hash,
      spec.chainId,
      maker.toLowerCase(),
      seeded.tokens.USDC!.toLowerCase(),
      seeded.tokens.USDT!.toLowerCase(),
    ],
  );
  await db.query(
    `INSERT INTO webhooks (webhook_id, key_id, url, events, secret)
     VALUES ('wh_repl', 'replkey', 'https://hooks.example.org/x', ARRAY['position.shipped', 'position.reverted'], 's')`,
  );
}

async function deliveries(hash: string): Promise<string[]> {
  const { rows } = await db.query<{ event_type: string; dedupe_key: string }>(
    'SELECT event_type, dedupe_key FROM webhook_deliveries WHERE strategy_hash = $1 ORDER BY occurred_at, dedupe_key',
    [hash],
  );
  return rows.map((r) => `${r.event_type} ${r.dedupe_key.replace(hash, 'H')}`);
}

/** The catalogue indexed by this test's follower equals a fresh index of the chain as it is now. */
async function equalsFreshIndex(registry: ChainRegistry): Promise<void> {
  const database = await createTestDatabase();
  const fresh = testPool(database.url, 4);
  await migrate(fresh);
  const indexer = await startIndexer(servicesFor(fresh, database.url, registry), { background: false });
  others.push({ db: fresh, drop: database.drop, indexer });
  await indexer.syncNow({ toBlock: (await checkpoint())!.last });
  expect(await catalogueSnapshot({ db })).toEqual(await catalogueSnapshot({ db: fresh }));
}

beforeAll(async () => {
  anvil = await startAnvil({ port: ANVIL_PORT, chainId: spec.chainId });
  seeded = await seedChain(spec, anvil.rpcUrl);
  maker = await fundOwnMaker(seeded.rpc, {
    aqua: seeded.config.aqua as Address,
    tokens: [seeded.tokens.USDC!, seeded.tokens.USDT!],
    amount: 10n ** 15n,
  });
  const database = await createTestDatabase();
  dropDb = database.drop;
  db = testPool(database.url, 4);
  await migrate(db);
  const registry = new ChainRegistry([seeded.config]);
  const services = servicesFor(db, database.url, registry);
  // The webhook triggers queue graphile-worker jobs: its schema, as the service installs it.
  await migrateQueue(services, db);
  follower = await startIndexer(services, { background: true, awaitFirstSync: true });
}, 120_000);

afterAll(async () => {
  await follower?.stop().catch(() => {});
  for (const o of others) {
    await o.indexer.stop().catch(() => {});
    await o.db.end().catch(() => {});
    await o.drop().catch(() => {});
  }
  await db?.end().catch(() => {});
  await dropDb?.().catch(() => {});
  await anvil?.stop();
});

describe('a chain replaced under the catalogue', () => {
  it('a fork below the kept hashes: rewound to genesis once, the lost ship reverted, indexed anew', async () => {
    const target = testStrategy();
    await trackPosition(target.hash);
    const snapshotId = await call<Hex>('evm_snapshot');
    await waitForReceipts(seeded.rpc, [await target.send()], 10_000);
    await call('anvil_mine', [`0x${(WINDOW * 3).toString(16)}`]);
    await waitFor('the ship indexed', atHead);
    expect(await deliveries(target.hash)).toEqual(['position.shipped position.shipped:H']);
    const linesBefore = lines.length;

    // Another history from before the ship, deeper than the kept hashes and longer.
    const orphanHead = await head();
    await call('evm_setAutomine', [false]);
    expect(await call<boolean>('evm_revert', [snapshotId])).toBe(true);
    await call('evm_increaseTime', [7]);
    await call('anvil_mine', [`0x${(orphanHead - (await head()) + 5).toString(16)}`]);
    await call('evm_setAutomine', [true]);
    await waitFor('the new history indexed', atHead);

    expect(await replacedCount()).toBe(1);
    const { rows: lost } = await db.query(
      "SELECT 1 FROM strategies WHERE chain_key = 'base' AND strategy_hash = $1",
      [target.hash],
    );
    expect(lost).toHaveLength(0);
    expect(await deliveries(target.hash)).toEqual([
      'position.shipped position.shipped:H',
      'position.reverted position.reverted:H:1',
    ]);
    const { rows: events } = await db.query<{ data: { reason: string; forkBlock: number | null } }>(
      "SELECT data FROM catalogue_events WHERE chain_key = 'base' AND kind = 'chain.rewound'",
    );
    expect(events.map((e) => e.data.reason)).toEqual(['replaced']);
    const said = lines.slice(linesBefore);
    expect(said.filter((l) => l.level >= 50).map((l) => l.msg)).toEqual([
      expect.stringContaining('chain replaced under the catalogue'),
    ]);
    expect(said.filter((l) => l.level === 40)).toEqual([]);

    // Shipped again on the new history: a new lifecycle, delivered again.
    await waitForReceipts(seeded.rpc, [await target.send()], 10_000);
    await waitFor('the ship indexed again', async () => (await deliveries(target.hash)).length === 3);
    expect((await deliveries(target.hash))[2]).toBe('position.shipped position.shipped:H:1');
    await waitFor('at the head', atHead);
    await equalsFreshIndex(new ChainRegistry([seeded.config]));
  }, 180_000);

  it('another chain behind the same URL (another genesis): rewound to genesis, indexed anew', async () => {
    await waitFor('at the head', atHead);
    const linesBefore = lines.length;
    await anvil.stop();
    anvil = await startAnvil({ port: ANVIL_PORT, chainId: spec.chainId });
    seeded = await seedChain(spec, anvil.rpcUrl);
    await waitFor('the new chain indexed', async () => (await replacedCount()) === 2 && (await atHead()));
    const said = lines.slice(linesBefore);
    expect(said.filter((l) => l.level >= 50).map((l) => l.msg)).toEqual([
      expect.stringContaining('another genesis block'),
    ]);
    expect(said.filter((l) => l.level === 40 && /reorg/.test(l.msg))).toEqual([]);
    await equalsFreshIndex(new ChainRegistry([seeded.config]));
  }, 180_000);
});
