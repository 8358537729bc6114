/**
 * Makers: one maker's positions, TVL, volume and fees, and the makers list. Counts and
 * lifetime totals come from maker_activity (moved with every stored swap), 1/7/30-day windows from
 * maker_hourly, the maker's TVL from its live balances (catalogue_balances) at the price book's prices (chain/prices.ts);
 * the list orders by the TVL priced at the last roll-up refresh (indexer/makerTvl.ts).
 */

import { ApiError } from '../lib/errors.js';
import { amountUsd, cents } from '../lib/usd.js';
import { windowStarts } from '../lib/windows.js';
import {
  type MakerPosition,
  type MakerRow,
  type MakerSortKey,
  makerBalances,
  makerStrategyPage,
  makersPage,
  makerWindows,
  type WindowTotals,
} from '../store/makers.js';
import { isTimestampText } from './catalogue/cursor.js';
import { DEFAULT_LIMIT, MAX_LIMIT, resolveChain } from './catalogue/params.js';
import type { StrategyView } from './catalogue/strategy.js';
import { type Connection, pageConnection } from './connection.js';
import type { GraphQLContext } from './context.js';
import { ADDRESS } from './series.js';

export type { MakerRow, MakerSortKey };

export function resolveFirst(first: number | null | undefined): number {
  const value = first ?? DEFAULT_LIMIT;
  if (!Number.isInteger(value) || value < 1 || value > MAX_LIMIT)
    throw ApiError.invalid('first', `first must be an integer from 1 to ${MAX_LIMIT}.`);
  return value;
}

export const encode = (value: unknown[]) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** A cursor this service issued, or 400 naming `after`. */
export function decode(cursor: string, check: (parts: unknown[]) => boolean): unknown[] {
  const invalid = () =>
    ApiError.invalid('after', 'after is not a cursor this service issued; start again without it.');
  if (cursor.length > 400 || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw invalid();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  if (!Array.isArray(parsed) || !check(parsed) || encode(parsed) !== cursor) throw invalid();
  return parsed;
}

export const STORED_ADDRESS = /^0x[0-9a-f]{40}$/;
const STORED_HASH = /^0x[0-9a-f]{64}$/;
export const CHAIN_KEY = /^[^\p{C}]{1,64}$/u;

function resolveAddress(address: string, parameter = 'address'): string {
  if (!ADDRESS.test(address))
    throw ApiError.invalid(parameter, `${parameter} must be an address: 0x followed by 40 hex characters.`);
  return address.toLowerCase();
}

/** One maker on one chain, or null when it never shipped there. */
export async function makerOf(ctx: GraphQLContext, chain: string, address: string): Promise<MakerRow | null> {
  const key = { chain: resolveChain(ctx, chain).key, maker: resolveAddress(address) };
  return ctx.loaders.maker.load(key);
}

export async function listMakers(
  ctx: GraphQLContext,
  args: { chain?: string | null; sort: MakerSortKey; first?: number | null; after?: string | null },
): Promise<Connection<MakerRow>> {
  const limit = resolveFirst(args.first);
  const chain = args.chain ? resolveChain(ctx, args.chain).key : null;
  const code = args.sort === 'tvl' ? 't' : 'v';
  let after: MakerPosition | null = null;
  if (args.after) {
    const [issuedFor, value, chainKey, maker] = decode(
      args.after,
      (p) =>
        p.length === 4 &&
        (p[0] === 't' || p[0] === 'v') &&
        typeof p[1] === 'number' &&
        Number.isFinite(p[1]) &&
        typeof p[2] === 'string' &&
        CHAIN_KEY.test(p[2]) &&
        typeof p[3] === 'string' &&
        STORED_ADDRESS.test(p[3]),
    ) as [string, number, string, string];
    if (issuedFor !== code)
      throw ApiError.invalid('after', 'after was issued for another sort; keep the same sort.');
    after = { value, chain: chainKey, maker };
  }
  const rows = await makersPage(ctx.services.db, { sort: args.sort, chain, after, limit });
  return pageConnection(rows, limit, (row) =>
    encode([code, args.sort === 'tvl' ? row.tvl_usd : row.volume_usd, row.chain_key, row.maker]),
  );
}

export interface TokenValue {
  address: string;
  symbol: string | null;
  decimals: number | null;
  amount: string;
  usd: number;
}

export interface MakerTvl {
  usd: number;
  tokens: TokenValue[];
}

/** Live: the maker's balances now (as indexed) at the prices now. */
export async function makerTvl(ctx: GraphQLContext, row: MakerRow): Promise<MakerTvl> {
  const prices = await ctx.services.prices.usd();
  const balances = await makerBalances(ctx.services.db, row.chain_key, row.maker);
  const tokens = balances.map((b) => ({
    address: b.token,
    symbol: b.symbol,
    decimals: b.decimals,
    amount: b.amount,
    usd: cents(amountUsd(prices, b)),
  }));
  return { usd: cents(tokens.reduce((sum, t) => sum + t.usd, 0)), tokens };
}

export interface ActivityWindow extends WindowTotals {
  days: number | null;
  since: Date | null;
}

/** Volume, swaps and fees over 1, 7 and 30 days (the windows of /api/stats) and over the maker's life. */
export async function makerActivity(ctx: GraphQLContext, row: MakerRow): Promise<ActivityWindow[]> {
  const w = windowStarts(new Date());
  const starts = [w.d1, w.d7, w.d30];
  const totals = await makerWindows(ctx.services.db, row.chain_key, row.maker, starts);
  const windows = [1, 7, 30].map((days, i) => ({ days, since: starts[i]!, ...totals[i]! }));
  return [
    ...windows,
    {
      days: null,
      since: null,
      volume_usd: row.volume_usd,
      swap_count: row.swap_count,
      maker_fees_usd: row.maker_fees_usd,
      protocol_fees_usd: row.protocol_fees_usd,
    },
  ];
}

/** A page of the maker's strategies, newest shipped first. */
export async function makerStrategies(
  ctx: GraphQLContext,
  row: MakerRow,
  args: { first?: number | null; after?: string | null; status?: 'active' | 'docked' | null },
): Promise<Connection<StrategyView>> {
  const limit = resolveFirst(args.first);
  let after: { shippedAt: string; hash: string } | null = null;
  if (args.after) {
    const [shippedAt, hash] = decode(
      args.after,
      (p) =>
        p.length === 2 &&
        typeof p[0] === 'string' &&
        isTimestampText(p[0]) &&
        typeof p[1] === 'string' &&
        STORED_HASH.test(p[1]),
    ) as [string, string];
    after = { shippedAt, hash };
  }
  const rows = await makerStrategyPage(ctx.services.db, {
    chain: row.chain_key,
    maker: row.maker,
    status: args.status ?? null,
    after,
    limit,
  });
  const page = rows.slice(0, limit);
  const loaded = await Promise.all(page.map((r) => ctx.loaders.strategiesByHash.load(r.hash)));
  const edges = page.flatMap((r, i) => {
    const node = loaded[i]!.find((s) => s.chain_key === row.chain_key);
    return node ? [{ cursor: encode([r.shipped_at, r.hash]), node }] : [];
  });
  return { edges, pageInfo: { hasNextPage: rows.length > limit, endCursor: edges.at(-1)?.cursor ?? null } };
}
