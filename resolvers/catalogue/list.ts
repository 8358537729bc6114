/** Strategies (open by default), filtered, one keyset page at a time. */
import { ApiError } from '../../lib/errors.js';
import type { StrategyRow } from '../../store/catalogue.js';
import { type ListFilters, listOpenStrategies } from '../../store/strategyList.js';
import type { ListedStrategy, ListProjection } from '../../store/strategyListRows.js';
import { type Connection, pageConnection } from '../connection.js';
import type { GraphQLContext } from '../context.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import {
  resolveAddress,
  resolveChain,
  resolveInstant,
  resolveLimit,
  resolvePair,
  resolveToken,
  STRATEGY_SORTS,
  type StrategySort,
} from './params.js';
import type { StrategyView } from './strategy.js';

/** The open strategies of the public list by default; the graph's filters widen or narrow it. */
export interface ListArgs {
  chain?: string | null;
  pair?: string | null;
  limit?: number | null;
  cursor?: string | null;
  sort?: StrategySort | null;
  /** A maker address. */
  maker?: string | null;
  /** A token symbol or address: strategies of any pair holding it. */
  token?: string | null;
  /** `active` when absent; null for both. */
  status?: 'active' | 'docked' | null;
  /** Shipped at or after. */
  shippedFrom?: string | null;
  /** Shipped before. */
  shippedTo?: string | null;
  /** The curve its program runs. */
  kind?: StrategyRow['kind'] | null;
}

/** Nodes are the store's rows (ListedStrategy: with the rendered list entry the REST list takes). */
export type StrategyConnection = Connection<StrategyView>;

/** One page of the filtered strategies, after the cursor. */
export async function page(
  ctx: GraphQLContext,
  filter: { chains: string[] | null; pairs: string[] | null; filters?: ListFilters },
  args: { limit?: number | null; cursor?: string | null; sort?: StrategySort | null },
  projection: ListProjection,
): Promise<StrategyConnection> {
  const sort = args.sort ?? 'recent';
  if (!STRATEGY_SORTS.includes(sort))
    throw ApiError.invalid('sort', `sort must be one of ${STRATEGY_SORTS.join(', ')}.`);
  const limit = resolveLimit(args.limit);
  const after = args.cursor ? decodeCursor(args.cursor, sort) : null;
  const rows: ListedStrategy[] =
    filter.pairs?.length === 0 || filter.chains?.length === 0
      ? []
      : await listOpenStrategies(ctx.services.db, {
          sort,
          chains: filter.chains,
          pairs: filter.pairs,
          after,
          limit,
          projection,
          filters: filter.filters,
        });
  return pageConnection<ListedStrategy, StrategyView>(rows, limit, (row) =>
    encodeCursor(sort, { value: row.sort_value, hash: row.strategy_hash, chain: row.chain_key }),
  );
}

/** Strategies filtered by chain and pair (and the graph's filters), one keyset page at a time. */
export async function listStrategies(
  ctx: GraphQLContext,
  args: ListArgs,
  projection: ListProjection = 'full',
): Promise<StrategyConnection> {
  const chains = args.chain ? [resolveChain(ctx, args.chain).key] : null;
  let pairs = args.pair ? resolvePair(ctx, args.pair).keys : null;
  if (args.token) {
    const holding = resolveToken(ctx, args.token).pairs;
    pairs = pairs ? pairs.filter((p) => holding.includes(p)) : holding;
  }
  const filters: ListFilters = {};
  if (args.maker) filters.maker = resolveAddress(args.maker, 'maker');
  if (args.shippedFrom) filters.shippedFrom = resolveInstant(args.shippedFrom, 'shippedFrom');
  if (args.shippedTo) filters.shippedTo = resolveInstant(args.shippedTo, 'shippedTo');
  if (args.kind) filters.kind = args.kind;
  // `active` is the list's own default (the graph's argument defaults to it too): no filter to add.
  if (args.status !== undefined && args.status !== 'active')
    filters.statuses = args.status === null ? ['active', 'docked'] : [args.status];
  const widened = Object.keys(filters).length > 0;
  return page(ctx, { chains, pairs, filters: widened ? filters : undefined }, args, projection);
}
