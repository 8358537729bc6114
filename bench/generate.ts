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
 * `strategies` are off during the load (the counts are rebuilt once; the trigger that renders each
 * row's list entry stays on); ANALYZE at the end.
 *
 * As a script: `DATABASE_URL=… node --import tsx bench/generate.ts [strategies] [swaps]`.
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import type pg from 'pg';
import { AQUA_TRAITS } from '../chain/order.js';
import type { ChainConfig } from '../lib/config.js';
import { createDb, type Db } from '../store/db.js';
import { migrate } from '../store/migrate.js';
import { fixtureChains } from '../test/helpers/catalogue.js';

/** The statement-level triggers of migration 004 that keep the roll-up counts of `strategies`. */
const COUNTING_TRIGGERS = ['insert', 'update', 'delete', 'truncate'].map((op) => `strategies_counts_${op}`);

async function setCountingTriggers(client: pg.PoolClient, action: 'ENABLE' | 'DISABLE') {
  for (const trigger of COUNTING_TRIGGERS)
    await client.query(`ALTER TABLE strategies ${action} TRIGGER ${trigger}`);
}

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

/*
 * Strategy s (1..S): combo LUT[1 + (s·37) % 100], shipped at first_ship + s·ship_step, maker
 * s % makers, docked when s % 10 = 3, hash = 8 hex digits of s then md5 filler (so hash order is s
 * order). It owns swaps [B(s−1), B(s)) with B(i) = ⌊W·(i/S)^⅓⌋; its k-th swap (k = 0..n−1) is at
 * shipped + (now − shipped)·(k+1)/(n+1), of a0(s) + d(s)·k base units, token a in when k is even.
 */
/** A column of the combo `c` (1-based) of a row: an array subscript, no join. */
const COMBO_COLUMNS = {
  chain_key: 'text',
  app: 'text',
  token_a: 'text',
  token_b: 'text',
  symbol_a: 'text',
  symbol_b: 'text',
  decimals_a: 'int',
  decimals_b: 'int',
  pair_key: 'text',
  price_a: 'float8',
  price_b: 'float8',
  tokens: 'jsonb',
} as const;
type ComboColumn = keyof typeof COMBO_COLUMNS;
const k = (column: ComboColumn, c = 'st.c') => `({{${column}}}::${COMBO_COLUMNS[column]}[])[${c}]`;

/**
 * Binds `{{name}}` placeholders as $1, $2… in order of first use, so a statement is given exactly the
 * parameters it uses (Postgres must infer a type for each one).
 */
function bind(sql: string, values: Record<string, unknown>): { text: string; values: unknown[] } {
  const order: string[] = [];
  const text = sql.replace(/\{\{(\w+)\}\}/g, (_m, name: string) => {
    if (!(name in values)) throw new Error(`no value for {{${name}}}`);
    let n = order.indexOf(name);
    if (n < 0) n = order.push(name) - 1;
    return `$${n + 1}`;
  });
  return { text, values: order.map((name) => values[name]) };
}

const B = (i: string) =>
  `floor({{swaps}}::float8 * power((${i})::float8 / {{strategies}}::float8, 1::float8 / 3))::bigint`;

// The per-strategy subqueries end in OFFSET 0, a fence: evaluated once per strategy. Flattened into
// the swap rows, their expressions (B() and md5 among them) would be computed again for every swap
// and every reference, which made the load several times slower.

/** `st`: the strategies of [s_from, s_to] (of chain {{chain}} only, with `oneChain`) and their facts. */
const strategies = (oneChain: boolean) => `(
  SELECT s, cc.c, x.lo, x.hi, x.hi - x.lo AS n, x.shipped, {{now}}::float8 - x.shipped AS span, x.a0, x.d,
    ${k('price_a', 'cc.c')} / power(10, ${k('decimals_a', 'cc.c')}) AS scale_a,
    ${k('price_b', 'cc.c')} / power(10, ${k('decimals_b', 'cc.c')}) AS scale_b
  FROM generate_series({{s_from}}::int, {{s_to}}::int) AS s
    CROSS JOIN LATERAL (SELECT ({{lut}}::int[])[1 + (s * 37) % 100] AS c OFFSET 0) AS cc
    CROSS JOIN LATERAL (
      SELECT ${B('s - 1')} AS lo, ${B('s')} AS hi, {{first_ship}}::float8 + s * {{ship_step}}::float8 AS shipped,
        5000000 + (s::bigint * 7919) % 400000000 AS a0, (s % 7) * 100 AS d
      OFFSET 0
    ) AS x
  ${oneChain ? `WHERE ${k('chain_key', 'cc.c')} = {{chain}}` : ''}
  OFFSET 0
) AS st`;

const strategyHash = (s: string) =>
  `'0x' || lpad(to_hex(${s}), 8, '0') || md5(${s}::text) || substr(md5((-${s})::text), 1, 24)`;
const makerOf = (s: string) => `'0x' || lpad(to_hex(${s} % {{makers}}::int), 40, '0')`;

/** The swaps of `st`, k descending within a strategy (block descending). */
const swapsOf = `
  CROSS JOIN LATERAL generate_series(st.n - 1, 0, -1) AS kk
  CROSS JOIN LATERAL (
    SELECT st.shipped + st.span * (kk + 1) / (st.n + 1) AS ts, st.a0 + st.d * kk AS amount,
      CASE WHEN kk % 2 = 0 THEN st.scale_a ELSE st.scale_b END AS scale
  ) AS z`;

// Each swap row is built from its strategy's precomputed values (h): per row, only what depends on k.
const INSERT_SWAPS = `
INSERT INTO swaps (chain_key, tx_hash, log_index, block_number, block_time, strategy_hash, maker, taker, token_in,
  token_out, amount_in, amount_out, volume_usd)
SELECT h.chain_key, h.tx_prefix || lpad(to_hex(st.n - 1 - kk), 8, '0') || h.filler, 3,
  floor((z.ts - {{first_ship}}::float8) / 2)::bigint, to_timestamp(z.ts), h.hash, h.maker,
  CASE WHEN kk % 2 = 0 THEN h.taker_even ELSE h.taker_odd END,
  CASE WHEN kk % 2 = 0 THEN h.token_a ELSE h.token_b END,
  CASE WHEN kk % 2 = 0 THEN h.token_b ELSE h.token_a END,
  z.amount, z.amount * 997 / 1000, z.amount * z.scale
FROM ${strategies(true)}
  CROSS JOIN LATERAL (
    SELECT ${k('chain_key')} AS chain_key, ${k('token_a')} AS token_a, ${k('token_b')} AS token_b,
      ${strategyHash('st.s')} AS hash, ${makerOf('st.s')} AS maker,
      '0x' || lpad(to_hex(st.s), 8, '0') AS tx_prefix, substr(md5((st.s * 3)::text), 1, 48) AS filler,
      '0x' || lpad(to_hex(1000000 + st.s % 5000), 40, '0') AS taker_even,
      '0x' || lpad(to_hex(1000000 + (st.s + 1) % 5000), 40, '0') AS taker_odd
    OFFSET 0
  ) AS h
  ${swapsOf}`;

// A strategy's totals in closed form: token a in on the ⌈n/2⌉ even k, b on the ⌊n/2⌋ odd k, so
// Σ amounts = ne·a0 + d·ne(ne−1) for a and no·a0 + d·no² for b.
const INSERT_STRATEGIES = `
INSERT INTO strategies (chain_key, strategy_hash, maker, app, strategy, traits, program, token_a, token_b, symbol_a,
  symbol_b, decimals_a, decimals_b, pair_key, tokens, initial_a, initial_b, balance_a, balance_b, status,
  shipped_block, shipped_tx, shipped_at, docked_block, docked_at, volume_usd, swap_count, last_swap_at,
  first_seen_at, first_volume_seen_at)
SELECT ${k('chain_key')}, ${strategyHash('st.s')}, ${makerOf('st.s')}, ${k('app')},
  '0x' || repeat('ab', 208) || lpad(to_hex(st.s), 32, '0'), {{traits}}::numeric, {{program}}::jsonb,
  ${k('token_a')}, ${k('token_b')}, ${k('symbol_a')}, ${k('symbol_b')}, ${k('decimals_a')}, ${k('decimals_b')},
  ${k('pair_key')},
  ${k('tokens')}, 1000000000000, 1000000000000,
  CASE WHEN st.s % 10 = 3 THEN 0 ELSE 1000000000000 + (st.s % 997) * 1000000 END,
  CASE WHEN st.s % 10 = 3 THEN 0 ELSE 1000000000000 - (st.s % 997) * 1000000 END,
  CASE WHEN st.s % 10 = 3 THEN 'docked' ELSE 'active' END,
  floor((st.shipped - {{first_ship}}::float8) / 2)::bigint, '0x' || lpad(to_hex(st.s), 64, 'f'),
  to_timestamp(st.shipped),
  CASE WHEN st.s % 10 = 3 THEN floor(({{now}}::float8 - {{first_ship}}::float8) / 2)::bigint END,
  CASE WHEN st.s % 10 = 3 THEN to_timestamp({{now}}::float8 - (st.s % 1000)) END,
  (v.ne * st.a0 + st.d * v.ne * (v.ne - 1)) * st.scale_a + (v.no * st.a0 + st.d * v.no * v.no) * st.scale_b,
  st.n, CASE WHEN st.n > 0 THEN to_timestamp(st.shipped + st.span * st.n / (st.n + 1)) END,
  to_timestamp(st.shipped), CASE WHEN st.n > 0 THEN to_timestamp(st.shipped + st.span / (st.n + 1)) END
FROM ${strategies(true)}
  CROSS JOIN LATERAL (SELECT (st.n + 1) / 2 AS ne, st.n / 2 AS no) AS v`;

// Grouped by combo (one per chain and pair) and whole epoch hours, named after grouping.
const INSERT_HOURLY = `
INSERT INTO volume_hourly (chain_key, pair_key, hour, volume_usd, swap_count, last_swap_at)
SELECT ${k('chain_key', 'g.c')}, ${k('pair_key', 'g.c')}, to_timestamp(g.hour * 3600), g.volume, g.swaps,
  to_timestamp(g.last)
FROM (
  SELECT st.c, floor(z.ts / 3600)::bigint AS hour, sum(z.amount * z.scale) AS volume, count(*)::int AS swaps,
    max(z.ts) AS last
  FROM ${strategies(false)}
  ${swapsOf}
  GROUP BY st.c, floor(z.ts / 3600)::bigint
) AS g`;

interface IndexDef {
  table: string;
  name: string;
  /** Recreates it: a CREATE INDEX statement or an ADD CONSTRAINT … PRIMARY KEY. */
  create: string;
  drop: string;
}

/**
 * The indexes of the tables as the migrations made them, read from the catalog. DDL takes no bind
 * parameters: the names and definitions come from Postgres itself, quoted by it.
 */
async function indexesOf(client: pg.PoolClient, tables: string[]): Promise<IndexDef[]> {
  const { rows } = await client.query<{
    table: string;
    name: string;
    def: string;
    constraint: string | null;
  }>(
    `SELECT c.relname AS table, i.relname AS name, pg_get_indexdef(x.indexrelid) AS def,
       (SELECT pg_get_constraintdef(k.oid) FROM pg_constraint k WHERE k.conindid = x.indexrelid AND k.contype = 'p')
         AS constraint
     FROM pg_index x JOIN pg_class c ON c.oid = x.indrelid JOIN pg_class i ON i.oid = x.indexrelid
     WHERE c.relname = ANY($1) AND c.relnamespace = 'public'::regnamespace
     ORDER BY c.relname, i.relname`,
    [tables],
  );
  return rows.map((r) => {
    const table = `public.${JSON.stringify(r.table)}`;
    const name = JSON.stringify(r.name);
    return r.constraint
      ? {
          table: r.table,
          name: r.name,
          create: `ALTER TABLE ${table} ADD CONSTRAINT ${name} ${r.constraint}`,
          drop: `ALTER TABLE ${table} DROP CONSTRAINT ${name}`,
        }
      : { table: r.table, name: r.name, create: r.def, drop: `DROP INDEX public.${name}` };
  });
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
  const program = JSON.stringify([
    {
      opcode: 28,
      name: 'AquaProtocolFeeAmountIn',
      args: `0x0007a120${'00'.repeat(20)}`,
      decoded: { fee1e9: 500000, receiver: addr(0xfee) },
    },
    { opcode: 17, name: 'XYCSwap', args: '0x', decoded: {} },
    { opcode: 20, name: 'Salt', args: '0x0000000000000001', decoded: { salt: '1' } },
  ]);

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
      await a.query('TRUNCATE strategies, swaps, volume_hourly, balance_changes');
      await a.query('DELETE FROM rollups WHERE name = $1', ['catalogue']);
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

    // Statistics everywhere; the visibility map (index-only scans) where the read paths want it.
    await phase('analyze', async () => {
      await Promise.all([
        a.query('ANALYZE swaps'),
        (async () => {
          await b.query('VACUUM (ANALYZE) strategies');
          await b.query('VACUUM (ANALYZE) volume_hourly');
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
