import {
  type ShippedOrder,
  type SwapView,
  shippedOrder,
  strategyByHash,
  strategySwaps,
} from '../resolvers/catalogue/detail.js';
import type { StrategySort as StrategySortValue } from '../resolvers/catalogue/params.js';
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
import { builder } from './builder.js';
import { enumOf, ProgramKind } from './enums.js';
import { as } from './valueFormats.js';

export const StrategyStatus = enumOf(
  'StrategyStatus',
  'ACTIVE: open (shipped, not docked); DOCKED: closed by its maker.',
  {
    active: 'Open: shipped and not docked.',
    docked: 'Closed by its maker (its balances returned).',
  },
);

const ShippedOrderRef = builder.objectRef<ShippedOrder>('ShippedOrder').implement({
  description: "The order Aqua registered: its maker, traits and program (SwapVM's `Order`).",
  fields: (t) => ({
    maker: t.exposeString('maker', { description: 'The maker address (lower case).' }),
    traits: t.exposeString('traits', { description: 'The traits word, uint256 in decimal.' }),
    useAqua: t.exposeBoolean('useAqua', {
      description: 'True when the traits take balances from Aqua (bit 254).',
    }),
    data: t.exposeString('data', { description: 'The program bytes, 0x hex (decoded in `program`).' }),
  }),
});

export const StrategySort = enumOf(
  'StrategySort',
  'RECENT: newest shipped first; VOLUME: most settled volume first; FEES and APY: most earned over the last 7 days first.',
  {
    recent: 'Newest shipped first.',
    volume: 'Most settled volume first.',
    fees: "Most earned by the maker's own fee over the last 7 days first (USD at today's prices), as of the last earnings refresh (at most 15 minutes old).",
    apy: 'Highest 7-day APY first (see EarningsWindow.apy), as of the last earnings refresh (at most 15 minutes old); strategies without fees in those 7 days after every other.',
  } satisfies Record<StrategySortValue, string>,
);

const StrategyToken = builder.objectRef<StrategyTokenView>('StrategyToken').implement({
  description: 'A token of a strategy; amounts are base-unit integer strings.',
  fields: (t) => ({
    symbol: t.string({
      description: 'Token symbol; null when the token is unknown to the registry and did not answer.',
      nullable: true,
      resolve: (k) => k.symbol,
    }),
    address: t.exposeString('address', {
      description: 'Token contract address (lower case).',
      extensions: as('address'),
    }),
    decimals: t.int({
      description: 'Token decimals; null when unknown.',
      extensions: as('count'),
      nullable: true,
      resolve: (k) => k.decimals,
    }),
    initialAmount: t.string({
      nullable: true,
      description: 'Shipped amount.',
      extensions: as('baseUnits'),
      resolve: (k) => k.initialAmount,
    }),
    currentAmount: t.string({
      nullable: true,
      description: 'Live virtual balance (following Pulled and Pushed).',
      extensions: as('baseUnits'),
      resolve: (k) => k.currentAmount,
    }),
  }),
});

const Shipped = builder.objectRef<ReturnType<typeof shippedOf>>('StrategyShipped').implement({
  description: 'The transaction that shipped the strategy.',
  fields: (t) => ({
    at: t.field({ type: 'DateTime', description: 'Block time of the ship.', resolve: (s) => s.at }),
    block: t.exposeInt('block', { description: 'Block number of the ship.', extensions: as('count') }),
    tx: t.exposeString('tx', { description: 'Transaction hash of the ship.', extensions: as('hash32') }),
  }),
});

const Docked = builder.objectRef<NonNullable<ReturnType<typeof dockedOf>>>('StrategyDocked').implement({
  description: 'The dock that closed the strategy.',
  fields: (t) => ({
    at: t.field({
      description: 'Block time of the dock; null when unknown.',
      type: 'DateTime',
      nullable: true,
      resolve: (s) => s.at,
    }),
    block: t.int({
      description: 'Block number of the dock; null when unknown.',
      extensions: as('count'),
      nullable: true,
      resolve: (s) => s.block,
    }),
  }),
});

const Swap = builder.objectRef<SwapView>('StrategySwap').implement({
  description: 'A swap settled against the strategy (a Swapped log of the router).',
  fields: (t) => ({
    txHash: t.exposeString('txHash', { description: 'Transaction hash.', extensions: as('hash32') }),
    logIndex: t.exposeInt('logIndex', {
      description: 'Index of the Swapped log in its block.',
      extensions: as('count'),
    }),
    block: t.exposeInt('block', { description: 'Block number.', extensions: as('count') }),
    at: t.field({ description: 'Block time.', type: 'DateTime', resolve: (s) => s.at }),
    taker: t.exposeString('taker', { description: 'The taker address.', extensions: as('address') }),
    tokenIn: t.exposeString('tokenIn', {
      description: 'Token the taker paid in.',
      extensions: as('address'),
    }),
    tokenOut: t.exposeString('tokenOut', {
      description: 'Token the taker received.',
      extensions: as('address'),
    }),
    amountIn: t.exposeString('amountIn', {
      description: 'Amount in, base units (integer string).',
      extensions: as('baseUnits'),
    }),
    amountOut: t.exposeString('amountOut', {
      description: 'Amount out, base units (integer string).',
      extensions: as('baseUnits'),
    }),
    volumeUsd: t.exposeFloat('volumeUsd', {
      description: 'The amount in at the configured USD price.',
      extensions: as('usd'),
    }),
  }),
});

export const Strategy = builder.objectRef<StrategyView>('Strategy').implement({
  description: 'A liquidity position shipped to Aqua, as the indexer observed it.',
  fields: (t) => ({
    hash: t.exposeString('strategy_hash', {
      description: 'keccak256 of the shipped bytes.',
      extensions: as('hash32'),
    }),
    chain: t.exposeString('chain_key', { description: 'Chain key.' }),
    chainId: t.int({ description: 'EVM chain id.', resolve: (s, _a, ctx) => chainIdOf(ctx, s) }),
    maker: t.exposeString('maker', {
      description: 'The maker address (lower case).',
      extensions: as('address'),
    }),
    app: t.exposeString('app', {
      description: 'The router the strategy is shipped for.',
      extensions: as('address'),
    }),
    verifiedRouter: t.boolean({
      description: "True when the app is the chain's verified router.",
      resolve: (s, _a, ctx) => isVerifiedRouter(ctx, s),
    }),
    pair: t.string({
      nullable: true,
      description: 'Symbols in alphabetical order ("USDC/USDT"); null for other token counts.',
      resolve: (s) => pairOf(s),
    }),
    tokens: t.field({
      description: "The strategy's tokens, token A (the lower address) first.",
      type: [StrategyToken],
      resolve: (s, _a, ctx) => strategyTokens(ctx, s),
    }),
    status: t.field({
      description: 'Open (active) or docked.',
      type: StrategyStatus,
      resolve: (s) => s.status,
    }),
    volumeUsd: t.exposeFloat('volume_usd', { description: 'Settled volume, USD.', extensions: as('usd') }),
    swapCount: t.exposeInt('swap_count', {
      description: 'Swaps settled against it.',
      extensions: as('count'),
    }),
    lastSwapAt: t.field({
      description: 'Block time of its latest swap; null before the first.',
      type: 'DateTime',
      nullable: true,
      resolve: (s) => s.last_swap_at,
    }),
    shipped: t.field({
      description: 'When and where it was shipped.',
      type: Shipped,
      resolve: (s) => shippedOf(s),
    }),
    docked: t.field({
      description: 'When it was docked; null while open.',
      type: Docked,
      nullable: true,
      resolve: (s) => dockedOf(s),
    }),
    kind: t.field({
      description: 'The curve its program runs: xyc, concentrated, pegged or other.',
      type: ProgramKind,
      resolve: (s) => s.kind,
    }),
    fees7dUsd: t.exposeFloat('fees_7d_usd', {
      description:
        "The maker's own fees of the last 7 days in USD (today's prices), as of the last earnings refresh (at most 15 minutes old): what sort FEES orders by. `earnings` gives the live figures.",
      extensions: as('usd'),
    }),
    apy7d: t.exposeFloat('apy_7d', {
      nullable: true,
      description:
        'The APY of the last 7 days in percent (as EarningsWindow.apy computes it), as of the last earnings refresh (at most 15 minutes old): what sort APY orders by; null without fees in those 7 days.',
    }),
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
    order: t.field({
      type: ShippedOrderRef,
      nullable: true,
      description: 'The shipped order (maker, traits, program bytes); null when the bytes are not an order.',
      resolve: (s, _a, ctx) => shippedOrder(ctx, s),
    }),
    strategy: t.string({
      nullable: true,
      description: 'The shipped bytes (abi-encoded order).',
      extensions: as('bytes'),
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
      description: 'Its latest swaps, most recent first.',
      type: [Swap],
      args: { limit: t.arg.int({ description: 'How many, 1 to 100 (default 10).', defaultValue: 10 }) },
      resolve: (s, { limit }, ctx) => strategySwaps(ctx, s, limit ?? 10),
    }),
  }),
});

builder.queryFields((t) => ({
  strategy: t.field({
    type: Strategy,
    nullable: true,
    description: 'One strategy by hash, open or docked; null when the catalogue has none.',
    args: {
      hash: t.arg.string({ description: 'Strategy hash, 0x followed by 64 hex characters.', required: true }),
      chain: t.arg.string({ description: 'Chain key, when the same bytes are shipped on several chains.' }),
    },
    resolve: (_r, { hash, chain }, ctx) => strategyByHash(ctx, hash, chain),
  }),
}));
