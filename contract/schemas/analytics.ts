import { z } from 'zod';
import {
  MakerDocument,
  MakerLeaderboardDocument,
  StrategyActivityDocument,
} from '../../rest/generated/graphql.js';
import { operationSchema } from '../openapi/fromSelection.js';
import { strategy, strategyDetail } from './catalogue.js';
import { component, count, dateTime, meta, pageSchema, usd } from './common.js';

/**
 * Bodies of the analytics read paths (rest/routes/analytics.ts): GET /api/makers/{address} and
 * GET /api/strategies/{hash}/activity. Served from the roll-ups of migration 014.
 */

const activityTotals = z.object({
  volumeUsd: usd.meta({ description: 'Settled volume, USD.' }),
  swapCount: count,
  makerFeesUsd: usd.meta({ description: "Earned by the maker's own fee (FlatFeeAmountIn), USD." }),
  protocolFeesUsd: usd.meta({ description: 'Protocol fee paid from the maker’s balances, USD.' }),
});

const volumeWindow = activityTotals.extend({
  since: dateTime.meta({ description: 'Start of the window: a whole UTC hour.' }),
});

/**
 * rest/operations/Maker.graphql. The route reshapes two members: the four activity windows become
 * `volume` (d1, d7, d30, lifetime), and the strategy connection a page of strategies with its cursor.
 */
export const maker = component(
  'Maker',
  operationSchema(MakerDocument, ['maker'], {
    omit: ['activity', 'strategies'],
    after: {
      liquidity: {
        volume: z
          .object({ d1: volumeWindow, d7: volumeWindow, d30: volumeWindow, lifetime: activityTotals })
          .meta({
            description:
              'Volume and fees over 1, 7 and 30 days (the current UTC hour and the hours before it, as /api/stats) and over the lifetime. Fees: USD volume × the fee rates of each strategy’s program.',
          }),
      },
      lastSwapAt: {
        strategies: z
          .array(strategy)
          .meta({ description: "A page of the maker's strategies, newest shipped first." }),
        page: pageSchema('Pass as `cursor` for the next page of strategies; null on the last page.'),
      },
    },
  }),
);

/** rest/operations/StrategyActivity.graphql: one bucket of the series. */
export const volumeBucket = component(
  'VolumeBucket',
  operationSchema(StrategyActivityDocument, ['strategy', 'activity', 'buckets']),
);

/**
 * rest/operations/StrategyActivity.graphql, nested by the route: the strategy's own fields, its series,
 * its latest swaps.
 */
export const strategyActivity = component(
  'StrategyActivity',
  z
    .object({
      strategy: operationSchema(StrategyActivityDocument, ['strategy'], {
        omit: ['activity', 'recentSwaps'],
      }),
      series: operationSchema(StrategyActivityDocument, ['strategy', 'activity'], {
        replace: {
          buckets: z
            .array(volumeBucket)
            .meta({ description: 'Every bucket of the range, oldest first; empty ones as zeros.' }),
        },
      }),
      recentSwaps: strategyDetail.shape.recentSwaps,
    })
    .meta({ description: "A strategy's volume over time and its latest swaps." }),
);

export const makerBody = component('MakerResponse', z.object({ data: maker, meta }));
export const strategyActivityBody = component(
  'StrategyActivityResponse',
  z.object({ data: strategyActivity, meta }),
);

/** rest/operations/MakerLeaderboard.graphql: the connection becomes a list and a page. */
export const rankedMaker = component(
  'RankedMaker',
  operationSchema(MakerLeaderboardDocument, ['makerLeaderboard', 'edges', 'node']),
);

export const makerLeaderboardBody = component(
  'MakerLeaderboardResponse',
  z.object({
    data: z.object({
      period: z.enum(['1d', '7d', '30d']),
      sort: z.enum(['apy', 'volume', 'fees', 'tvl']),
      chain: z.string().nullable().meta({ description: 'The chain filter applied; null for every chain.' }),
      makers: z
        .array(rankedMaker)
        .meta({ description: 'The page, highest first (ties by chain, then address).' }),
      page: pageSchema(
        'Pass as `cursor` (with the same period and sort) for the next page; null on the last page.',
      ),
    }),
    meta,
  }),
);
