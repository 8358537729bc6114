/**
 * The strategy list pages (keyset, by recency or volume): the statements, one index-ordered branch per
 * (status, chain, pair), batched when the public list asks one branch, merged otherwise. What a page
 * reads and how its rows are mapped: store/strategyListRows.ts.
 */
import { createHash } from 'node:crypto';
import { ReadBatcher } from './batch.js';
import { type Db, storeError } from './db.js';
import { LIST_SELECT, type ListedStrategy, type ListProjection, rowOf } from './strategyListRows.js';

export type StrategySortKey = 'recent' | 'volume' | 'fees' | 'apy';

/** Where a page starts: the sort key of the last row of the previous page (keyset pagination). */
export interface ListPosition {
  /** shipped_at as Postgres text (microseconds kept) for `recent`, the number sorted by otherwise. */
  value: string | number;
  hash: string;
  chain: string;
}

export interface ListStrategiesParams {
  sort: StrategySortKey;
  /** Chain keys to include (any of); null for every chain. */
  chains: readonly string[] | null;
  /** Exact pair keys to include (any of); null for every pair. */
  pairs: readonly string[] | null;
  after: ListPosition | null;
  /** Rows to return; one more is read to know whether a next page exists. */
  limit: number;
  /** `full` unless said. */
  projection?: ListProjection;
  /** The analytics filters of the graph (absent on the public list: open strategies of any maker). */
  filters?: ListFilters;
}

/** Filters beyond chain and pair; any of them takes the list off the batched path. */
export interface ListFilters {
  /** Statuses to include (any of); `['active']` when absent. */
  statuses?: readonly ('active' | 'docked')[];
  /** Maker address, lower case. */
  maker?: string;
  /** Shipped at or after (ISO 8601). */
  shippedFrom?: string;
  /** Shipped before (ISO 8601). */
  shippedTo?: string;
  /** The curve the program runs (the `kind` column, migration 023). */
  kind?: 'xyc' | 'concentrated' | 'pegged' | 'other';
}

/** A shipped window of at most a week: read by shipped time, then sorted (see listOpenStrategies). */
const NARROW_WINDOW_MS = 7 * 86_400_000;

function isNarrowWindow(filters: ListFilters | undefined): boolean {
  if (filters?.shippedFrom === undefined) return false;
  const to = filters.shippedTo === undefined ? Date.now() : Date.parse(filters.shippedTo);
  return to - Date.parse(filters.shippedFrom) <= NARROW_WINDOW_MS;
}

/** The two statuses as SQL literals (a closed set of constants, never client text): the plan sees the value. */
const STATUS_LITERAL = { active: "'active'", docked: "'docked'" } as const;

/** Most branches a list query is split into before it falls back to one filtered scan and a sort. */
const MAX_BRANCHES = 16;

/**
 * The order of a list: total, (sort key, strategy_hash, chain_key), newest or most volume first.
 * `sortAfterRead`: order by an expression no index gives, so Postgres reads the rows the filters select
 * and sorts them, instead of walking the sort's index (see listOpenStrategies).
 */
function listOrder(sort: StrategySortKey, sortAfterRead = false) {
  // Qualified: the output columns of the same names are display text, the sort needs the real column.
  // Each is the expression of an index of migrations 002 and 028 (a strategy without an APY: -1, last).
  const column = SORT_EXPRESSION[sort];
  const numeric = sort !== 'recent';
  return {
    column,
    cast: numeric ? 'float8' : 'timestamptz',
    sortValue: `${column}${numeric ? '' : '::text'} AS sort_value`,
    order: `${sortAfterRead ? `(${column} + 0)` : column} DESC, strategies.strategy_hash, strategies.chain_key`,
  };
}

const SORT_EXPRESSION: Record<StrategySortKey, string> = {
  recent: 'strategies.shipped_at',
  volume: 'strategies.volume_usd',
  fees: 'strategies.fees_7d_usd',
  apy: 'coalesce(strategies.apy_7d, -1)',
};

/** The keyset condition "after this row" for value, hash and chain expressions (`$n` or a column). */
function afterCondition(sort: StrategySortKey, v: string, h: string, c: string): string {
  const { column } = listOrder(sort);
  // The first conjunct bounds the index range; the second is the exact keyset condition.
  return ` AND ${column} <= ${v} AND (${column} < ${v} OR strategies.strategy_hash > ${h} OR (strategies.strategy_hash = ${h} AND strategies.chain_key > ${c}))`;
}

/** One branch of a list: at most one chain and one pair, read in index order. */
interface Branch {
  chain: string | null;
  pair: string | null;
  after: ListPosition | null;
  limit: number;
}

const branchBatchers = new WeakMap<Db, Map<string, ReadBatcher<Branch, ListedStrategy[]>>>();

/**
 * The batcher of one branch shape: every request of the shape that arrives while the previous batch
 * runs goes into the next statement, its parameter sets LATERAL-joined to the index-ordered branch (a
 * nested loop of index scans: each set still reads only its page).
 */
function branchBatcher(
  db: Db,
  sort: StrategySortKey,
  projection: ListProjection,
  shape: Omit<Branch, 'limit'>,
) {
  const name = `catalogue_list_${projection}_${sort}_${shape.chain === null ? 0 : 1}${shape.pair === null ? 0 : 1}_${shape.after ? 'after' : 'first'}`;
  let byShape = branchBatchers.get(db);
  if (!byShape) {
    byShape = new Map();
    branchBatchers.set(db, byShape);
  }
  let batcher = byShape.get(name);
  if (batcher) return batcher;
  const { cast, sortValue, order } = listOrder(sort);
  // [column of the parameter table, its SQL type, the value of a branch]
  const inputs: Array<readonly [string, string, (b: Branch) => unknown]> = [
    ['f_limit', 'int4', (b) => b.limit + 1],
  ];
  if (shape.chain !== null) inputs.push(['f_chain', 'text', (b) => b.chain]);
  if (shape.pair !== null) inputs.push(['f_pair', 'text', (b) => b.pair]);
  if (shape.after) {
    inputs.push(['f_value', cast, (b) => b.after!.value]);
    inputs.push(['f_hash', 'text', (b) => b.after!.hash]);
    inputs.push(['f_after_chain', 'text', (b) => b.after!.chain]);
  }
  const where = [
    "status = 'active'",
    shape.chain === null ? null : 'chain_key = f.f_chain',
    shape.pair === null ? null : 'pair_key = f.f_pair',
  ]
    .filter(Boolean)
    .join(' AND ');
  const after = shape.after ? afterCondition(sort, 'f.f_value', 'f.f_hash', 'f.f_after_chain') : '';
  // The sets come as one JSON array of rows: a function without a row estimate of its input, so the
  // plan Postgres would make for the actual values costs what the generic plan does and, after the
  // plan cache's five trials, each batch runs the cached plan instead of being planned again (with
  // `unnest` of array parameters a batch of one looks cheaper planned afresh: +0.25 ms each).
  const text = `SELECT f.f_set, page.* FROM jsonb_to_recordset($1::jsonb)
      AS f(f_set int4, ${inputs.map(([column, type]) => `${column} ${type}`).join(', ')})
    CROSS JOIN LATERAL (SELECT ${LIST_SELECT[projection]}, ${sortValue} FROM strategies WHERE ${where}${after}
      ORDER BY ${order} LIMIT f.f_limit) AS page`;
  batcher = new ReadBatcher<Branch, ListedStrategy[]>(
    async (branches) => {
      const sets = branches.map((branch, i) => {
        const set: Record<string, unknown> = { f_set: i };
        for (const [column, , value] of inputs) set[column] = value(branch);
        return set;
      });
      const values = [JSON.stringify(sets)];
      let rows: unknown[][];
      try {
        // Arrays, mapped to one fixed shape: pg's per-row objects cost more than the query on a busy page.
        ({ rows } = await db.query<unknown[]>({ name, text, values, rowMode: 'array' }));
      } catch (error) {
        throw storeError(error);
      }
      const pages: ListedStrategy[][] = branches.map(() => []);
      for (const row of rows) pages[row[0] as number]!.push(rowOf(projection, row, 1));
      return pages;
    },
    (b) => JSON.stringify([b.chain, b.pair, b.after?.value, b.after?.hash, b.after?.chain, b.limit]),
  );
  byShape.set(name, batcher);
  return batcher;
}

/**
 * Open strategies, newest first (or by volume), `limit` + 1 rows after `after`. The order is total:
 * (sort key, strategy_hash, chain_key). Each (chain, pair) combination is one index-ordered branch.
 * A single branch (the common case: a chain and a pair, or neither) goes through a batcher (store/batch.ts).
 * Several are merged (UNION ALL … ORDER BY … LIMIT is a Merge Append of index scans), so a filter on
 * "A/B" that must match either spelling of the pair key still reads only a page of rows.
 */
export async function listOpenStrategies(db: Db, params: ListStrategiesParams): Promise<ListedStrategy[]> {
  const chains = params.chains ?? [null];
  const pairs = params.pairs ?? [null];
  const filters = params.filters;
  const statuses = filters?.statuses ?? ['active'];
  if (chains.length === 1 && pairs.length === 1 && !filters) {
    const branch: Branch = { chain: chains[0]!, pair: pairs[0]!, after: params.after, limit: params.limit };
    return branchBatcher(db, params.sort, params.projection ?? 'full', branch).load(branch);
  }

  const values: unknown[] = [];
  const param = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  // By volume (or earnings) within a narrow shipped window, the rows of the window are few but the volume index meets
  // them late (volume and age are correlated): Postgres reads the window by shipped_at and sorts it
  // (1M strategies, a 2-day window: 970 → 28 ms).
  const { cast, sortValue, order } = listOrder(
    params.sort,
    params.sort !== 'recent' && isNarrowWindow(params.filters),
  );
  const projection = params.projection ?? 'full';
  const select = LIST_SELECT[projection];
  // Over the merged branches only the output columns exist: sort_value carries the key.
  const mergedOrder = `${params.sort === 'recent' ? 'sort_value::timestamptz' : 'sort_value'} DESC, strategy_hash, chain_key`;
  const limit = param(params.limit + 1);

  let after = '';
  if (params.after) {
    const v = `${param(params.after.value)}::${cast}`;
    after = afterCondition(params.sort, v, param(params.after.hash), param(params.after.chain));
  }

  // The analytics filters hold in every branch.
  const extra = [
    filters?.maker === undefined ? null : `maker = ${param(filters.maker)}`,
    filters?.shippedFrom === undefined ? null : `shipped_at >= ${param(filters.shippedFrom)}::timestamptz`,
    filters?.shippedTo === undefined ? null : `shipped_at < ${param(filters.shippedTo)}::timestamptz`,
    filters?.kind === undefined ? null : `kind = ${param(filters.kind)}`,
  ].filter(Boolean);

  // Each (status, chain, pair) is one index-ordered branch (the indexes lead with them).
  const branchCount = statuses.length * chains.length * pairs.length;
  let text: string;
  if (branchCount <= MAX_BRANCHES) {
    const branches: string[] = [];
    for (const status of statuses) {
      for (const chain of chains) {
        for (const pair of pairs) {
          const where = [
            `status = ${STATUS_LITERAL[status]}`,
            chain === null ? null : `chain_key = ${param(chain)}`,
            pair === null ? null : `pair_key = ${param(pair)}`,
            ...extra,
          ]
            .filter(Boolean)
            .join(' AND ');
          branches.push(
            `SELECT ${select}, ${sortValue} FROM strategies WHERE ${where}${after} ORDER BY ${order} LIMIT ${limit}`,
          );
        }
      }
    }
    text = `SELECT * FROM (${branches.map((b) => `(${b})`).join(' UNION ALL ')}) AS page ORDER BY ${mergedOrder} LIMIT ${limit}`;
  } else {
    const where = [
      `status IN (${statuses.map((status) => STATUS_LITERAL[status]).join(', ')})`,
      params.chains ? `chain_key = ANY(${param(params.chains)}::text[])` : null,
      params.pairs ? `pair_key = ANY(${param(params.pairs)}::text[])` : null,
      ...extra,
    ]
      .filter(Boolean)
      .join(' AND ');
    text = `SELECT ${select}, ${sortValue} FROM strategies WHERE ${where}${after} ORDER BY ${order} LIMIT ${limit}`;
  }
  // One named statement per text (its shape: which filters, how many branches, the sort), as series do.
  const name = `catalogue_list_${createHash('sha1').update(text).digest('hex').slice(0, 16)}`;
  try {
    const { rows } = await db.query<unknown[]>({ name, text, values, rowMode: 'array' });
    return rows.map((row) => rowOf(projection, row, 0));
  } catch (error) {
    throw storeError(error);
  }
}
