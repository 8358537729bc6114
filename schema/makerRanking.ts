import { listRankings, type RankingPeriod, type RankingRow } from '../resolvers/makerRankings.js';
import { makerOf } from '../resolvers/makers.js';
import { builder } from './builder.js';
import { connectionOf, relayArgs } from './connection.js';
import { APY_FORMULA } from './earnings.js';
import { enumOf } from './enums.js';
import { Maker } from './maker.js';
import { as } from './valueFormats.js';

export const LeaderboardSort = enumOf(
  'LeaderboardSort',
  'How the makers leaderboard is ordered, highest first.',
  {
    apy: 'APY over the period (makers without priced liquidity in it last).',
    volume: 'Settled volume over the period, USD.',
    fees: "Fees the maker's own fee earned over the period, USD at today's prices.",
    tvl: 'Total value locked, as priced at the last roll-up refresh.',
  },
);

// Not enumOf: a GraphQL name cannot start with a digit.
export const LeaderboardPeriod = builder.enumType('LeaderboardPeriod', {
  description: 'The window of the leaderboard: the current UTC hour and the hours before it.',
  extensions: { declared: ['1d', '7d', '30d'] },
  values: {
    D1: { value: '1d' as RankingPeriod, description: 'One day.' },
    D7: { value: '7d' as RankingPeriod, description: 'Seven days.' },
    D30: { value: '30d' as RankingPeriod, description: 'Thirty days.' },
  },
});

export const MakerRanking = builder.objectRef<RankingRow>('MakerRanking').implement({
  description: "One maker's place on the leaderboard: its figures over the period, as of rankedAt.",
  fields: (t) => ({
    address: t.exposeString('maker', {
      description: 'The maker address (lower case).',
      extensions: as('address'),
    }),
    chain: t.exposeString('chain_key', { description: 'Chain key.' }),
    chainId: t.int({
      description: 'EVM chain id.',
      resolve: (r, _a, ctx) => ctx.services.registry.get(r.chain_key)?.chainId ?? 0,
    }),
    volumeUsd: t.exposeFloat('volume_usd', {
      description: 'Settled volume over the period, USD.',
      extensions: as('usd'),
    }),
    swapCount: t.exposeInt('swap_count', {
      description: 'Swaps settled against the maker over the period.',
      extensions: as('count'),
    }),
    makerFeesUsd: t.exposeFloat('maker_fees_usd', {
      description:
        "Earned by the maker's own fee over the period, USD at today's prices (as Maker.earnings).",
      extensions: as('usd'),
    }),
    protocolFeesUsd: t.exposeFloat('protocol_fees_usd', {
      description: "Protocol fees paid from the maker's balances over the period, USD at today's prices.",
      extensions: as('usd'),
    }),
    tvlUsd: t.exposeFloat('tvl_usd', {
      description: 'Total value locked, as priced at the last roll-up refresh.',
      extensions: as('usd'),
    }),
    apy: t.float({
      nullable: true,
      description: `Percent (12.5 = 12.5 %): ${APY_FORMULA}. Null when the period held no priced liquidity.`,
      resolve: (r) => r.apy,
    }),
    rankedAt: t.field({
      type: 'DateTime',
      description: 'When these figures were computed: after a roll-up refresh, at most every 5 minutes.',
      resolve: (r) => r.ranked_at,
    }),
    maker: t.field({
      type: Maker,
      nullable: true,
      description: 'The maker itself (its live view).',
      resolve: (r, _a, ctx) => makerOf(ctx, r.chain_key, r.maker),
    }),
  }),
});

const RankingConnection = connectionOf('MakerRanking', MakerRanking, {
  one: 'ranked maker',
  many: 'ranked makers',
});

builder.queryFields((t) => ({
  makerLeaderboard: t.field({
    type: RankingConnection,
    description:
      'Makers ranked over a period by APY, volume, fees or TVL, highest first, one keyset page at a time; recomputed after a roll-up refresh at most every 5 minutes (rankedAt).',
    args: {
      period: t.arg({ type: LeaderboardPeriod, defaultValue: '7d', description: 'The window (default D7).' }),
      sort: t.arg({
        type: LeaderboardSort,
        defaultValue: 'volume',
        description: 'The order (default VOLUME).',
      }),
      chain: t.arg.string({ description: 'Only the makers of this chain key.' }),
      ...relayArgs(t),
    },
    resolve: (_r, args, ctx) =>
      listRankings(ctx, { ...args, period: args.period ?? '7d', sort: args.sort ?? 'volume' }),
  }),
}));
