import { z } from 'zod';
import { strategy, strategyDetail } from './catalogue.js';
import { address, baseUnits, component, count, dateTime, hash32, meta, usd } from './common.js';

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

export const maker = component(
  'Maker',
  z
    .object({
      address,
      chain: z.string(),
      chainId: z.int(),
      positions: z.object({
        open: count.meta({ description: 'Open (shipped, not docked) strategies.' }),
        docked: count,
        total: count,
      }),
      tvl: z
        .object({
          usd,
          tokens: z.array(
            z.object({
              address,
              symbol: z.string().nullable(),
              decimals: z.int().min(0).nullable(),
              amount: baseUnits,
              usd,
            }),
          ),
        })
        .meta({
          description:
            'Total value locked: the live virtual balances of the open strategies (as indexed) at the configured USD prices.',
        }),
      volume: z
        .object({ d1: volumeWindow, d7: volumeWindow, d30: volumeWindow, lifetime: activityTotals })
        .meta({
          description:
            'Volume and fees over 1, 7 and 30 days (the current UTC hour and the hours before it, as /api/stats) and over the lifetime. Fees: USD volume × the fee rates of each strategy’s program.',
        }),
      lastSwapAt: dateTime.nullable(),
      strategies: z
        .array(strategy)
        .meta({ description: "A page of the maker's strategies, newest shipped first." }),
      page: z.object({
        limit: z.int().min(1),
        nextCursor: z.string().nullable().meta({
          description: 'Pass as `cursor` for the next page of strategies; null on the last page.',
        }),
      }),
    })
    .meta({ description: 'A maker on one chain: positions, TVL, volume and fees.' }),
);

export const volumeBucket = component(
  'VolumeBucket',
  z.object({
    start: dateTime.meta({ description: 'Start of the bucket (inclusive), UTC.' }),
    volumeUsd: usd,
    swapCount: count,
    makerFeesUsd: usd,
    protocolFeesUsd: usd,
    feesUsd: usd.meta({ description: 'makerFeesUsd + protocolFeesUsd.' }),
  }),
);

export const strategyActivity = component(
  'StrategyActivity',
  z
    .object({
      strategy: z.object({
        hash: hash32,
        chain: z.string(),
        pair: z.string().nullable(),
        maker: address,
        status: z.enum(['active', 'docked']),
        volumeUsd: usd,
        swapCount: count,
        lastSwapAt: dateTime.nullable(),
      }),
      series: z.object({
        granularity: z.enum(['hour', 'day']),
        from: dateTime.meta({ description: 'Start of the first bucket.' }),
        to: dateTime.meta({ description: 'End of the last bucket (exclusive).' }),
        buckets: z
          .array(volumeBucket)
          .meta({ description: 'Every bucket of the range, oldest first; empty ones as zeros.' }),
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
