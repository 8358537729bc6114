import {
  BADGE_METRICS,
  type BadgeMetric as BadgeMetricValue,
  type BadgeView,
  badge,
} from '../resolvers/catalogue/badge.js';
import {
  freshnessSeconds,
  getStats,
  type StatsView,
  topPairsByPositions,
  topPairsByVolume,
} from '../resolvers/catalogue/stats.js';
import type { ChainRollup, PairRollup } from '../store/rollups.js';
import { builder } from './builder.js';

const StatsTotals = builder.objectRef<StatsView['totals']>('StatsTotals').implement({
  description: 'Totals over every chain; strategies and volumes are the sums of the chains.',
  fields: (t) => ({
    strategies: t.exposeInt('strategies', { description: 'Open strategies.' }),
    makers: t.exposeInt('makers', { description: 'Distinct makers with an open strategy.' }),
    pairs: t.exposeInt('pairs', { description: 'Distinct pairs with an open strategy.' }),
    chains: t.exposeInt('chains'),
    volume1dUsd: t.exposeFloat('volume_1d_usd'),
    volume7dUsd: t.exposeFloat('volume_7d_usd'),
    volume30dUsd: t.exposeFloat('volume_30d_usd'),
    lastActivity: t.field({ type: 'DateTime', nullable: true, resolve: (s) => s.last_activity }),
  }),
});

const ChainStats = builder.objectRef<ChainRollup>('ChainStats').implement({
  fields: (t) => ({
    chain: t.exposeString('chain'),
    chainId: t.exposeInt('chain_id'),
    count: t.exposeInt('count', { description: 'Open strategies.' }),
    makers: t.exposeInt('makers'),
    pairs: t.exposeInt('pairs'),
    swaps30d: t.exposeInt('swaps_30d'),
    volume1dUsd: t.exposeFloat('volume_1d_usd'),
    volume7dUsd: t.exposeFloat('volume_7d_usd'),
    volume30dUsd: t.exposeFloat('volume_30d_usd'),
    lastActivity: t.field({ type: 'DateTime', nullable: true, resolve: (c) => c.last_activity }),
  }),
});

const PairStats = builder.objectRef<PairRollup>('PairStats').implement({
  fields: (t) => ({
    pair: t.exposeString('pair', { description: 'Symbols in alphabetical order, e.g. "USDC/USDT".' }),
    count: t.exposeInt('count', { description: 'Open strategies of the pair across chains.' }),
    chains: t.exposeStringList('chains'),
    volume1dUsd: t.exposeFloat('volume_1d_usd'),
    volume7dUsd: t.exposeFloat('volume_7d_usd'),
    volume30dUsd: t.exposeFloat('volume_30d_usd'),
    lastActivity: t.field({ type: 'DateTime', nullable: true, resolve: (p) => p.last_activity }),
  }),
});

const Stats = builder.objectRef<StatsView>('Stats').implement({
  description: 'The catalogue roll-up, refreshed on a schedule by the indexer.',
  fields: (t) => ({
    source: t.exposeString('source'),
    rollupUpdatedAt: t.field({ type: 'DateTime', nullable: true, resolve: (s) => s.rollupUpdatedAt }),
    freshnessSeconds: t.int({
      nullable: true,
      description: 'Age of the roll-up in seconds; null before the first roll-up.',
      resolve: (s) => freshnessSeconds(s.rollupUpdatedAt),
    }),
    totals: t.field({ type: StatsTotals, resolve: (s) => s.totals }),
    chains: t.field({ type: [ChainStats], resolve: (s) => s.chains }),
    topPairsByVolume: t.field({
      type: [PairStats],
      args: { limit: t.arg.int({ defaultValue: 10 }) },
      resolve: (s, { limit }) => topPairsByVolume(s.pairs, Math.max(0, Math.min(limit ?? 10, 100))),
    }),
    topPairsByPositions: t.field({
      type: [PairStats],
      args: { limit: t.arg.int({ defaultValue: 10 }) },
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

const BadgeMetric = builder.enumType('BadgeMetric', {
  values: Object.fromEntries(BADGE_METRICS.map((m) => [m, { value: m }])) as Record<
    BadgeMetricValue,
    { value: BadgeMetricValue }
  >,
});

const Badge = builder.objectRef<BadgeView>('Badge').implement({
  description: 'One catalogue metric, formatted for a README badge.',
  fields: (t) => ({
    metric: t.field({ type: BadgeMetric, resolve: (b) => b.metric }),
    label: t.exposeString('label'),
    value: t.exposeFloat('value'),
    message: t.exposeString('message', { description: 'The value as badge text: "$1.2M", "950K", "12".' }),
    color: t.exposeString('color'),
    rollupUpdatedAt: t.field({ type: 'DateTime', resolve: (b) => b.rollupUpdatedAt }),
  }),
});

builder.queryField('badge', (t) =>
  t.field({
    type: Badge,
    args: { metric: t.arg({ type: BadgeMetric, defaultValue: 'volume30' }) },
    resolve: (_r, { metric }, ctx) => badge(ctx, metric ?? 'volume30'),
  }),
);
