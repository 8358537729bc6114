/**
 * A synthetic catalogue at scale, written with set-based SQL (generate_series), for the catalogue and
 * roll-up benches: `generateCatalogue(db, { strategies, swaps, chains })` replaces the catalogue rows
 * of the database (strategies, swaps, volume_hourly; balance_changes emptied) with `strategies`
 * strategies and `swaps` swaps that agree with each other the way the indexer keeps them: each
 * strategy's volume, swap count and first/last swap are those of its swaps, volume_hourly is the swaps
 * bucketed by (chain, pair, UTC hour), and the roll-up counts (migration 004) are rebuilt.
 *
 * Shape: chains weighted 50/30/20 (3 chains; decreasing otherwise), the pairs of each chain's tokens
 * likewise; one strategy in ten docked; strategies shipped evenly over the last 90 days; makers =
 * 15% of strategies; swaps skewed towards the first strategies (strategy s owns the swaps
 * [W·((s−1)/S)^⅓, W·(s/S)^⅓): the first one 1% of them, the last ones a few each), spread evenly
 * between the strategy's ship time and now, amounts of 5 to ~400 tokens.
 *
 * Speed on 2 cores: each strategy's swaps are a contiguous range, so its totals are closed-form sums
 * (no pass over the swaps to add them up); the swaps are written in the order of their two largest
 * indexes (chain, strategy hash, block descending; chain, tx hash), which are dropped during the load
 * and built again after it from presorted rows; one connection writes the swaps while the other writes
 * the strategies and volume_hourly; commits do not wait for the WAL flush; the counting triggers of
 * `strategies` are off during the load (the counts and the analytics roll-ups of migration 014 are
 * rebuilt once, `analytics_rebuild()`; the trigger that renders each row's list entry stays on);
 * ANALYZE at the end.
 *
 * As a script: `DATABASE_URL=… node --import tsx bench/generate.ts [strategies] [swaps]`.
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import type pg from 'pg';
import type { Address } from 'viem';
import { AQUA_TRAITS } from '../chain/order.js';
import {
  aquaProtocolFeeAmountIn,
  buildProgram,
  decodeProgram,
  PROTOCOL_FEE_1E9,
  salt,
  xycSwap,
} from '../chain/program.js';
import type { ChainConfig } from '../lib/config.js';
import { createDb, type Db } from '../store/db.js';
import { migrate } from '../store/migrate.js';
import { fixtureChains } from '../test/helpers/catalogue.js';
import { type IndexDef, indexesOf, setCountingTriggers } from './generateLoad.js';
import { bind, INSERT_HOURLY, INSERT_STRATEGIES, INSERT_SWAPS } from './generateSql.js';

export interface GenerateOptions {
  strategies: number;
  swaps: number;
  /** Chains (keys, routers, tokens) the rows belong to; default: three devnet-like chains. */
  chains?: readonly ChainConfig[];
  /** USD price per symbol (default USDC 1, USDT 1, EURC 1.08; others 1). */
  prices?: Readonly<Record<string, number>>;
  /** Progress lines (default: none). */
  log?: (line: string) => void;
}

export interface GenerateResult {
  strategies: number;
  swaps: number;
  volumeHourlyRows: number;
  /** Seconds per phase. */
  phases: Record<string, number>;
  seconds: number;
  /**
   * CPU seconds the two Postgres backends used (null when the server is not on this machine): on a
   * shared machine, how long the load takes with the cores to itself is about half of this.
   */
  backendCpuSeconds: number | null;
}

/** utime + stime of a local process, in seconds (Linux /proc; clock ticks of 100 Hz). */
function cpuSecondsOf(pid: number): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

const DAY = 86_400;
const SHIP_SPAN_SECONDS = 90 * DAY;
const SWAP_SLICE = 1_000_000;

/** 50/30/20 for three; otherwise weights n, n−1, …, 1. */
function weights(n: number): number[] {
  if (n === 3) return [5, 3, 2];
  return Array.from({ length: n }, (_, i) => n - i);
}

interface Combo {
  chainKey: string;
  app: string;
  tokenA: string;
  tokenB: string;
  symbolA: string;
  symbolB: string;
  decimalsA: number;
  decimalsB: number;
  pairKey: string;
  priceA: number;
  priceB: number;
  weight: number;
}

function combosOf(chains: readonly ChainConfig[], prices: Readonly<Record<string, number>>): Combo[] {
  const chainWeights = weights(chains.length);
  return chains.flatMap((chain, c) => {
    const tokens = chain.tokens.map((t) => ({ ...t, address: t.address.toLowerCase() }));
    const pairs: [(typeof tokens)[number], (typeof tokens)[number]][] = [];
    for (let i = 0; i < tokens.length; i++)
      for (let j = i + 1; j < tokens.length; j++) pairs.push([tokens[i]!, tokens[j]!]);
    const pairWeights = weights(pairs.length);
    const total = pairWeights.reduce((a, b) => a + b, 0);
    return pairs.map(([x, y], p) => {
      const [a, b] = x.address < y.address ? [x, y] : [y, x];
      return {
        chainKey: chain.key,
        app: chain.router.toLowerCase(),
        tokenA: a.address,
        tokenB: b.address,
        symbolA: a.symbol,
        symbolB: b.symbol,
        decimalsA: a.decimals,
        decimalsB: b.decimals,
        pairKey: [a.symbol, b.symbol].sort().join('/'),
        priceA: prices[a.symbol.toUpperCase()] ?? 1,
        priceB: prices[b.symbol.toUpperCase()] ?? 1,
        weight: (chainWeights[c]! * pairWeights[p]!) / total,
      };
    });
  });
}

/** 100 slots, each naming a combo (1-based), in proportion to the combos' weights. */
function lookupTable(combos: readonly Combo[]): number[] {
  const total = combos.reduce((a, c) => a + c.weight, 0);
  const slots: number[] = [];
  let acc = 0;
  combos.forEach((c, i) => {
    acc += c.weight;
    while (slots.length < Math.round((acc / total) * 100)) slots.push(i + 1);
  });
  while (slots.length < 100) slots.push(combos.length);
  return slots;
}

const addr = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;

export async function generateCatalogue(db: Db, options: GenerateOptions): Promise<GenerateResult> {
  const log = options.log ?? (() => {});
  const S = Math.max(1, Math.floor(options.strategies));
  const W = Math.max(0, Math.floor(options.swaps));
  const chains = options.chains && options.chains.length > 0 ? options.chains : fixtureChains(3);
  const prices = { USDC: 1, USDT: 1, EURC: 1.08, ...(options.prices ?? {}) };
  const combos = combosOf(chains, prices);
  if (combos.length === 0) throw new Error('generateCatalogue: the chains have no token pair');

  const now = Math.floor(Date.now() / 1000);
  const firstShip = now - SHIP_SPAN_SECONDS;
  const shared: Record<string, unknown> = {
    chain_key: combos.map((c) => c.chainKey),
    app: combos.map((c) => c.app),
    token_a: combos.map((c) => c.tokenA),
    token_b: combos.map((c) => c.tokenB),
    symbol_a: combos.map((c) => c.symbolA),
    symbol_b: combos.map((c) => c.symbolB),
    decimals_a: combos.map((c) => c.decimalsA),
    decimals_b: combos.map((c) => c.decimalsB),
    pair_key: combos.map((c) => c.pairKey),
    price_a: combos.map((c) => c.priceA),
    price_b: combos.map((c) => c.priceB),
    // The tokens column per combo (the same initial amounts for all: initial_a/b say 1,000,000 tokens).
    tokens: combos.map((c) =>
      JSON.stringify([
        { address: c.tokenA, symbol: c.symbolA, decimals: c.decimalsA, amount: '1000000000000' },
        { address: c.tokenB, symbol: c.symbolB, decimals: c.decimalsB, amount: '1000000000000' },
      ]),
    ),
    lut: lookupTable(combos),
    strategies: S,
    first_ship: firstShip,
    ship_step: SHIP_SPAN_SECONDS / S,
    now,
    makers: Math.max(1, Math.round(S * 0.15)),
    swaps: W,
  };
  const run = (client: pg.PoolClient, sql: string, extra: Record<string, unknown> = {}) => {
    const { text, values } = bind(sql, { ...shared, ...extra });
    return client.query(text, values);
  };
  const program = JSON.stringify(
    decodeProgram(
      buildProgram([aquaProtocolFeeAmountIn(PROTOCOL_FEE_1E9, addr(0xfee) as Address), xycSwap(), salt(1n)]),
    ),
  );

  const started = performance.now();
  const phases: Record<string, number> = {};
  const phase = async <T>(name: string, run: () => Promise<T>): Promise<T> => {
    const t = performance.now();
    const out = await run();
    phases[name] = Math.round((performance.now() - t) / 100) / 10;
    log(`  ${name}: ${phases[name]} s`);
    return out;
  };

  // Chains in the collation's order (C.UTF-8: code points), so the swaps come out sorted by chain
  // first; within a chain, strategy ranges of about SWAP_SLICE swaps (B(s) ≈ W·(s/S)^⅓).
  const chainOrder = [...new Set(combos.map((c) => c.chainKey))].sort();
  const parts = Math.max(1, Math.ceil(W / SWAP_SLICE));
  const bounds = Array.from({ length: parts + 1 }, (_, i) => Math.min(S, Math.round(S * (i / parts) ** 3)));
  const slices = chainOrder.flatMap((chain) =>
    bounds.slice(1).flatMap((hi, i) => (hi > bounds[i]! ? [{ chain, from: bounds[i]! + 1, to: hi }] : [])),
  );

  const a = await db.connect();
  const b = await db.connect();
  // Two connections keep the two cores busy; parallel index workers on top would only oversubscribe.
  const session = `SET synchronous_commit = off; SET work_mem = '512MB'; SET maintenance_work_mem = '1GB';
    SET max_parallel_maintenance_workers = 0`;
  await a.query(session);
  await b.query(session);
  const pids = await Promise.all(
    [a, b].map(async (c) => (await c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid),
  );
  let indexes: IndexDef[] = [];
  let written = 0;
  let cpu: (number | null)[] = [];
  const missing = new Set<IndexDef>();
  let triggersOff = false;
  const build = async (client: pg.PoolClient, queue: IndexDef[]) => {
    for (let index = queue.shift(); index; index = queue.shift()) {
      await client.query(index.create);
      missing.delete(index);
    }
  };
  try {
    await phase('empty the catalogue, drop its indexes', async () => {
      // The counting triggers (migration 004) would copy every inserted row into a transition table:
      // off during the load, and the counts rebuilt from the table once at the end. The list entry's
      // trigger (migration 006) stays on: it renders each row's list_json as the indexer's writes do.
      await setCountingTriggers(a, 'DISABLE');
      triggersOff = true;
      await a.query(
        'TRUNCATE strategies, swaps, volume_hourly, balance_changes, strategy_hourly, maker_hourly, maker_activity, catalogue_balances, catalogue_pair_balances, strategy_earnings_hourly, maker_earnings_hourly, maker_rankings',
      );
      await a.query('DELETE FROM rollups WHERE name = ANY($1)', [['catalogue', 'strategy_earnings_sort']]);
      indexes = await indexesOf(a, ['strategies', 'swaps']);
      for (const index of indexes) {
        await a.query(index.drop);
        missing.add(index);
      }
    });

    // Full sorts first (block_time; chain then block), the presorted ones after.
    const swapIndexes = indexes
      .filter((i) => i.table === 'swaps')
      .sort((x, y) => Number(/pkey|strategy/.test(x.name)) - Number(/pkey|strategy/.test(y.name)));
    const strategyIndexes = indexes.filter((i) => i.table === 'strategies');
    await phase(
      'load and index (swaps on one connection; strategies, volume_hourly on the other)',
      async () => {
        const swapsWritten = (async () => {
          const t = performance.now();
          for (const slice of slices) {
            const { rowCount } = await run(a, INSERT_SWAPS, {
              s_from: slice.from,
              s_to: slice.to,
              chain: slice.chain,
            });
            written += rowCount ?? 0;
            log(`    swaps ${written.toLocaleString('en-US')} (${slice.chain} ${slice.from}..${slice.to})`);
          }
          phases.swaps = Math.round((performance.now() - t) / 100) / 10;
        })();
        const other = (async () => {
          let t = performance.now();
          for (const chain of chainOrder) {
            await run(b, INSERT_STRATEGIES, {
              s_from: 1,
              s_to: S,
              chain,
              traits: AQUA_TRAITS.toString(),
              program,
            });
          }
          phases.strategies = Math.round((performance.now() - t) / 100) / 10;
          log(`    strategies: ${phases.strategies} s`);
          t = performance.now();
          await run(b, INSERT_HOURLY, { s_from: 1, s_to: S });
          phases.volume_hourly = Math.round((performance.now() - t) / 100) / 10;
          log(`    volume_hourly: ${phases.volume_hourly} s`);
          await build(b, strategyIndexes);
          await swapsWritten;
          await build(b, swapIndexes);
        })();
        await swapsWritten;
        await build(a, swapIndexes);
        await other;
      },
    );

    await phase('roll-up counts rebuilt', async () => {
      await setCountingTriggers(a, 'ENABLE');
      triggersOff = false;
      await a.query('SELECT catalogue_counts_rebuild()');
    });
    // Per strategy, per maker and hour, maker totals, balances and the fees of volume_hourly
    // (migration 014), from the rows just written, as the indexer would have kept them.
    await phase('analytics roll-ups rebuilt', async () => {
      await a.query('SELECT analytics_rebuild()');
    });
    // Fees in token units and the liquidity deltas of migration 027: each strategy's balance as of its ship.
    await phase('earnings roll-ups rebuilt', async () => {
      await a.query('SELECT earnings_recount(NULL, NULL, NULL)');
    });

    // Statistics everywhere; the visibility map (index-only scans) where the read paths want it.
    await phase('analyze', async () => {
      await Promise.all([
        a.query('ANALYZE swaps'),
        (async () => {
          await b.query('VACUUM (ANALYZE) strategies');
          await b.query('VACUUM (ANALYZE) volume_hourly');
          for (const table of [
            'strategy_hourly',
            'maker_hourly',
            'maker_activity',
            'catalogue_balances',
            'strategy_earnings_hourly',
            'maker_earnings_hourly',
          ])
            await b.query(`VACUUM (ANALYZE) ${table}`);
        })(),
      ]);
    });
    cpu = pids.map(cpuSecondsOf);
  } finally {
    // A failed load still leaves the tables with their indexes and triggers.
    for (const index of missing) await a.query(index.create).catch(() => {});
    if (triggersOff) await setCountingTriggers(a, 'ENABLE').catch(() => {});
    a.release();
    b.release();
  }

  const { rows } = await db.query<{ strategies: number; hourly: number }>(
    `SELECT (SELECT count(*) FROM strategies)::int AS strategies, (SELECT count(*) FROM volume_hourly)::int AS hourly`,
  );
  return {
    strategies: rows[0]!.strategies,
    swaps: written,
    volumeHourlyRows: rows[0]!.hourly,
    phases,
    seconds: Math.round((performance.now() - started) / 100) / 10,
    backendCpuSeconds:
      cpu.length === 2 && cpu.every((c) => c !== null) ? Math.round(cpu[0]! + cpu[1]!) : null,
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const url = process.env.DATABASE_URL;
  if (!url) {
    console.error('set DATABASE_URL');
    process.exit(1);
  }
  const db = createDb(url, 4);
  try {
    await migrate(db);
    const result = await generateCatalogue(db, {
      strategies: Number(process.argv[2] ?? 1_000_000),
      swaps: Number(process.argv[3] ?? 10_000_000),
      log: (line) => console.log(line),
    });
    console.table([{ ...result, phases: undefined }]);
    console.log(result.phases);
  } finally {
    await db.end();
  }
}
