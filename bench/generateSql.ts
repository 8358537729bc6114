/**
 * The set-based statements of bench/generate.ts: strategies, their swaps and the hourly volume, each a
 * function of the strategy number s alone (generate_series), with `{{name}}` placeholders bound by
 * `bind`. The shape they write is described in bench/generate.ts.
 */

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
export function bind(sql: string, values: Record<string, unknown>): { text: string; values: unknown[] } {
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
export const INSERT_SWAPS = `
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
export const INSERT_STRATEGIES = `
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
export const INSERT_HOURLY = `
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
