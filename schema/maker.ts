import {
  type ActivityWindow,
  listMakers,
  type MakerRow,
  type MakerTvl as MakerTvlView,
  makerActivity,
  makerOf,
  makerStrategies,
  makerTvl,
  type TokenValue,
} from '../resolvers/makers.js';
import { builder } from './builder.js';
import { connectionOf, relayArgs } from './connection.js';
import { Strategy, StrategyStatus } from './strategy.js';
import { as } from './valueFormats.js';

const MakerSort = builder.enumType('MakerSort', {
  description: 'How the makers list is ordered, highest first.',
  values: {
    TVL: { value: 'tvl', description: 'Total value locked, as priced at the last roll-up refresh.' },
    VOLUME: { value: 'volume', description: 'Lifetime settled volume in USD.' },
  } as const,
});

const TokenBalance = builder.objectRef<TokenValue>('MakerTokenBalance').implement({
  description: "One token of a maker's live virtual balances, summed over its open strategies.",
  fields: (t) => ({
    address: t.exposeString('address', {
      description: 'Token contract address (lower case).',
      extensions: as('address'),
    }),
    symbol: t.string({
      nullable: true,
      description: 'Token symbol; null when unknown.',
      resolve: (b) => b.symbol,
    }),
    decimals: t.int({
      nullable: true,
      description: 'Token decimals; null when unknown.',
      extensions: as('count'),
      resolve: (b) => b.decimals,
    }),
    amount: t.exposeString('amount', {
      description: 'Base units, as an integer string.',
      extensions: as('baseUnits'),
    }),
    usd: t.exposeFloat('usd', {
      description: 'Value at the configured USD price (0 without a price).',
      extensions: as('usd'),
    }),
  }),
});

const MakerTvl = builder.objectRef<MakerTvlView>('MakerTvl').implement({
  description:
    "A maker's total value locked: the live virtual balances of its open strategies (as indexed, so as fresh as the indexer) times the tokens' USD prices now (each token's source in /api/chains).",
  fields: (t) => ({
    usd: t.exposeFloat('usd', { description: 'Sum of the tokens, USD.', extensions: as('usd') }),
    tokens: t.field({ type: [TokenBalance], description: 'Per token.', resolve: (v) => v.tokens }),
  }),
});

const MakerPositions = builder.objectRef<MakerRow>('MakerPositions').implement({
  description: "Counts of a maker's strategies on the chain.",
  fields: (t) => ({
    open: t.exposeInt('open_strategies', {
      description: 'Open (shipped, not docked) strategies.',
      extensions: as('count'),
    }),
    docked: t.exposeInt('docked_strategies', {
      description: 'Strategies the maker docked.',
      extensions: as('count'),
    }),
    total: t.int({
      description: 'Open and docked.',
      extensions: as('count'),
      resolve: (m) => m.open_strategies + m.docked_strategies,
    }),
  }),
});

const ActivityWindowRef = builder.objectRef<ActivityWindow>('MakerActivityWindow').implement({
  description:
    "A maker's settled volume and fees over a window. Fees are the USD volume times the strategies' fee rates (their programs): what the maker's own fee earned, and the protocol fee paid.",
  fields: (t) => ({
    days: t.int({
      nullable: true,
      description:
        'Length of the window in days (the current UTC hour and the hours before it); null for the lifetime.',
      resolve: (w) => w.days,
    }),
    since: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'Start of the window (a whole UTC hour); null for the lifetime.',
      resolve: (w) => w.since,
    }),
    volumeUsd: t.float({
      description: 'Settled volume, USD.',
      resolve: (w) => Math.round(w.volume_usd * 100) / 100,
    }),
    swapCount: t.exposeInt('swap_count', { description: 'Swaps settled against the maker.' }),
    makerFeesUsd: t.float({
      description: "Earned by the maker's own fee (FlatFeeAmountIn), USD.",
      resolve: (w) => Math.round(w.maker_fees_usd * 100) / 100,
    }),
    protocolFeesUsd: t.float({
      description: 'Protocol fee (AquaProtocolFeeAmountIn) paid from the maker’s balances, USD.',
      resolve: (w) => Math.round(w.protocol_fees_usd * 100) / 100,
    }),
  }),
});

const StrategyConnection = connectionOf('MakerStrategy', Strategy, { one: 'strategy', many: 'strategies' });

export const Maker = builder.objectRef<MakerRow>('Maker').implement({
  description: 'A maker (the address that ships strategies) on one chain: positions, TVL, volume and fees.',
  fields: (t) => ({
    address: t.exposeString('maker', {
      description: 'The maker address (lower case).',
      extensions: as('address'),
    }),
    chain: t.exposeString('chain_key', { description: 'Chain key.' }),
    chainId: t.int({
      description: 'EVM chain id.',
      resolve: (m, _a, ctx) => ctx.services.registry.get(m.chain_key)?.chainId ?? 0,
    }),
    positions: t.field({ type: MakerPositions, description: 'Open and docked counts.', resolve: (m) => m }),
    tvl: t.field({
      type: MakerTvl,
      description: 'Live total value locked (see MakerTvl).',
      resolve: (m, _a, ctx) => makerTvl(ctx, m),
    }),
    rankedTvlUsd: t.exposeFloat('tvl_usd', {
      description:
        'The TVL the makers list orders by: priced by the roll-up refresh after the last change of the balances (rankedAt).',
    }),
    rankedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When rankedTvlUsd was priced; null before the first roll-up refresh.',
      resolve: (m) => m.tvl_at,
    }),
    activity: t.field({
      type: [ActivityWindowRef],
      description:
        'Volume and fees over 1, 7 and 30 days (the windows of stats) and over the lifetime, in that order.',
      resolve: (m, _a, ctx) => makerActivity(ctx, m),
    }),
    lastSwapAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'Block time of the latest settled swap.',
      resolve: (m) => m.last_swap_at,
    }),
    strategies: t.field({
      type: StrategyConnection,
      description: "The maker's strategies on the chain, newest shipped first.",
      args: {
        ...relayArgs(t),
        status: t.arg({ type: StrategyStatus, description: 'Only open or only docked strategies.' }),
      },
      resolve: (m, args, ctx) => makerStrategies(ctx, m, args),
    }),
  }),
});

const MakerConnection = connectionOf('Maker', Maker, { one: 'maker', many: 'makers' });

builder.queryFields((t) => ({
  maker: t.field({
    type: Maker,
    nullable: true,
    description: 'One maker on one chain; null when it never shipped a strategy there.',
    args: {
      chain: t.arg.string({ required: true, description: 'Chain key.' }),
      address: t.arg.string({
        required: true,
        description: 'Maker address, 0x followed by 40 hex characters.',
      }),
    },
    resolve: (_r, { chain, address }, ctx) => makerOf(ctx, chain, address),
  }),
  makers: t.field({
    type: MakerConnection,
    description: 'Makers, highest TVL or volume first, one keyset page at a time.',
    args: {
      chain: t.arg.string({ description: 'Only the makers of this chain key.' }),
      sort: t.arg({ type: MakerSort, defaultValue: 'tvl', description: 'TVL (default) or VOLUME.' }),
      ...relayArgs(t),
    },
    resolve: (_r, args, ctx) => listMakers(ctx, { ...args, sort: args.sort ?? 'tvl' }),
  }),
}));
