import { type BadgeMetric as BadgeMetricValue, type BadgeView, badge } from '../resolvers/catalogue/badge.js';
import {
  freshnessSeconds,
  getStats,
  type StatsView,
  topPairsByPositions,
  topPairsByVolume,
} from '../resolvers/catalogue/stats.js';
import type { ChainRollup, PairRollup } from '../store/rollups.js';
import { builder } from './builder.js';
import { enumOf } from './enums.js';
import { as } from './valueFormats.js';

const StatsTotals = builder
  .objectRef<StatsView['totals'] & Pick<StatsView, 'rollupUpdatedAt'>>('StatsTotals')
  .implement({
    description: 'Totals over every chain; strategies and volumes are the sums of the chains.',
    fields: (t) => ({
      strategies: t.exposeInt('strategies', { description: 'Open strategies.', extensions: as('count') }),
      makers: t.exposeInt('makers', {
        description: 'Distinct makers with an open strategy.',
        extensions: as('count'),
      }),
      pairs: t.exposeInt('pairs', {
        description: 'Distinct pairs with an open strategy.',
        extensions: as('count'),
      }),
      chains: t.exposeInt('chains', { description: 'Chains the service serves.', extensions: as('count') }),
      volume1dUsd: t.exposeFloat('volume_1d_usd', {
        description: 'Settled volume over the last day (the current UTC hour and the 23 before it), USD.',
      }),
      volume7dUsd: t.exposeFloat('volume_7d_usd', {
        description: 'Settled volume over the last 7 days, USD.',
      }),
      volume30dUsd: t.exposeFloat('volume_30d_usd', {
        description: 'Settled volume over the last 30 days, USD.',
      }),
      tvlUsd: t.float({
        description:
          "Total value locked over every chain, USD: the open strategies' live virtual balances at the tokens' prices, as of the roll-up. Counts what the strategies hold, not what their makers' wallets can pay out (pullableUsd).",
        resolve: (x) => x.tvl_usd ?? 0,
      }),
      pullableUsd: t.float({
        description:
          "What the open strategies can really pay out over every chain, USD: per maker and token the smaller of their virtual balances, the wallet's balance and its allowance to Aqua (one wallet and one allowance serve all of a maker's strategies), as of the indexer's last wallet reads (every WALLET_READ_MS; a maker not read yet counts 0).",
        resolve: (x) => x.pullable_usd ?? 0,
      }),
      lastActivity: t.field({
        description: 'Latest ship, dock or swap over every chain; null when none.',
        type: 'DateTime',
        nullable: true,
        resolve: (s) => s.last_activity,
      }),
      rollupUpdatedAt: t.field({
        description: 'When the roll-up was refreshed; null before the first roll-up.',
        type: 'DateTime',
        nullable: true,
        resolve: (s) => s.rollupUpdatedAt,
      }),
    }),
  });

const ChainStats = builder.objectRef<ChainRollup>('ChainStats').implement({
  description: "One chain's line of the catalogue roll-up.",
  fields: (t) => ({
    chain: t.exposeString('chain', { description: 'Chain key.' }),
    chainId: t.exposeInt('chain_id', { description: 'EVM chain id.' }),
    count: t.exposeInt('count', { description: 'Open strategies.', extensions: as('count') }),
    makers: t.exposeInt('makers', {
      description: 'Distinct makers with an open strategy on the chain.',
      extensions: as('count'),
    }),
    pairs: t.exposeInt('pairs', {
      description: 'Distinct pairs with an open strategy on the chain.',
      extensions: as('count'),
    }),
    swaps30d: t.exposeInt('swaps_30d', {
      description: 'Swaps settled over the last 30 days.',
      extensions: as('count'),
    }),
    volume1dUsd: t.exposeFloat('volume_1d_usd', { description: 'Settled volume over the last day, USD.' }),
    volume7dUsd: t.exposeFloat('volume_7d_usd', { description: 'Settled volume over the last 7 days, USD.' }),
    volume30dUsd: t.exposeFloat('volume_30d_usd', {
      description: 'Settled volume over the last 30 days, USD.',
    }),
    tvlUsd: t.float({
      description:
        "Total value locked on the chain, USD: the open strategies' virtual balances, as of the roll-up.",
      resolve: (x) => x.tvl_usd ?? 0,
    }),
    pullableUsd: t.float({
      description:
        "What the chain's open strategies can really pay out, USD (the smaller of virtual balance, wallet balance and allowance per maker and token), as of the last wallet reads.",
      resolve: (x) => x.pullable_usd ?? 0,
    }),
    lastActivity: t.field({
      description: 'Latest ship, dock or swap on the chain; null when none.',
      type: 'DateTime',
      nullable: true,
      resolve: (c) => c.last_activity,
    }),
  }),
});

const PairStats = builder.objectRef<PairRollup>('PairStats').implement({
  description: "One token pair's line of the catalogue roll-up, summed across chains.",
  fields: (t) => ({
    pair: t.exposeString('pair', { description: 'Symbols in alphabetical order, e.g. "USDC/USDT".' }),
    count: t.exposeInt('count', {
      description: 'Open strategies of the pair across chains.',
      extensions: as('count'),
    }),
    chains: t.exposeStringList('chains', {
      description: 'Chains where the pair has open strategies or 30-day volume.',
    }),
    volume1dUsd: t.exposeFloat('volume_1d_usd', { description: 'Settled volume over the last day, USD.' }),
    volume7dUsd: t.exposeFloat('volume_7d_usd', { description: 'Settled volume over the last 7 days, USD.' }),
    volume30dUsd: t.exposeFloat('volume_30d_usd', {
      description: 'Settled volume over the last 30 days, USD.',
    }),
    tvlUsd: t.float({
      description: 'Total value locked in the pair across chains, USD, as of the roll-up.',
      resolve: (x) => x.tvl_usd ?? 0,
    }),
    lastActivity: t.field({
      description: 'Latest ship, dock or swap of the pair; null when none.',
      type: 'DateTime',
      nullable: true,
      resolve: (p) => p.last_activity,
    }),
  }),
});

const Stats = builder.objectRef<StatsView>('Stats').implement({
  description: 'The catalogue roll-up, refreshed on a schedule by the indexer.',
  fields: (t) => ({
    source: t.exposeString('source', {
      description: 'What the numbers are computed from (indexer:aqua-swapvm-events).',
      extensions: as(null, ['indexer:aqua-swapvm-events']),
    }),
    rollupUpdatedAt: t.field({
      description: 'When the roll-up was refreshed; null before the first roll-up.',
      type: 'DateTime',
      nullable: true,
      resolve: (s) => s.rollupUpdatedAt,
    }),
    dataAsOf: t.field({
      type: 'DateTime',
      nullable: true,
      description:
        'The time the roll-up holds every event up to: the oldest indexed time of its chains (far back during a backfill), never later than rollupUpdatedAt.',
      resolve: (s) => s.dataAsOf,
    }),
    freshnessSeconds: t.int({
      nullable: true,
      description: "Age in seconds of the roll-up's data (`dataAsOf`); null before the first roll-up.",
      resolve: (s) => freshnessSeconds(s.dataAsOf),
    }),
    totals: t.field({
      description: 'Totals over every chain.',
      type: StatsTotals,
      resolve: (s) => ({ ...s.totals, rollupUpdatedAt: s.rollupUpdatedAt }),
    }),
    chains: t.field({
      description: 'One entry per chain the service serves.',
      type: [ChainStats],
      resolve: (s) => s.chains,
    }),
    topPairsByVolume: t.field({
      description: 'Pairs with the most 30-day volume first.',
      type: [PairStats],
      args: { limit: t.arg.int({ description: 'How many pairs, 0 to 100 (default 10).', defaultValue: 10 }) },
      resolve: (s, { limit }) => topPairsByVolume(s.pairs, Math.max(0, Math.min(limit ?? 10, 100))),
    }),
    topPairsByPositions: t.field({
      description: 'Pairs with the most open strategies first.',
      type: [PairStats],
      args: { limit: t.arg.int({ description: 'How many pairs, 0 to 100 (default 10).', defaultValue: 10 }) },
      resolve: (s, { limit }) => topPairsByPositions(s.pairs, Math.max(0, Math.min(limit ?? 10, 100))),
    }),
  }),
});

builder.queryField('stats', (t) =>
  t.field({
    type: Stats,
    description: 'Totals, chains and top pairs of the catalogue.',
    resolve: (_r, _a, ctx) => getStats(ctx),
  }),
);

const BADGE_METRIC_DESCRIPTIONS: Record<BadgeMetricValue, string> = {
  volume30: 'Settled volume over 30 days, USD.',
  volume7: 'Settled volume over 7 days, USD.',
  volume1: 'Settled volume over 1 day, USD.',
  strategies: 'Open strategies.',
  makers: 'Distinct makers with an open strategy.',
  pairs: 'Distinct pairs with an open strategy.',
  chains: 'Chains served.',
};

const BadgeMetric = enumOf('BadgeMetric', 'A catalogue metric a badge can show.', BADGE_METRIC_DESCRIPTIONS);

const Badge = builder.objectRef<BadgeView>('Badge').implement({
  description: 'One catalogue metric, formatted for a README badge.',
  fields: (t) => ({
    metric: t.field({ description: 'The metric shown.', type: BadgeMetric, resolve: (b) => b.metric }),
    label: t.exposeString('label', { description: 'Badge label (left side).' }),
    value: t.exposeFloat('value', { description: "The metric's value (USD or a count)." }),
    message: t.exposeString('message', { description: 'The value as badge text: "$1.2M", "950K", "12".' }),
    color: t.exposeString('color', { description: 'Badge colour (a shields.io colour name).' }),
    rollupUpdatedAt: t.field({
      description: 'When the roll-up the value comes from was refreshed.',
      type: 'DateTime',
      resolve: (b) => b.rollupUpdatedAt,
    }),
  }),
});

builder.queryField('badge', (t) =>
  t.field({
    type: Badge,
    description: 'One catalogue metric formatted for a README badge (GET /api/badge).',
    args: {
      metric: t.arg({
        description: 'Which metric; VOLUME30 by default.',
        type: BadgeMetric,
        defaultValue: 'volume30',
      }),
    },
    resolve: (_r, { metric }, ctx) => badge(ctx, metric ?? 'volume30'),
  }),
);
