import { z } from 'zod';
import { ApiError } from '../../lib/errors.js';
import { DEFAULT_LIMIT, HASH, MAX_LIMIT } from '../../resolvers/catalogue/params.js';
import { ADDRESS } from '../../resolvers/series.js';
import { MakerDocument, type MakerQuery, StrategyActivityDocument } from '../generated/graphql.js';
import { queryInteger, queryText } from '../queryValues.js';
import { queryParam, type RestRoute, type RouteContext, readBody } from '../route.js';
import { makerBody, strategyActivityBody } from '../schemas/analytics.js';

/**
 * The analytics read paths, additive to SPEC §9, each one persisted operation:
 *
 * GET /api/makers/{address}?chain=… — a maker on one chain (chain required: a maker is per chain):
 *   positions, live TVL, volume and fees over 1/7/30 days and the lifetime, and a page of its
 *   strategies (limit 1-100, cursor). Unknown maker: 404.
 * GET /api/strategies/{hash}/activity?chain=&granularity=&from=&to= — the strategy's volume series
 *   (granularity hour | day, default day; from/to ISO 8601, default the last 30 days or 48 hours) and
 *   its latest 10 swaps. Unknown strategy: 404.
 *
 * Both in the `strategy-detail` bucket, cached like the other catalogue reads (rest/httpCache.ts).
 */

const time = (name: string) =>
  queryText(name, 40).refine((v) => !Number.isNaN(Date.parse(v)), `${name} must be an ISO 8601 date-time.`);

const parameters = {
  address: z
    .string()
    .regex(ADDRESS, 'address must be an address: 0x followed by 40 hex characters.')
    .transform((a) => a.toLowerCase()),
  hash: z
    .string()
    .regex(HASH, 'hash must be a strategy hash: 0x followed by 64 hex characters.')
    .transform((h) => h.toLowerCase()),
  chain: queryText('chain', 64),
  limit: queryInteger('limit', 1, MAX_LIMIT),
  cursor: queryText('cursor', 400),
  granularity: z.enum(['hour', 'day'], { error: 'granularity must be one of hour, day.' }),
  from: time('from'),
  to: time('to'),
};

type Name = keyof typeof parameters;
const param = <K extends Name>(ctx: RouteContext, name: K, required = false) =>
  queryParam(ctx, parameters, name, required);

/** A path parameter through its schema, or 400 naming it. */
function pathParam<K extends 'address' | 'hash'>(
  ctx: RouteContext,
  name: K,
): z.infer<(typeof parameters)[K]> {
  const parsed = parameters[name].safeParse(ctx.req.params[name]);
  if (!parsed.success) throw ApiError.invalid(name, parsed.error.issues[0]?.message ?? `${name} is invalid.`);
  return parsed.data as z.infer<(typeof parameters)[K]>;
}

type Window = NonNullable<MakerQuery['maker']>['activity'][number];
const totals = (w: Window | undefined) => ({
  volumeUsd: w?.volumeUsd ?? 0,
  swapCount: w?.swapCount ?? 0,
  makerFeesUsd: w?.makerFeesUsd ?? 0,
  protocolFeesUsd: w?.protocolFeesUsd ?? 0,
});
const windowOf = (w: Window | undefined) => ({ ...totals(w), since: w?.since ?? null });

const makerRoute: RestRoute = {
  method: 'GET',
  path: '/api/makers/:address',
  bucket: 'strategy-detail',
  doc: {
    operationId: 'getMaker',
    summary: 'One maker: positions, TVL, volume, fees and APY',
    descriptionValues: { MAX_LIMIT, DEFAULT_LIMIT },
    tags: ['Catalogue'],
    params: z.object({
      address: parameters.address.meta({
        examples: ['0x00000000000000000000000000000000000abc01'],
      }),
    }),
    query: z.object({
      chain: parameters.chain.meta({
        examples: ['base'],
      }),
      limit: parameters.limit.optional().meta({
        examples: [20],
      }),
      cursor: parameters.cursor.optional(),
    }),
    response: makerBody,
    errors: ['INVALID_PARAMETER', 'NOT_FOUND', 'UNSUPPORTED_CHAIN', 'UPSTREAM_UNAVAILABLE'],
    errorExamples: {
      INVALID_PARAMETER: { message: 'chain is required.', parameter: 'chain' },
      NOT_FOUND: { message: 'No maker 0x00000000000000000000000000000000000abc01 on chain "base".' },
    },
  },
  async handle(ctx) {
    const address = pathParam(ctx, 'address');
    const chain = param(ctx, 'chain', true)!;
    const limit = param(ctx, 'limit') ?? DEFAULT_LIMIT;
    const variables = { chain, address, first: limit, after: param(ctx, 'cursor') };
    let result: MakerQuery;
    try {
      result = await ctx.operations.run(MakerDocument, variables, ctx.graphql());
    } catch (error) {
      // The connection names its cursor `after`; the path's parameter is `cursor`.
      if (error instanceof ApiError && error.parameter === 'after')
        throw ApiError.invalid('cursor', error.message.replace(/^after/, 'cursor'));
      throw error;
    }
    const m = result.maker;
    if (!m) throw ApiError.notFound(`No maker ${address} on chain "${chain}".`, 'address');
    const [d1, d7, d30, lifetime] = m.activity;
    const data = {
      address: m.address,
      chain: m.chain,
      chainId: m.chainId,
      positions: m.positions,
      tvl: m.tvl,
      liquidity: m.liquidity,
      volume: { d1: windowOf(d1), d7: windowOf(d7), d30: windowOf(d30), lifetime: totals(lifetime) },
      earnings: m.earnings,
      lastSwapAt: m.lastSwapAt,
      strategies: m.strategies.edges.map((e) => e.node),
      page: { limit, nextCursor: m.strategies.pageInfo.hasNextPage ? m.strategies.pageInfo.endCursor : null },
    };
    return { body: readBody(ctx, data) };
  },
};

const activityRoute: RestRoute = {
  method: 'GET',
  path: '/api/strategies/:hash/activity',
  bucket: 'strategy-detail',
  doc: {
    operationId: 'getStrategyActivity',
    summary: "A strategy's volume series and latest swaps",
    tags: ['Catalogue'],
    params: z.object({
      hash: parameters.hash.meta({
        examples: ['0x5f1c3a0e1b6b0f7f2d86d8e3d1c2a0f9c3b4e5d6a7b8c9d0e1f2a3b4c5d6e7f8'],
      }),
    }),
    query: z.object({
      chain: parameters.chain.optional().meta({ examples: ['base'] }),
      granularity: parameters.granularity.default('day'),
      from: parameters.from.optional().meta({
        examples: ['2026-11-01T00:00:00Z'],
      }),
      to: parameters.to.optional().meta({
        examples: ['2026-11-26T00:00:00Z'],
      }),
    }),
    response: strategyActivityBody,
    errors: ['INVALID_PARAMETER', 'NOT_FOUND', 'UNSUPPORTED_CHAIN', 'UPSTREAM_UNAVAILABLE'],
    errorExamples: {
      INVALID_PARAMETER: { message: 'granularity must be one of hour, day.', parameter: 'granularity' },
      NOT_FOUND: {
        message:
          'No strategy 0x5f1c3a0e1b6b0f7f2d86d8e3d1c2a0f9c3b4e5d6a7b8c9d0e1f2a3b4c5d6e7f8 in the catalogue.',
      },
    },
  },
  async handle(ctx) {
    const hash = pathParam(ctx, 'hash');
    const chain = param(ctx, 'chain');
    const granularity = param(ctx, 'granularity') ?? 'day';
    const variables = {
      hash,
      chain,
      granularity,
      from: param(ctx, 'from'),
      to: param(ctx, 'to'),
    };
    const { strategy } = await ctx.operations.run(StrategyActivityDocument, variables, ctx.graphql());
    if (!strategy) {
      throw ApiError.notFound(
        chain
          ? `No strategy ${hash} on chain "${chain}" in the catalogue.`
          : `No strategy ${hash} in the catalogue.`,
        'hash',
      );
    }
    const { activity, recentSwaps, ...facts } = strategy;
    const data = {
      strategy: facts,
      series: { granularity, from: activity.from, to: activity.to, buckets: activity.buckets },
      recentSwaps,
    };
    return { body: readBody(ctx, data) };
  },
};

export const analyticsRoutes: RestRoute[] = [makerRoute, activityRoute];
