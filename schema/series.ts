import {
  type VolumeBucket as BucketView,
  type VolumeSeries as SeriesView,
  strategyActivity,
  volumeSeries,
} from '../resolvers/series.js';
import { builder } from './builder.js';
import { enumOf } from './enums.js';
import { Strategy } from './strategy.js';
import { as } from './valueFormats.js';

export const Granularity = enumOf('Granularity', 'Width of the buckets of a time series (UTC).', {
  hour: 'One bucket per UTC hour.',
  day: 'One bucket per UTC day.',
});

const VolumeBucket = builder.objectRef<BucketView>('VolumeBucket').implement({
  description:
    'Settled volume and fees of one bucket. Fees are the USD volume times the fee rates of each strategy’s program.',
  fields: (t) => ({
    start: t.field({
      type: 'DateTime',
      description: 'Start of the bucket (inclusive).',
      resolve: (b) => b.start,
    }),
    volumeUsd: t.exposeFloat('volumeUsd', { description: 'Settled volume, USD.', extensions: as('usd') }),
    swapCount: t.exposeInt('swapCount', {
      description: 'Swaps settled in the bucket.',
      extensions: as('count'),
    }),
    makerFeesUsd: t.exposeFloat('makerFeesUsd', {
      description: "Earned by makers' own fees, USD.",
      extensions: as('usd'),
    }),
    protocolFeesUsd: t.exposeFloat('protocolFeesUsd', {
      description: 'Protocol fees paid, USD.',
      extensions: as('usd'),
    }),
    feesUsd: t.float({
      description: 'makerFeesUsd + protocolFeesUsd.',
      extensions: as('usd'),
      resolve: (b) => Math.round((b.makerFeesUsd + b.protocolFeesUsd) * 100) / 100,
    }),
  }),
});

const SeriesFilters = builder.objectRef<SeriesView['filters']>('VolumeSeriesFilters').implement({
  description: 'The filters as applied (normalised: chain key, stored pair key, lower-case hex).',
  fields: (t) => ({
    chain: t.string({ nullable: true, description: 'Chain key, or null for all.', resolve: (f) => f.chain }),
    pair: t.string({
      nullable: true,
      description: 'Pair key ("USDC/USDT"), or null for all.',
      resolve: (f) => f.pair,
    }),
    token: t.string({
      nullable: true,
      description: 'The token whose pairs were summed (its symbol); null for all.',
      resolve: (f) => f.token,
    }),
    maker: t.string({
      nullable: true,
      description: 'Maker address, or null for all.',
      resolve: (f) => f.maker,
    }),
    strategy: t.string({
      nullable: true,
      description: 'Strategy hash, or null for all.',
      resolve: (f) => f.strategy,
    }),
  }),
});

export const VolumeSeries = builder.objectRef<SeriesView>('VolumeSeries').implement({
  description:
    'Volume over time, served from the hourly roll-ups the indexer writes with each swap (never a scan of swaps). Every bucket of the range is listed, empty ones as zeros.',
  fields: (t) => ({
    granularity: t.field({ type: Granularity, description: 'Bucket width.', resolve: (s) => s.granularity }),
    from: t.field({ type: 'DateTime', description: 'Start of the first bucket.', resolve: (s) => s.from }),
    to: t.field({
      type: 'DateTime',
      description: 'End of the last bucket (exclusive).',
      resolve: (s) => s.to,
    }),
    filters: t.field({ type: SeriesFilters, description: 'What was selected.', resolve: (s) => s.filters }),
    buckets: t.field({ type: [VolumeBucket], description: 'Oldest first.', resolve: (s) => s.buckets }),
  }),
});

builder.queryField('volumeSeries', (t) =>
  t.field({
    type: VolumeSeries,
    description:
      'Settled volume, swap count and fees per hour or day, filtered by chain, pair, token, maker and strategy (any combination).',
    args: {
      granularity: t.arg({ type: Granularity, required: true, description: 'HOUR or DAY.' }),
      from: t.arg({
        type: 'DateTime',
        description: 'Start (rounded down to the bucket); default 48 hours or 30 days before `to`.',
      }),
      to: t.arg({
        type: 'DateTime',
        description: 'End (rounded up to the bucket); default the end of the current one.',
      }),
      chain: t.arg.string({ description: 'Chain key.' }),
      pair: t.arg.string({ description: '"A/B" token symbols, either order.' }),
      token: t.arg.string({
        description: 'A token symbol (any case) or address /api/chains lists: every pair holding it.',
      }),
      maker: t.arg.string({ description: 'Maker address.' }),
      strategy: t.arg.string({ description: 'Strategy hash.' }),
    },
    resolve: (_r, args, ctx) => volumeSeries(ctx, args),
  }),
);

builder.objectField(Strategy, 'activity', (t) =>
  t.field({
    type: VolumeSeries,
    description:
      "This strategy's settled volume and fees per hour or day (volumeSeries of the strategy on its chain).",
    args: {
      granularity: t.arg({ type: Granularity, required: true, description: 'HOUR or DAY.' }),
      from: t.arg({ type: 'DateTime', description: 'Start; default 48 hours or 30 days before `to`.' }),
      to: t.arg({ type: 'DateTime', description: 'End; default the end of the current bucket.' }),
    },
    resolve: (s, args, ctx) => strategyActivity(ctx, s, args),
  }),
);
