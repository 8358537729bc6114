import { z } from 'zod';
import { positionRequest, rebalancedBody } from '../../contract/schemas/positions.js';
import {
  POSITION_ID_PATTERN,
  parseIdempotencyKey,
  parsePositionId,
  parsePositionRequest,
  UUID_PATTERN,
} from '../../resolvers/positions/request.js';
import { RebalancePositionDocument } from '../generated/graphql.js';
import type { RestRoute } from '../route.js';
import { simulateOf, simulateQuery } from '../simulate.js';
import { preparedAnswer } from './positions.js';

/**
 * POST /v1/positions/{positionId}/rebalance: the body of POST /v1/positions, answered as a prepared
 * position whose bundle docks the old one first. It opens a position, so it counts in `prepare`.
 */
export const rebalanceRoutes: RestRoute[] = [
  {
    method: 'POST',
    path: '/v1/positions/:positionId/rebalance',
    bucket: 'prepare',
    auth: { scope: 'prepare' },
    body: true,
    doc: {
      operationId: 'rebalancePosition',
      params: z.object({
        positionId: z
          .string()
          .regex(POSITION_ID_PATTERN)
          .meta({ examples: ['0x5f1c3a0e1b6b0f7f2d86d8e3d1c2a0f9c3b4e5d6a7b8c9d0e1f2a3b4c5d6e7f8'] }),
      }),
      headers: z.object({
        'Idempotency-Key': z
          .string()
          .regex(UUID_PATTERN)
          .optional()
          .meta({ format: 'uuid', examples: ['123e4567-e89b-12d3-a456-426614174000'] }),
      }),
      query: z.object(simulateQuery),
      body: positionRequest,
      response: rebalancedBody,
    },
    async handle(ctx) {
      const positionId = parsePositionId(ctx.req.params.positionId);
      const idempotencyKey = parseIdempotencyKey(ctx.req.headers['idempotency-key']);
      const { simulate: inBody, ...request } = parsePositionRequest(ctx.req.body);
      const simulate = simulateOf(ctx, inBody);
      const result = await ctx.operations.run(
        RebalancePositionDocument,
        { positionId, input: simulate ? { ...request, simulate } : request },
        ctx.graphql({ idempotencyKey }),
      );
      return preparedAnswer(ctx, result.rebalancePosition);
    },
  },
];
