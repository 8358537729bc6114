/**
 * Reads of the maker roll-ups (migration 014): a maker's counts, lifetime totals, live balances and
 * windowed volume, the makers list and a maker's strategies page. Nothing here scans `swaps`.
 */
import { prepared } from './catalogue.js';
import type { Db } from './db.js';

// Named statements (store/catalogue.ts `prepared`): planned once per connection, as the catalogue reads.

export interface MakerRow {
  chain_key: string;
  maker: string;
  open_strategies: number;
  docked_strategies: number;
  volume_usd: number;
  swap_count: number;
  maker_fees_usd: number;
  protocol_fees_usd: number;
  last_swap_at: Date | null;
  /** TVL as of the last roll-up refresh (what orders the list); the maker view prices balances live. */
  tvl_usd: number;
  tvl_at: Date | null;
}

const MAKER_COLUMNS = `a.chain_key, a.maker, coalesce(c.open_strategies, 0) AS open_strategies, a.docked_strategies,
  a.volume_usd, a.swap_count, a.maker_fees_usd, a.protocol_fees_usd, a.last_swap_at, a.tvl_usd, a.tvl_at`;
const MAKER_FROM = `maker_activity a LEFT JOIN catalogue_makers c ON c.chain_key = a.chain_key AND c.maker = a.maker`;

/** The makers of these (chain, lower-case address) keys that the catalogue knows; one round trip. */
export async function makersByKeys(
  db: Db,
  keys: readonly { chain: string; maker: string }[],
): Promise<MakerRow[]> {
  const { rows } = await prepared<MakerRow>(
    db,
    'makers_by_keys',
    `SELECT ${MAKER_COLUMNS} FROM ${MAKER_FROM}
     JOIN unnest($1::text[], $2::text[]) AS k(chain_key, maker) ON a.chain_key = k.chain_key AND a.maker = k.maker`,
    [keys.map((k) => k.chain), keys.map((k) => k.maker)],
  );
  return rows;
}

export type MakerSortKey = 'tvl' | 'volume';

/** Where a makers page starts: the sort value, chain and maker of the last row shown. */
export interface MakerPosition {
  value: number;
  chain: string;
  maker: string;
}

const SORT_COLUMN: Record<MakerSortKey, string> = { tvl: 'tvl_usd', volume: 'volume_usd' };

/**
 * One keyset page of makers, highest `sort` first (ties by chain, then address, descending), `limit + 1` rows so
 * the caller knows whether another page follows. Indexes maker_activity_{tvl,volume} (all chains)
 * and maker_activity_chain_* (one chain) give the order.
 */
export async function makersPage(
  db: Db,
  params: { sort: MakerSortKey; chain: string | null; after: MakerPosition | null; limit: number },
): Promise<MakerRow[]> {
  const column = SORT_COLUMN[params.sort];
  const values: unknown[] = [];
  const where: string[] = [];
  if (params.chain !== null) {
    values.push(params.chain);
    where.push(`a.chain_key = $${values.length}`);
  }
  if (params.after) {
    values.push(params.after.value, params.after.chain, params.after.maker);
    const n = values.length;
    where.push(`(a.${column}, a.chain_key, a.maker) < ($${n - 2}, $${n - 1}, $${n})`);
  }
  values.push(params.limit + 1);
  // All descending: one row comparison is the keyset, and the indexes read backwards give the order.
  const order = `a.${column} DESC, a.chain_key DESC, a.maker DESC`;
  const { rows } = await prepared<MakerRow>(
    db,
    `makers_page_${params.sort}_${params.chain === null ? 'all' : 'chain'}_${params.after ? 'after' : 'first'}`,
    `SELECT ${MAKER_COLUMNS} FROM ${MAKER_FROM}
     ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
     ORDER BY ${order} LIMIT $${values.length}`,
    values,
  );
  return rows;
}

export interface BalanceRow {
  token: string;
  symbol: string | null;
  decimals: number | null;
  /** Base units (numeric text). */
  amount: string;
}

/** A maker's live balances per token on a chain (open strategies; docked ones hold none). */
export async function makerBalances(db: Db, chain: string, maker: string): Promise<BalanceRow[]> {
  const { rows } = await prepared<BalanceRow>(
    db,
    'maker_balances',
    `SELECT token, max(symbol) AS symbol, max(decimals) AS decimals, sum(amount)::text AS amount
     FROM catalogue_balances WHERE chain_key = $1 AND maker = $2
     GROUP BY token HAVING sum(amount) <> 0 ORDER BY token`,
    [chain, maker],
  );
  return rows;
}

export interface WindowTotals {
  volume_usd: number;
  swap_count: number;
  maker_fees_usd: number;
  protocol_fees_usd: number;
}

/** A maker's volume, swaps and fees since each start (hour buckets at or after it), one statement. */
export async function makerWindows(
  db: Db,
  chain: string,
  maker: string,
  starts: readonly Date[],
): Promise<WindowTotals[]> {
  if (starts.length === 0) return [];
  const earliest = new Date(Math.min(...starts.map((s) => s.getTime())));
  const { rows } = await prepared<{ start: Date } & WindowTotals>(
    db,
    'maker_windows',
    `SELECT w.start, coalesce(sum(h.volume_usd), 0)::float8 AS volume_usd,
       coalesce(sum(h.swap_count), 0)::int AS swap_count, coalesce(sum(h.maker_fees_usd), 0)::float8 AS maker_fees_usd,
       coalesce(sum(h.protocol_fees_usd), 0)::float8 AS protocol_fees_usd
     FROM unnest($4::timestamptz[]) AS w(start)
     LEFT JOIN (
       SELECT * FROM maker_hourly WHERE maker = $2 AND chain_key = $1 AND hour >= $3
     ) AS h ON h.hour >= w.start
     GROUP BY w.start`,
    [chain, maker, earliest, starts],
  );
  const byStart = new Map(rows.map((r) => [r.start.getTime(), r]));
  return starts.map(
    (s) =>
      byStart.get(s.getTime()) ?? { volume_usd: 0, swap_count: 0, maker_fees_usd: 0, protocol_fees_usd: 0 },
  );
}

/** Where a strategies page starts: shipped_at (Postgres text, microseconds kept) and hash of the last row. */
export interface MakerStrategyPosition {
  shippedAt: string;
  hash: string;
}

/** A page of a maker's strategies on a chain, newest shipped first (index strategies_maker_shipped). */
export async function makerStrategyPage(
  db: Db,
  params: {
    chain: string;
    maker: string;
    status: 'active' | 'docked' | null;
    after: MakerStrategyPosition | null;
    limit: number;
  },
): Promise<{ hash: string; shipped_at: string }[]> {
  const values: unknown[] = [params.maker, params.chain];
  const where = ['maker = $1', 'chain_key = $2'];
  if (params.status !== null) {
    values.push(params.status);
    where.push(`status = $${values.length}`);
  }
  if (params.after) {
    values.push(params.after.shippedAt, params.after.hash);
    where.push(`(shipped_at, strategy_hash) < ($${values.length - 1}::timestamptz, $${values.length})`);
  }
  values.push(params.limit + 1);
  const { rows } = await prepared<{ hash: string; shipped_at: string }>(
    db,
    `maker_strategies_${params.status ?? 'all'}_${params.after ? 'after' : 'first'}`,
    `SELECT strategy_hash AS hash, shipped_at::text AS shipped_at FROM strategies
     WHERE ${where.join(' AND ')}
     ORDER BY shipped_at DESC, strategy_hash DESC LIMIT $${values.length}`,
    values,
  );
  return rows;
}
