import { z } from 'zod';
import { PREPARE_NOTE } from '../../resolvers/positions/index.js';
import { POSITION_ID_PATTERN, parsePositionId } from '../../resolvers/positions/request.js';
import {
  type PositionActionFieldsFragment,
  PositionApprovalsDocument,
  PositionDockDocument,
} from '../generated/graphql.js';
import { queryOf } from '../parameters.js';
import { type RestRoute, type RouteContext, readBody } from '../route.js';
import { positionActionBody } from '../schemas/positions.js';
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

const example = (purpose: 'approve' | 'dock', to: string, data: string) => ({
  data: {
    positionId: `0x${'5f'.repeat(32)}`,
    strategyHash: `0x${'5f'.repeat(32)}`,
    chain: 'base',
    chainId: 8453,
    wallet: '0x1111111111111111111111111111111111111111',
    transactions: [{ step: 1, purpose, to, value: '0', data, description: 'Plain-language explanation.' }],
    calls: {
      version: '2.0.0',
      chainId: '0x2105',
      from: '0x1111111111111111111111111111111111111111',
      atomicRequired: false,
      calls: [{ to, data, value: '0x0' }],
    },
  },
  meta: {
    requestId: '7d3c2b1a-0f9e-4d8c-b7a6-5f4e3d2c1b0a',
    generatedAt: '2026-11-22T19:04:05.123Z',
    apiVersion: 'v1',
    freshnessSeconds: null,
    cached: false,
    preparedAt: '2026-11-22T19:04:05.123Z',
    note: PREPARE_NOTE,
  },
});

export const positionActionRoutes: RestRoute[] = [
  {
    method: 'POST',
    path: '/v1/positions/:positionId/approvals',
    bucket: 'write',
    auth: { scope: 'prepare' },
    doc: {
      operationId: 'preparePositionApprovals',
      summary: "Prepare the approvals that restore a position's coverage (top-up)",
      tags: ['Positions'],
      params: positionIdParam,
      query: approvalsQuery,
      response: positionActionBody,
      errors: [
        'INVALID_PARAMETER',
        'NOT_FOUND',
        'UNSUPPORTED_CHAIN',
        'UPSTREAM_UNAVAILABLE',
        'UPSTREAM_TIMEOUT',
      ],
      example: example(
        'approve',
        '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
        '0x095ea7b30000000000000000000000001111113ccf1426a8e30e2bff5e005d929bf6a90a000000000000000000000000000000000000000000000000000000003b9aca00',
      ),
    },
    async handle(ctx) {
      const positionId = parsePositionId(ctx.req.params.positionId);
      const { approval = 'exact' } = queryOf(ctx, approvalsQuery);
      const simulate = simulateOf(ctx);
      const result = await ctx.operations.run(
        PositionApprovalsDocument,
        { positionId, approval, ...(simulate ? { simulate } : {}) },
        ctx.graphql(),
      );
      return actionBody(ctx, result.preparePositionApprovals);
    },
  },
  {
    method: 'POST',
    path: '/v1/positions/:positionId/dock',
    bucket: 'write',
    auth: { scope: 'prepare' },
    doc: {
      operationId: 'preparePositionDock',
      summary: 'Prepare the unsigned dock (close) of a position',
      tags: ['Positions'],
      params: positionIdParam,
      query: z.object(simulateQuery),
      response: positionActionBody,
      errors: [
        'INVALID_PARAMETER',
        'NOT_FOUND',
        'UNPROCESSABLE',
        'UNSUPPORTED_CHAIN',
        'UPSTREAM_UNAVAILABLE',
        'UPSTREAM_TIMEOUT',
      ],
      errorExamples: {
        UNPROCESSABLE: {
          message: 'Position 0x5f… cannot be docked: it is already docked.',
          issues: [{ type: 'POSITION_NOT_ACTIVE', expected: 'shipped', actual: 'it is already docked.' }],
        },
      },
      example: example(
        'dock',
        '0x1111113ccf1426a8e30e2bff5e005d929bf6a90a',
        '0x28defc17000000000000000000000000111111338c5091e8440b67b168bae16a668ac0de',
      ),
    },
    async handle(ctx) {
      const positionId = parsePositionId(ctx.req.params.positionId);
      const simulate = simulateOf(ctx);
      const result = await ctx.operations.run(
        PositionDockDocument,
        { positionId, ...(simulate ? { simulate } : {}) },
        ctx.graphql(),
      );
      return actionBody(ctx, result.preparePositionDock);
    },
  },
];
