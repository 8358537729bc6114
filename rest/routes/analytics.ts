import { z } from 'zod';
import { makerBody, strategyActivityBody } from '../../contract/schemas/analytics.js';
import { ApiError } from '../../lib/errors.js';
import { DEFAULT_LIMIT, MAX_LIMIT } from '../../resolvers/catalogue/params.js';
import { nextCursorOf, REST_PAGING_NAMES } from '../../resolvers/connection.js';
import { MakerDocument, type MakerQuery, StrategyActivityDocument } from '../generated/graphql.js';
import { operationRoute } from '../operationRoute.js';
import {
  chainKey,
  makerAddress,
  pageCursor,
  pageLimit,
  paramsOf,
  queryOf,
  strategyHashParam,
  variableEnum,
} from '../parameters.js';
import { queryText } from '../queryValues.js';
import { type RestRoute, readBody } from '../route.js';

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

const makerParams = z.object({ address: makerAddress() });
const makerQuery = z.object({
  chain: chainKey(),
  limit: pageLimit(MAX_LIMIT).optional(),
  cursor: pageCursor().optional(),
});
const activityParams = z.object({ hash: strategyHashParam() });
const activityQuery = z.object({
  chain: chainKey().optional(),
  granularity: variableEnum(StrategyActivityDocument, 'granularity').default('day'),
  from: time('from')
    .optional()
    .meta({ examples: ['2026-11-01T00:00:00Z'] }),
  to: time('to')
    .optional()
    .meta({ examples: ['2026-11-26T00:00:00Z'] }),
});

type Window = NonNullable<MakerQuery['maker']>['activity'][number];
const totals = (w: Window | undefined) => ({
  volumeUsd: w?.volumeUsd ?? 0,
  swapCount: w?.swapCount ?? 0,
  makerFeesUsd: w?.makerFeesUsd ?? 0,
  protocolFeesUsd: w?.protocolFeesUsd ?? 0,
});
const windowOf = (w: Window | undefined) => ({ ...totals(w), since: w?.since ?? null });

const makerRoute = operationRoute({
  method: 'GET',
  path: '/api/makers/:address',
  bucket: 'strategy-detail',
  doc: {
    operationId: 'getMaker',
    descriptionValues: { MAX_LIMIT, DEFAULT_LIMIT },
    params: makerParams,
    query: makerQuery,
    response: makerBody,
  },
  operation: MakerDocument,
  variables: (ctx) => {
    const { address } = paramsOf(ctx, makerParams);
    const { chain, limit = DEFAULT_LIMIT, cursor } = queryOf(ctx, makerQuery);
    return { chain, address, first: limit, after: cursor };
  },
  renames: REST_PAGING_NAMES,
  answer: (ctx, { maker: m }, { chain, address, first: limit }) => {
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
      page: { limit, nextCursor: nextCursorOf(m.strategies.pageInfo) },
    };
    return { body: readBody(ctx, data) };
  },
});

const activityRoute = operationRoute({
  method: 'GET',
  path: '/api/strategies/:hash/activity',
  bucket: 'strategy-detail',
  doc: {
    operationId: 'getStrategyActivity',
    params: activityParams,
    query: activityQuery,
    response: strategyActivityBody,
  },
  operation: StrategyActivityDocument,
  variables: (ctx) => ({ ...paramsOf(ctx, activityParams), ...queryOf(ctx, activityQuery) }),
  answer: (ctx, { strategy }, { hash, chain, granularity }) => {
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
});

export const analyticsRoutes: RestRoute[] = [makerRoute, activityRoute];
