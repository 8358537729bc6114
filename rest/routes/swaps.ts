import { z } from 'zod';
import { preparedSwapBody, swapRequestSchema } from '../../contract/schemas/swaps.js';
import { parseJsonBody } from '../../lib/jsonBody.js';
import { PREPARE_NOTE } from '../../resolvers/positions/index.js';
import { PrepareSwapDocument } from '../generated/graphql.js';
import { operationRoute } from '../operationRoute.js';
import { type RestRoute, readBody } from '../route.js';
import { simulateOf, simulateQuery, withoutNull } from '../simulate.js';

/** The body of POST /v1/swaps; the first problem is a 400 INVALID_PARAMETER naming its field. */
export function parseSwapRequest(body: unknown): z.output<typeof swapRequestSchema> {
  return parseJsonBody(swapRequestSchema, body, {
    notObject: 'The body must be a JSON object.',
    unknownField: (field) => `${field}: unknown field, not part of the request.`,
  });
}

export const swapRoutes: RestRoute[] = [
  operationRoute({
    method: 'POST',
    path: '/v1/swaps',
    bucket: 'write',
    auth: { scope: 'prepare' },
    body: true,
    doc: {
      operationId: 'prepareSwap',
      // Inline, as every request body: a generated client types a component's defaulted member as
      // always present (it cannot tell a request from a response), so slippageBps would be required.
      query: z.object(simulateQuery),
      body: swapRequestSchema,
      response: preparedSwapBody,
    },
    operation: PrepareSwapDocument,
    variables: (ctx) => {
      const { simulate: inBody, ...request } = parseSwapRequest(ctx.req.body);
      const simulate = simulateOf(ctx, inBody);
      return { input: simulate ? { ...request, simulate } : request };
    },
    answer: (ctx, result) => {
      // As selected; the block number is a decimal string in the graph (a uint64), a number here; the
      // simulation's members only when asked.
      const { preparedAt, ...selected } = result.prepareSwap;
      const swap = withoutNull(selected, ['preflight', 'simulation']);
      const data = { ...swap, quote: { ...swap.quote, blockNumber: Number(swap.quote.blockNumber) } };
      return { body: readBody(ctx, data, { preparedAt, note: PREPARE_NOTE }) };
    },
  }),
];
