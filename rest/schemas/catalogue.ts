import { z } from 'zod';
import { STRATEGY_SORTS } from '../../resolvers/catalogue/params.js';
import { address, baseUnits, component, count, dateTime, hash32, meta, readBody, usd } from './common.js';
import { decodedStrategy } from './program.js';

/**
 * Bodies of the catalogue's read paths (rest/routes/catalogue.ts): /api/stats,
 * /api/chains, /api/strategies and /api/strategy-detail (open bodies of SPEC §2.8: their objects
 * allow additional properties; the fields below are the ones this version sends).
 */

const pairStats = component(
  'PairStats',
  z.object({
    pair: z.string().meta({ description: 'Token symbols in alphabetical order, e.g. `USDC/USDT`.' }),
    count: count.meta({ description: 'Open strategies of the pair across chains.' }),
    chains: z.array(z.string()),
    volume_1d_usd: usd,
    volume_7d_usd: usd,
    volume_30d_usd: usd,
    tvl_usd: usd.meta({
      description:
        'Total value locked, USD: the live virtual balances of open strategies at the configured prices, as of the roll-up.',
    }),
    last_activity: dateTime.nullable(),
  }),
);

export const stats = component(
  'Stats',
  z
    .object({
      source: z.string().meta({ examples: ['indexer:aqua-swapvm-events'] }),
      totals: z.object({
        strategies: count.meta({ description: 'Open strategies.' }),
        makers: count.meta({ description: 'Distinct makers with an open strategy.' }),
        pairs: count.meta({ description: 'Distinct pairs with an open strategy.' }),
        chains: count,
        volume_1d_usd: usd,
        volume_7d_usd: usd,
        volume_30d_usd: usd,
        tvl_usd: usd.meta({
          description:
            'Total value locked, USD: the live virtual balances of open strategies at the configured prices, as of the roll-up.',
        }),
        last_activity: dateTime.nullable(),
        rollup_updated_at: dateTime
          .nullable()
          .meta({ description: 'When the roll-up was refreshed; null before the first roll-up.' }),
      }),
      chains: z.array(
        z.object({
          chain: z.string(),
          chain_id: z.int(),
          count: count.meta({ description: 'Open strategies.' }),
          makers: count,
          pairs: count,
          swaps_30d: count,
          volume_1d_usd: usd,
          volume_7d_usd: usd,
          volume_30d_usd: usd,
          tvl_usd: usd.meta({
            description:
              'Total value locked, USD: the live virtual balances of open strategies at the configured prices, as of the roll-up.',
          }),
          last_activity: dateTime.nullable(),
        }),
      ),
      top_pairs_by_volume: z.array(pairStats).meta({ description: 'At most 10, most 30-day volume first.' }),
      top_pairs_by_positions: z
        .array(pairStats)
        .meta({ description: 'At most 10, most open strategies first.' }),
    })
    .meta({ description: 'Totals, per-chain and per-pair roll-ups of the catalogue.' }),
);

export const chain = component(
  'Chain',
  z
    .object({
      key: z.string().meta({ examples: ['base'] }),
      chainId: z.int().meta({ examples: [8453] }),
      name: z.string(),
      testnet: z.boolean(),
      tokens: z
        .record(z.string(), z.object({ address, decimals: z.int().min(0) }))
        .meta({ description: 'Symbol → token. Live: never hardcode it.' }),
      contracts: z.object({
        aqua: address.meta({ description: 'The Aqua contract.' }),
        router: address.meta({
          description: 'The verified AquaSwapVMRouter (the app of quotable strategies).',
        }),
      }),
      countsAvailable: z.boolean().meta({
        description: 'False when the store could not answer: counts, volumeUsd and indexer are then null.',
      }),
      counts: z.object({
        strategies: count.nullable().meta({ description: 'Open strategies.' }),
        makers: count.nullable(),
        pairs: count.nullable(),
        swaps30d: count.nullable(),
      }),
      volumeUsd: z.object({ d1: usd.nullable(), d7: usd.nullable(), d30: usd.nullable() }),
      lastActivity: dateTime.nullable(),
      indexer: z
        .object({
          lastBlock: z.int().min(0).meta({ description: 'Last block whose logs are fully stored.' }),
          updatedAt: dateTime,
        })
        .nullable(),
    })
    .meta({
      description: 'A chain the service serves, from its live registry, with counts from the roll-up.',
    }),
);

const strategyToken = z.object({
  symbol: z.string().nullable(),
  address,
  decimals: z.int().min(0).nullable(),
  initialAmount: baseUnits.nullable(),
  currentAmount: baseUnits.nullable(),
});

export const strategy = component(
  'Strategy',
  z
    .object({
      hash: hash32.meta({ description: 'keccak256 of the shipped bytes.' }),
      chain: z.string(),
      chainId: z.int(),
      maker: address,
      app: address.meta({ description: 'The router the strategy is shipped for.' }),
      verifiedRouter: z.boolean().meta({ description: "True when the app is the chain's verified router." }),
      pair: z
        .string()
        .nullable()
        .meta({ description: 'Symbols in alphabetical order (`USDC/USDT`); null for other token counts.' }),
      tokens: z.array(strategyToken),
      status: z
        .enum(['active', 'docked'])
        .meta({ description: 'active: open; docked: closed by its maker.' }),
      volumeUsd: usd.meta({ description: 'Settled volume, USD.' }),
      swapCount: count,
      lastSwapAt: dateTime.nullable(),
      shipped: z.object({ at: dateTime, block: z.int().min(0), tx: hash32 }),
      docked: z.object({ at: dateTime.nullable(), block: z.int().min(0).nullable() }).nullable(),
    })
    .meta({ description: 'A liquidity position shipped to Aqua, as the indexer observed it.' }),
);

export const strategyDetail = component(
  'StrategyDetail',
  strategy
    .extend({
      firstSeenAt: dateTime.meta({ description: 'When the service first observed it on chain.' }),
      firstVolumeSeenAt: dateTime.nullable(),
      alsoOnChains: z.array(z.string()).meta({
        description: 'Other chains where the same bytes were shipped (the hash does not include the chain).',
      }),
      strategy: z
        .string()
        .regex(/^0x[0-9a-fA-F]*$/)
        .nullable()
        .meta({ description: 'The shipped bytes (abi-encoded order).' }),
      decoded: decodedStrategy,
      recentSwaps: z
        .array(
          z.object({
            txHash: hash32,
            logIndex: count,
            block: z.int().min(0),
            at: dateTime,
            taker: address,
            tokenIn: address,
            tokenOut: address,
            amountIn: baseUnits,
            amountOut: baseUnits,
            volumeUsd: usd,
          }),
        )
        .meta({ description: 'The latest 10 swaps, most recent first.' }),
    })
    .meta({ description: 'One strategy with its decoding and its latest swaps.' }),
);

const page = z.object({
  limit: z.int().min(1),
  nextCursor: z.string().nullable().meta({
    description: 'Pass as `cursor` (with the same `sort`) for the next page; null on the last page.',
  }),
  sort: z.enum(STRATEGY_SORTS),
});

export const statsBody = component('StatsResponse', readBody(stats));
export const chainsBody = component(
  'ChainsResponse',
  z.looseObject({ data: z.looseObject({ chains: z.array(chain) }), meta }),
);
export const strategyDetailBody = component(
  'StrategyDetailResponse',
  z.looseObject({ data: strategyDetail, meta }),
);

export const strategiesBody = component(
  'StrategiesResponse',
  z.looseObject({
    data: z
      .discriminatedUnion('resource', [
        z.looseObject({
          resource: z.literal('list'),
          filters: z.object({ chain: z.string().nullable(), pair: z.string().nullable() }),
          strategies: z.array(strategy),
          page,
        }),
        z.looseObject({
          resource: z.literal('search'),
          query: z
            .object({
              q: z.string(),
              chains: z.array(z.string()),
              symbols: z.array(z.string()),
              unmatched: z.array(z.string()).meta({ description: 'Words that name no chain and no token.' }),
            })
            .meta({ description: 'How the search text was read.' }),
          strategies: z.array(strategy),
          page,
        }),
        z.looseObject({ resource: z.literal('detail'), strategy: strategyDetail }),
        z.looseObject({ resource: z.literal('chains'), chains: z.array(chain) }),
        z.looseObject({ resource: z.literal('stats'), stats }),
      ])
      .meta({ description: 'One shape per `resource`, named by `data.resource`.' }),
    meta,
  }),
);
