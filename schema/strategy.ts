import { type GraphQLResolveInfo, Kind } from 'graphql';
import {
  decodedStrategy,
  type SwapView,
  strategyByHash,
  strategySwaps,
} from '../resolvers/catalogue/detail.js';
import { listStrategies, type StrategyPage as StrategyPageView } from '../resolvers/catalogue/list.js';
import {
  DEFAULT_LIMIT,
  STRATEGY_SORTS,
  type StrategySort as StrategySortValue,
} from '../resolvers/catalogue/params.js';
import {
  type StrategySearch as StrategySearchView,
  searchStrategies,
} from '../resolvers/catalogue/search.js';
import {
  chainIdOf,
  dockedOf,
  isVerifiedRouter,
  pairOf,
  type StrategyTokenView,
  type StrategyView,
  shippedOf,
  strategyDetailOf,
  strategyTokens,
} from '../resolvers/catalogue/strategy.js';
import { summarise } from '../resolvers/catalogue/summary.js';
import type { ListProjection } from '../store/catalogue.js';
import { builder } from './builder.js';

const StrategyStatus = builder.enumType('StrategyStatus', {
  description: 'active: open (shipped, not docked); docked: closed by its maker.',
  values: { active: { value: 'active' }, docked: { value: 'docked' } } as const,
});

const StrategySort = builder.enumType('StrategySort', {
  description: 'recent: newest shipped first; volume: most settled volume first.',
  values: Object.fromEntries(STRATEGY_SORTS.map((s) => [s, { value: s }])) as Record<
    StrategySortValue,
    { value: StrategySortValue }
  >,
});

const StrategyToken = builder.objectRef<StrategyTokenView>('StrategyToken').implement({
  description: 'A token of a strategy; amounts are base-unit integer strings.',
  fields: (t) => ({
    symbol: t.string({ nullable: true, resolve: (k) => k.symbol }),
    address: t.exposeString('address'),
    decimals: t.int({ nullable: true, resolve: (k) => k.decimals }),
    initialAmount: t.string({
      nullable: true,
      description: 'Shipped amount.',
      resolve: (k) => k.initialAmount,
    }),
    currentAmount: t.string({
      nullable: true,
      description: 'Live virtual balance (following Pulled and Pushed).',
      resolve: (k) => k.currentAmount,
    }),
  }),
});

const Shipped = builder.objectRef<ReturnType<typeof shippedOf>>('StrategyShipped').implement({
  fields: (t) => ({
    at: t.field({ type: 'DateTime', description: 'Block time of the ship.', resolve: (s) => s.at }),
    block: t.exposeInt('block'),
    tx: t.exposeString('tx'),
  }),
});

const Docked = builder.objectRef<NonNullable<ReturnType<typeof dockedOf>>>('StrategyDocked').implement({
  fields: (t) => ({
    at: t.field({ type: 'DateTime', nullable: true, resolve: (s) => s.at }),
    block: t.int({ nullable: true, resolve: (s) => s.block }),
  }),
});

const Swap = builder.objectRef<SwapView>('StrategySwap').implement({
  fields: (t) => ({
    txHash: t.exposeString('txHash'),
    logIndex: t.exposeInt('logIndex'),
    block: t.exposeInt('block'),
    at: t.field({ type: 'DateTime', resolve: (s) => s.at }),
    taker: t.exposeString('taker'),
    tokenIn: t.exposeString('tokenIn'),
    tokenOut: t.exposeString('tokenOut'),
    amountIn: t.exposeString('amountIn'),
    amountOut: t.exposeString('amountOut'),
    volumeUsd: t.exposeFloat('volumeUsd'),
  }),
});

export const Strategy = builder.objectRef<StrategyView>('Strategy').implement({
  description: 'A liquidity position shipped to Aqua, as the indexer observed it.',
  fields: (t) => ({
    hash: t.exposeString('strategy_hash', { description: 'keccak256 of the shipped bytes.' }),
    chain: t.exposeString('chain_key'),
    chainId: t.int({ resolve: (s, _a, ctx) => chainIdOf(ctx, s) }),
    maker: t.exposeString('maker'),
    app: t.exposeString('app', { description: 'The router the strategy is shipped for.' }),
    verifiedRouter: t.boolean({
      description: "True when the app is the chain's verified router.",
      resolve: (s, _a, ctx) => isVerifiedRouter(ctx, s),
    }),
    pair: t.string({
      nullable: true,
      description: 'Symbols in alphabetical order ("USDC/USDT"); null for other token counts.',
      resolve: (s) => pairOf(s),
    }),
    tokens: t.field({ type: [StrategyToken], resolve: (s, _a, ctx) => strategyTokens(ctx, s) }),
    status: t.field({ type: StrategyStatus, resolve: (s) => s.status }),
    volumeUsd: t.exposeFloat('volume_usd', { description: 'Settled volume, USD.' }),
    swapCount: t.exposeInt('swap_count'),
    lastSwapAt: t.field({ type: 'DateTime', nullable: true, resolve: (s) => s.last_swap_at }),
    shipped: t.field({ type: Shipped, resolve: (s) => shippedOf(s) }),
    docked: t.field({ type: Docked, nullable: true, resolve: (s) => dockedOf(s) }),
    firstSeenAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When the service first observed it on chain.',
      resolve: async (s, _a, ctx) => (await strategyDetailOf(ctx, s)).first_seen_at ?? null,
    }),
    firstVolumeSeenAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When the service first observed settled volume.',
      resolve: async (s, _a, ctx) => (await strategyDetailOf(ctx, s)).first_volume_seen_at ?? null,
    }),
    decoded: t.field({
      type: 'JSON',
      description: 'The shipped order (maker, traits) and its program, instruction by instruction.',
      resolve: (s, _a, ctx) => decodedStrategy(ctx, s),
    }),
    strategy: t.string({
      nullable: true,
      description: 'The shipped bytes (abi-encoded order).',
      resolve: async (s, _a, ctx) =>
        s.strategy ??
        (await ctx.loaders.strategiesByHash.load(s.strategy_hash)).find((r) => r.chain_key === s.chain_key)
          ?.strategy ??
        null,
    }),
    alsoOnChains: t.stringList({
      description: 'Other chains where the same bytes were shipped (the hash does not include the chain).',
      resolve: async (s, _a, ctx) =>
        (await ctx.loaders.strategiesByHash.load(s.strategy_hash))
          .filter((r) => r.chain_key !== s.chain_key)
          .map((r) => r.chain_key),
    }),
    recentSwaps: t.field({
      type: [Swap],
      args: { limit: t.arg.int({ defaultValue: 10 }) },
      resolve: (s, { limit }, ctx) => strategySwaps(ctx, s, limit ?? 10),
    }),
  }),
});

const PageInfo = builder.objectRef<StrategyPageView['page']>('StrategyPageInfo').implement({
  fields: (t) => ({
    limit: t.exposeInt('limit'),
    nextCursor: t.string({
      nullable: true,
      description: 'Pass as `cursor` for the next page; null on the last page.',
      resolve: (p) => p.nextCursor,
    }),
    sort: t.field({ type: StrategySort, resolve: (p) => p.sort }),
  }),
});

const SUMMARIES_DESCRIPTION =
  'The same strategies as plain JSON objects with the fields of `Strategy` hash … docked (no decoded program, no swaps), in one value: what the REST list serves without a field-by-field walk.';

const StrategyPage = builder.objectRef<StrategyPageView>('StrategyPage').implement({
  fields: (t) => ({
    strategies: t.field({ type: [Strategy], resolve: (p) => p.strategies }),
    summaries: t.field({
      type: 'JSON',
      description: SUMMARIES_DESCRIPTION,
      resolve: (p, _a, ctx) => summarise(ctx, p.strategies),
    }),
    page: t.field({ type: PageInfo, resolve: (p) => p.page }),
  }),
});

const SearchQuery = builder.objectRef<StrategySearchView['query']>('StrategySearchQuery').implement({
  description: 'How the search text was read.',
  fields: (t) => ({
    q: t.exposeString('q'),
    chains: t.exposeStringList('chains'),
    symbols: t.exposeStringList('symbols'),
    unmatched: t.exposeStringList('unmatched', { description: 'Words that name no chain and no token.' }),
  }),
});

const StrategySearch = builder.objectRef<StrategySearchView>('StrategySearch').implement({
  fields: (t) => ({
    query: t.field({ type: SearchQuery, resolve: (s) => s.query }),
    strategies: t.field({ type: [Strategy], resolve: (s) => s.strategies }),
    summaries: t.field({
      type: 'JSON',
      description: SUMMARIES_DESCRIPTION,
      resolve: (s, _a, ctx) => summarise(ctx, s.strategies),
    }),
    page: t.field({ type: PageInfo, resolve: (s) => s.page }),
  }),
});

/**
 * What a page must read: the typed `strategies` walk every column; `summaries` and `page` alone (what
 * the REST list asks) need only the entries the store renders. Fragments are read as "everything".
 */
function projectionOf(info: GraphQLResolveInfo): ListProjection {
  for (const node of info.fieldNodes) {
    for (const selection of node.selectionSet?.selections ?? []) {
      if (selection.kind !== Kind.FIELD || selection.name.value === 'strategies') return 'full';
    }
  }
  return 'summaries';
}

builder.queryFields((t) => ({
  strategies: t.field({
    type: StrategyPage,
    description: 'Open strategies, newest first (or by volume), one keyset page at a time.',
    args: {
      chain: t.arg.string({ description: 'Chain key.' }),
      pair: t.arg.string({ description: '"A/B" token symbols, either order.' }),
      limit: t.arg.int({ defaultValue: DEFAULT_LIMIT, description: '1 to 100.' }),
      cursor: t.arg.string({ description: 'page.nextCursor of the previous page.' }),
      sort: t.arg({ type: StrategySort, defaultValue: 'recent' }),
    },
    resolve: (_r, args, ctx, info) => listStrategies(ctx, args, projectionOf(info)),
  }),
  searchStrategies: t.field({
    type: StrategySearch,
    description: 'Open strategies matching free text over pair and chain ("usdc base", "EURC/USDT").',
    args: {
      q: t.arg.string({ required: true }),
      limit: t.arg.int({ defaultValue: DEFAULT_LIMIT }),
      cursor: t.arg.string(),
      sort: t.arg({ type: StrategySort, defaultValue: 'recent' }),
    },
    resolve: (_r, args, ctx, info) => searchStrategies(ctx, args, projectionOf(info)),
  }),
  strategy: t.field({
    type: Strategy,
    nullable: true,
    description: 'One strategy by hash, open or docked; null when the catalogue has none.',
    args: { hash: t.arg.string({ required: true }), chain: t.arg.string() },
    resolve: (_r, { hash, chain }, ctx) => strategyByHash(ctx, hash, chain),
  }),
}));
