import { z } from 'zod';
import { makerLeaderboardBody } from '../../contract/schemas/analytics.js';
import { DEFAULT_LIMIT, MAX_LIMIT } from '../../resolvers/catalogue/params.js';
import { nextCursorOf, REST_PAGING_NAMES } from '../../resolvers/connection.js';
import { MakerLeaderboardDocument } from '../generated/graphql.js';
import { operationRoute } from '../operationRoute.js';
import { chainKey, pageCursor, pageLimit, queryOf, variableEnum } from '../parameters.js';
import { type RestRoute, readBody } from '../route.js';

/**
 * GET /api/makers?sort=apy|volume|fees|tvl&period=1d|7d|30d&chain=&limit=&cursor= — the makers
 * leaderboard, additive to SPEC §9: one persisted operation (makerLeaderboard), paged by cursor as the
 * strategy list, cached as the other catalogue reads (rest/httpCache.ts). Its figures are those of
 * the last roll-up refresh (`rankedAt` of each row).
 */

const query = z.object({
  sort: variableEnum(MakerLeaderboardDocument, 'sort').default('volume'),
  period: variableEnum(MakerLeaderboardDocument, 'period').default('7d'),
  chain: chainKey().optional(),
  limit: pageLimit(MAX_LIMIT).optional(),
  cursor: pageCursor().optional(),
});

const leaderboardRoute = operationRoute({
  method: 'GET',
  path: '/api/makers',
  bucket: 'strategies',
  doc: {
    operationId: 'getMakerLeaderboard',
    descriptionValues: { MAX_LIMIT, DEFAULT_LIMIT },
    query,
    response: makerLeaderboardBody,
  },
  operation: MakerLeaderboardDocument,
  variables: (ctx) => {
    const { sort, period, chain, limit = DEFAULT_LIMIT, cursor } = queryOf(ctx, query);
    return { sort, period, chain, first: limit, after: cursor };
  },
  renames: REST_PAGING_NAMES,
  answer: (ctx, { makerLeaderboard: board }, { sort, period, chain, first: limit }) => {
    const data = {
      period,
      sort,
      chain: chain === undefined ? null : ctx.services.registry.require(chain, 'chain').key,
      makers: board.edges.map((e) => e.node),
      page: { limit, nextCursor: nextCursorOf(board.pageInfo) },
    };
    return { body: readBody(ctx, data) };
  },
});

export const leaderboardRoutes: RestRoute[] = [leaderboardRoute];
