import { z } from 'zod';
import { positionActionBody } from '../../contract/schemas/positions.js';
import { PREPARE_NOTE } from '../../resolvers/positions/index.js';
import { POSITION_ID_PATTERN, parsePositionId } from '../../resolvers/positions/request.js';
import {
  type PositionActionFieldsFragment,
  PositionApprovalsDocument,
  PositionDockDocument,
} from '../generated/graphql.js';
import { operationRoute } from '../operationRoute.js';
import { queryOf } from '../parameters.js';
import { type RestRoute, type RouteContext, readBody } from '../route.js';
import { simulateOf, simulateQuery, withoutNull } from '../simulate.js';

/**
 * The maker's actions on a position of this key: POST /v1/positions/{positionId}/approvals
 * (top-up) and POST /v1/positions/{positionId}/dock (close). Both return unsigned transactions in the
 * PositionAction shape and count in the SPEC §8 `ship, swap` bucket (`write`, 6 per 60 s per key).
 */
const positionIdParam = z.object({
  positionId: z
    .string()
    .regex(POSITION_ID_PATTERN)
    .meta({
      examples: ['0x5f1c3a0e1b6b0f7f2d86d8e3d1c2a0f9c3b4e5d6a7b8c9d0e1f2a3b4c5d6e7f8'],
    }),
});

const approvalsQuery = z.object({
  approval: z.enum(['exact', 'unlimited'], { error: 'must be "exact" or "unlimited"' }).optional(),
  ...simulateQuery,
});

/** As selected (rest/operations/PositionActionFields.graphql); the time goes to `meta`. */
function actionBody(ctx: RouteContext, p: PositionActionFieldsFragment) {
  const { preparedAt, ...selected } = p;
  const data = withoutNull(selected, ['preflight', 'simulation']);
  return { body: readBody(ctx, data, { preparedAt, note: PREPARE_NOTE }) };
}

export const positionActionRoutes: RestRoute[] = [
  operationRoute({
    method: 'POST',
    path: '/v1/positions/:positionId/approvals',
    bucket: 'write',
    auth: { scope: 'prepare' },
    doc: {
      operationId: 'preparePositionApprovals',
      descriptionValues: { PREPARE_NOTE },
      params: positionIdParam,
      query: approvalsQuery,
      response: positionActionBody,
    },
    operation: PositionApprovalsDocument,
    variables: (ctx) => {
      const positionId = parsePositionId(ctx.req.params.positionId);
      const { approval = 'exact' } = queryOf(ctx, approvalsQuery);
      const simulate = simulateOf(ctx);
      return { positionId, approval, ...(simulate ? { simulate } : {}) };
    },
    answer: (ctx, result) => actionBody(ctx, result.preparePositionApprovals),
  }),
  operationRoute({
    method: 'POST',
    path: '/v1/positions/:positionId/dock',
    bucket: 'write',
    auth: { scope: 'prepare' },
    doc: {
      operationId: 'preparePositionDock',
      descriptionValues: { PREPARE_NOTE },
      params: positionIdParam,
      query: z.object(simulateQuery),
      response: positionActionBody,
    },
    operation: PositionDockDocument,
    variables: (ctx) => {
      const positionId = parsePositionId(ctx.req.params.positionId);
      const simulate = simulateOf(ctx);
      return { positionId, ...(simulate ? { simulate } : {}) };
    },
    answer: (ctx, result) => actionBody(ctx, result.preparePositionDock),
  }),
];
