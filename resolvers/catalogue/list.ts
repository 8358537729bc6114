/** Open strategies, filtered by chain and pair, one keyset page at a time. */
import { ApiError } from '../../lib/errors.js';
import type { GraphQLContext } from '../../schema/context.js';
import { type ListedStrategy, type ListProjection, listOpenStrategies } from '../../store/catalogue.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import { resolveChain, resolveLimit, resolvePair, STRATEGY_SORTS, type StrategySort } from './params.js';
import type { StrategyView } from './strategy.js';

export interface StrategyPage {
  strategies: StrategyView[];
  page: { limit: number; nextCursor: string | null; sort: StrategySort };
}

export interface ListArgs {
  chain?: string | null;
  pair?: string | null;
  limit?: number | null;
  cursor?: string | null;
  sort?: StrategySort | null;
}

/** One page of the filtered open strategies, after the cursor. */
export async function page(
  ctx: GraphQLContext,
  filter: { chains: string[] | null; pairs: string[] | null },
  args: { limit?: number | null; cursor?: string | null; sort?: StrategySort | null },
  projection: ListProjection,
): Promise<StrategyPage> {
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
        });
  const shown = rows.slice(0, limit);
  const last = shown.at(-1);
  const nextCursor =
    rows.length > limit && last
      ? encodeCursor(sort, { value: last.sort_value, hash: last.strategy_hash, chain: last.chain_key })
      : null;
  return { strategies: shown, page: { limit, nextCursor, sort } };
}

/** Open strategies, filtered by chain and pair, one keyset page at a time. */
export async function listStrategies(
  ctx: GraphQLContext,
  args: ListArgs,
  projection: ListProjection = 'full',
): Promise<StrategyPage> {
  const chains = args.chain ? [resolveChain(ctx, args.chain).key] : null;
  const pairs = args.pair ? resolvePair(ctx, args.pair).keys : null;
  return page(ctx, { chains, pairs }, args, projection);
}
