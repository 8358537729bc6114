import { z } from 'zod';
import { ApiError } from '../../lib/errors.js';
import { DEFAULT_LIMIT, MAX_LIMIT } from '../../resolvers/catalogue/params.js';
import { MakerLeaderboardDocument, type MakerLeaderboardQuery } from '../generated/graphql.js';
import { queryInteger, queryText } from '../queryValues.js';
import { queryParam, type RestRoute, type RouteContext, readBody } from '../route.js';
import { makerLeaderboardBody } from '../schemas/analytics.js';

/**
 * GET /api/makers?sort=apy|volume|fees|tvl&period=1d|7d|30d&chain=&limit=&cursor= — the makers
 * leaderboard, additive to SPEC §9: one persisted operation (makerLeaderboard), paged by cursor as the
 * strategy list, cached as the other catalogue reads (rest/httpCache.ts). Its figures are those of
 * the last roll-up refresh (`rankedAt` of each row).
 */

const parameters = {
  sort: z.enum(['apy', 'volume', 'fees', 'tvl'], { error: 'sort must be one of apy, volume, fees, tvl.' }),
  period: z.enum(['1d', '7d', '30d'], { error: 'period must be one of 1d, 7d, 30d.' }),
  chain: queryText('chain', 64),
  limit: queryInteger('limit', 1, MAX_LIMIT),
  cursor: queryText('cursor', 400),
};
const param = <K extends keyof typeof parameters>(ctx: RouteContext, name: K) =>
  queryParam(ctx, parameters, name);

const leaderboardRoute: RestRoute = {
  method: 'GET',
  path: '/api/makers',
  bucket: 'strategies',
  doc: {
    operationId: 'getMakerLeaderboard',
    summary: 'Makers ranked by APY, volume, fees or TVL over a period',
    descriptionValues: { MAX_LIMIT, DEFAULT_LIMIT },
    tags: ['Catalogue'],
    query: z.object({
      sort: parameters.sort.default('volume'),
      period: parameters.period.default('7d'),
      chain: parameters.chain.optional().meta({ examples: ['base'] }),
      limit: parameters.limit.optional().meta({ examples: [20] }),
      cursor: parameters.cursor.optional(),
    }),
    response: makerLeaderboardBody,
    errors: ['INVALID_PARAMETER', 'UNSUPPORTED_CHAIN', 'UPSTREAM_UNAVAILABLE'],
    errorExamples: {
      INVALID_PARAMETER: { message: 'sort must be one of apy, volume, fees, tvl.', parameter: 'sort' },
    },
  },
  async handle(ctx) {
    const sort = param(ctx, 'sort') ?? 'volume';
    const period = param(ctx, 'period') ?? '7d';
    const chain = param(ctx, 'chain');
    const limit = param(ctx, 'limit') ?? DEFAULT_LIMIT;
    const variables = { sort, period, chain, first: limit, after: param(ctx, 'cursor') };
    let result: MakerLeaderboardQuery;
    try {
      result = await ctx.operations.run(MakerLeaderboardDocument, variables, ctx.graphql());
    } catch (error) {
      // The connection names its cursor `after`; the path's parameter is `cursor`.
      if (error instanceof ApiError && error.parameter === 'after')
        throw ApiError.invalid('cursor', error.message.replace(/^after/, 'cursor'));
      throw error;
    }
    const board = result.makerLeaderboard;
    const data = {
      period,
      sort,
      chain: chain === undefined ? null : ctx.services.registry.require(chain, 'chain').key,
      makers: board.edges.map((e) => e.node),
      page: { limit, nextCursor: board.pageInfo.hasNextPage ? board.pageInfo.endCursor : null },
    };
    return { body: readBody(ctx, data) };
  },
};

export const leaderboardRoutes: RestRoute[] = [leaderboardRoute];
