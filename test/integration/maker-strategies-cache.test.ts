/**
 * A maker's open strategies are read once per process and kept (store/walletStrategies.ts), yet a ship,
 * a dock or a reorg's rewind written by any process is seen on the next read after its notice: the
 * trigger of migration 017 over the real Postgres, the service's own LISTEN connection. Statements on
 * the strategies table are counted on the service's pool (each still runs; the count only watches).
 */
import pg from 'pg';
import type { Address } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activeStrategiesOfMaker, MAKER_STRATEGY_CHANGES_CHANNEL } from '../../store/walletStrategies.js';
import { fixtureChains, insertStrategy } from '../helpers/catalogue.js';
import { eventually } from '../helpers/load.js';
import { startTestService, type TestService } from '../helpers/service.js';

const chains = fixtureChains();
const chain = chains[0]!;
let svc: TestService;
/** A connection of its own: what the indexer of another process writing the catalogue would be. */
let elsewhere: pg.Client;
/** A listener of the channel, to see which notices a statement sends. */
let listener: pg.Client;
const notices: string[] = [];
/** The keys the service's cache was told to forget (its own notices, watched as they pass). */
const forgotten: string[] = [];
let makerReads = 0;
let salt = 1n;
/** Makers of the change cases, one each. */
let whats = 0;

const usdc = () => chain.tokens.find((t) => t.symbol === 'USDC')!.address.toLowerCase();
const eurc = () => chain.tokens.find((t) => t.symbol === 'EURC')!.address.toLowerCase();

/** Polls every 10 ms (notices take milliseconds); the time it took. */
const until = (what: string, check: () => boolean | Promise<boolean>, ms = 30_000) =>
  eventually(what, async () => check(), ms, 10);

function maker(n: number): Address {
  return `0x${n.toString(16).padStart(40, '0')}` as Address;
}

function ship(who: Address, symbols: [string, string] = ['USDC', 'USDT']) {
  return insertStrategy(svc.services.db, {
    chain,
    symbols,
    maker: who,
    shippedAt: new Date(),
    salt: salt++,
  });
}

/** The maker's open strategies holding USDC, through the service's cache. */
async function holdingUsdc(who: Address): Promise<string[]> {
  const rows = await activeStrategiesOfMaker(
    svc.services.db,
    chain.key,
    who,
    [usdc()],
    svc.services.makerStrategies,
  );
  return rows.map((r) => r.strategy_hash);
}

const live = () => svc.services.makerStrategies?.live === true;

beforeAll(async () => {
  svc = await startTestService({ chains, env: { INDEXER: 'off' } });
  const db = svc.services.db;
  const query = db.query.bind(db) as (...args: unknown[]) => unknown;
  // pg's query is overloaded; the watcher passes every call through unchanged.
  (db as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string } | null)?.text;
    if (text?.includes('FROM strategies') && text.includes('maker = $2')) makerReads++;
    return query(...args);
  };
  elsewhere = new pg.Client({ connectionString: svc.services.config.databaseUrl });
  await elsewhere.connect();
  listener = new pg.Client({ connectionString: svc.services.config.databaseUrl });
  await listener.connect();
  listener.on('notification', (n) => {
    if (n.channel === MAKER_STRATEGY_CHANGES_CHANNEL) notices.push(n.payload ?? '');
  });
  await listener.query(`LISTEN ${MAKER_STRATEGY_CHANGES_CHANNEL}`);
  await until('the change feed listens', live);
  const cache = svc.services.makerStrategies!;
  const forget = cache.forget.bind(cache);
  cache.forget = (key: string) => {
    forgotten.push(key);
    forget(key);
  };
}, 60_000);

/**
 * Until the service's own cache and the test's listener both got the maker's latest `count` notices
 * (two connections: either may hear a notice first).
 */
const seen = async (who: Address, count = 1) => {
  const key = `${chain.key}:${who}`;
  await until('the service gets the notices', () => forgotten.filter((k) => k === key).length >= count);
  await until('the test gets the notices', () => notices.filter((k) => k === key).length >= count);
};

/** A maker with one USDC strategy, its notice heard by both listeners and its strategies read once (kept). */
async function keptMaker(who: Address): Promise<string> {
  const { hash } = await ship(who);
  await seen(who);
  expect(await holdingUsdc(who)).toEqual([hash]);
  return hash;
}

/** `change` sends one notice without a maker (''), and the service's cache forgets every maker. */
async function forgetsEveryMaker(change: () => Promise<unknown>): Promise<void> {
  notices.length = 0;
  await change();
  await until('the notice arrives', () => notices.length > 0);
  expect(notices).toEqual(['']);
  await until('every maker is forgotten', () => svc.services.makerStrategies!.size === 0);
}

afterAll(async () => {
  await listener?.end();
  await elsewhere?.end();
  await svc?.stop();
});

describe("the makers' strategies cache", () => {
  it("reads a maker's strategies once for many coverage reads, and only those holding the tokens asked", async () => {
    const who = maker(0xa1);
    const usdcPair = await ship(who);
    await ship(who, ['EURC', 'USDT']);
    await seen(who, 2);
    makerReads = 0;
    for (let i = 0; i < 10; i++) expect(await holdingUsdc(who)).toEqual([usdcPair.hash]);
    const both = await activeStrategiesOfMaker(
      svc.services.db,
      chain.key,
      who,
      [usdc(), eurc()],
      svc.services.makerStrategies,
    );
    expect(both).toHaveLength(2);
    expect(makerReads).toBe(1);
  });

  it.each([
    // [what, the change another process writes to the maker's first strategy, strategies left]
    ['shipped', async (_hash: string, who: Address) => void (await ship(who)), 2],
    [
      'docked',
      async (hash: string) =>
        void (await elsewhere.query(
          `UPDATE strategies SET status = 'docked', docked_at = now(), docked_block = 9 WHERE strategy_hash = $1`,
          [hash],
        )),
      0,
    ],
    [
      'rewound',
      async (hash: string) =>
        void (await elsewhere.query('DELETE FROM strategies WHERE strategy_hash = $1', [hash])),
      0,
    ],
    [
      'given to another maker',
      async (hash: string) =>
        void (await elsewhere.query('UPDATE strategies SET maker = $2 WHERE strategy_hash = $1', [
          hash,
          maker(0xbff),
        ])),
      0,
    ],
    [
      're-keyed (its hash column rewritten)',
      async (hash: string) =>
        void (await elsewhere.query(
          "UPDATE strategies SET strategy_hash = '0x' || repeat('ee', 32) WHERE strategy_hash = $1",
          [hash],
        )),
      1,
    ],
  ] as const)(
    'sees a strategy %s by another process on its first read after the notice arrives',
    async (what, change, left) => {
      whats += 1;
      const who = maker(0xb00 + whats);
      const key = `${chain.key}:${who}`;
      const first = await keptMaker(who);
      notices.length = 0;
      makerReads = 0;
      expect(await holdingUsdc(who)).toEqual([first]);
      expect(makerReads).toBe(0);
      forgotten.length = 0;
      await change(first, who);
      // The notice reaching the service's cache is the event (the age limit never calls forget); the
      // deadline only ends a hung test.
      await until(`the ${what} strategy's notice arrives`, () => forgotten.includes(key), 20_000);
      // The very next read sees the change.
      expect(await holdingUsdc(who)).toHaveLength(left);
      await until('the test sees the notice too', () => notices.length > 0);
      expect(notices[0]).toBe(`${chain.key}:${who}`);
    },
  );

  it("announces nothing for the indexer's balance and volume updates, and keeps the maker", async () => {
    const who = maker(0xc1);
    const hash = await keptMaker(who);
    notices.length = 0;
    await elsewhere.query(
      'UPDATE strategies SET balance_a = 5, volume_usd = volume_usd + 1, swap_count = swap_count + 1 WHERE strategy_hash = $1',
      [hash],
    );
    // A later notice of the same connection arrives after any the update would have sent.
    await elsewhere.query("SELECT pg_notify($1, 'marker')", [MAKER_STRATEGY_CHANGES_CHANNEL]);
    await until('the marker arrives', () => notices.includes('marker'));
    expect(notices).toEqual(['marker']);
    makerReads = 0;
    expect(await holdingUsdc(who)).toEqual([hash]);
    expect(makerReads).toBe(0);
  });

  it('announces every maker at once ("") for a statement that touches more than 64 of them', async () => {
    const who = maker(0xd1);
    await keptMaker(who);
    makerReads = 0;
    await holdingUsdc(who);
    expect(makerReads).toBe(0);
    const many = Array.from({ length: 65 }, (_, i) => maker(0xe000 + i));
    notices.length = 0;
    // A statement each: a notice each.
    for (const m of many) await ship(m);
    await until('a notice per ship', () => notices.length >= 65);
    notices.length = 0;
    // One statement over all 65: a single notice without a maker, and the process forgets every maker.
    await forgetsEveryMaker(() =>
      elsewhere.query(
        `UPDATE strategies SET status = 'docked', docked_at = now(), docked_block = 9 WHERE maker = ANY($1::text[])`,
        [many],
      ),
    );
    makerReads = 0;
    await holdingUsdc(who);
    expect(makerReads).toBe(1);
  });

  it('keeps only "many" for a maker with more than 64 open strategies: those holding the tokens are read each time', async () => {
    const who = maker(0xf1);
    const usdcPairs: string[] = [];
    for (let i = 0; i < 60; i++) usdcPairs.push((await ship(who)).hash);
    for (let i = 0; i < 5; i++) await ship(who, ['EURC', 'USDT']);
    await seen(who, 65);
    makerReads = 0;
    for (let i = 0; i < 3; i++) expect(await holdingUsdc(who)).toEqual([...usdcPairs].sort());
    // One bounded read of all of them (65 found: too many to keep), then one filtered read per call.
    expect(makerReads).toBe(4);
  });

  it('forgets every maker when the table is truncated', async () => {
    const who = maker(0xf2);
    await keptMaker(who);
    expect(svc.services.makerStrategies!.size).toBeGreaterThan(0);
    await forgetsEveryMaker(() => elsewhere.query('TRUNCATE strategies CASCADE'));
    expect(await holdingUsdc(who)).toEqual([]);
  });
});
