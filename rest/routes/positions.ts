import { z } from 'zod';
import { positionRequest, positionStatusBody, preparedBody } from '../../contract/schemas/positions.js';
import { PREPARE_NOTE } from '../../resolvers/positions/index.js';
import {
  POSITION_ID_PATTERN,
  parseIdempotencyKey,
  parsePositionId,
  parsePositionRequest,
  UUID_PATTERN,
} from '../../resolvers/positions/request.js';
import {
  PositionStatusDocument,
  type PreparedPositionFieldsFragment,
  PreparePositionDocument,
} from '../generated/graphql.js';
import { operationRoute } from '../operationRoute.js';
import { type RestRoute, type RouteContext, readBody } from '../route.js';
import { simulateOf, simulateQuery, withoutNull } from '../simulate.js';

/**
 * A prepared position's body as selected: the two times go to `meta`, metadata only when the intent had
 * it and the simulation only when asked (each in its selected place: the fields after it stay after it).
 */
export function preparedAnswer(ctx: RouteContext, prepared: PreparedPositionFieldsFragment) {
  const { preparedAt, replayed, ...selected } = prepared;
  const data = withoutNull({ ...selected, preflight: withoutNull(selected.preflight, ['simulation']) }, [
    'metadata',
    'simulation',
  ]);
  return { body: readBody(ctx, data, { preparedAt, note: PREPARE_NOTE, replayed }) };
}

/**
 * POST /v1/positions (SPEC §4.9) and GET /v1/positions/{positionId} (SPEC §4.10). Key, scope, origin
 * and the per-key bucket are checked by rest/app.ts; here the header and body are validated (400
 * naming the field) before the persisted operation runs. Chain, key environment and token support
 * are decided by the resolver (422 / 403), still before any SQL or RPC.
 */
export const positionRoutes: RestRoute[] = [
  {
    method: 'POST',
    path: '/v1/positions',
    bucket: 'prepare',
    auth: { scope: 'prepare' },
    body: true,
    doc: {
      operationId: 'preparePosition',
      headers: z.object({
        'Idempotency-Key': z
          .string()
          .regex(UUID_PATTERN)
          .optional()
          .meta({
            format: 'uuid',
            examples: ['123e4567-e89b-12d3-a456-426614174000'],
          }),
      }),
      query: z.object(simulateQuery),
      body: positionRequest,
      response: preparedBody,
    },
    async handle(ctx) {
      const idempotencyKey = parseIdempotencyKey(ctx.req.headers['idempotency-key']);
      const { simulate: inBody, ...request } = parsePositionRequest(ctx.req.body);
      const simulate = simulateOf(ctx, inBody);
      const result = await ctx.operations.run(
        PreparePositionDocument,
        { input: simulate ? { ...request, simulate } : request },
        ctx.graphql({ idempotencyKey }),
      );
      return preparedAnswer(ctx, result.preparePosition);
    },
  },
  operationRoute({
    method: 'GET',
    path: '/v1/positions/:positionId',
    bucket: 'positions',
    auth: { scope: null },
    doc: {
      operationId: 'getPosition',
      params: z.object({
        positionId: z
          .string()
          .regex(POSITION_ID_PATTERN)
          .meta({
            examples: ['0x5f1c3a0e1b6b0f7f2d86d8e3d1c2a0f9c3b4e5d6a7b8c9d0e1f2a3b4c5d6e7f8'],
          }),
      }),
      response: positionStatusBody,
      responseHeaders: { 'Cache-Control': {} },
    },
    operation: PositionStatusDocument,
    variables: (ctx) => ({ positionId: parsePositionId(ctx.req.params.positionId) }),
    answer: (ctx, result) => {
      // The body as selected; the two facts about the reading go to `meta`.
      const { checkedAt, timestampsMeaning, ...status } = result.position;
      return {
        body: readBody(ctx, status, { checkedAt, timestampsMeaning }),
        headers: { 'Cache-Control': 'no-store' },
      };
    },
  }),
];
