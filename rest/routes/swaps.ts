import type { z } from 'zod';
import { parseJsonBody } from '../../lib/jsonBody.js';
import { PREPARE_NOTE } from '../../resolvers/positions/index.js';
import { PrepareSwapDocument } from '../generated/graphql.js';
import { type RestRoute, readBody } from '../route.js';
import { type preparedSwap, preparedSwapBody, swapRequest, swapRequestSchema } from '../schemas/swaps.js';

/** The body of POST /v1/swaps; the first problem is a 400 INVALID_PARAMETER naming its field. */
export function parseSwapRequest(body: unknown): z.output<typeof swapRequestSchema> {
  return parseJsonBody(swapRequestSchema, body, {
    notObject: 'The body must be a JSON object.',
    unknownField: (field) => `${field}: unknown field, not part of the request.`,
  });
}

export const swapRoutes: RestRoute[] = [
  {
    method: 'POST',
    path: '/v1/swaps',
    bucket: 'write',
    auth: { scope: 'prepare' },
    body: true,
    doc: {
      operationId: 'prepareSwap',
      summary: "Prepare a taker's swap against one live strategy",
      tags: ['Swaps'],
      body: swapRequest,
      bodyExample: {
        chain: 'base',
        hash: `0x${'5f'.repeat(32)}`,
        wallet: '0x2222222222222222222222222222222222222222',
        amount: '1000000',
        direction: 'aToB',
        slippageBps: 50,
        deadlineSeconds: 600,
      },
      response: preparedSwapBody,
      errors: [
        'INVALID_PARAMETER',
        'NOT_FOUND',
        'UNSUPPORTED_CHAIN',
        'UNPROCESSABLE',
        'UPSTREAM_UNAVAILABLE',
        'UPSTREAM_TIMEOUT',
      ],
      errorExamples: {
        INVALID_PARAMETER: { message: 'slippageBps: must be at most 5000.', parameter: 'slippageBps' },
      },
    },
    async handle(ctx) {
      const input = parseSwapRequest(ctx.req.body);
      const result = await ctx.operations.run(PrepareSwapDocument, { input }, ctx.graphql());
      const s = result.prepareSwap;
      const q = s.quote;
      const fee = (f: typeof q.protocolFee) => ({
        amount: f.amount,
        fee1e9: f.fee1e9,
        bps: f.bps,
        percent: f.percent,
      });
      const token = (t: typeof q.tokenIn) => ({ symbol: t.symbol, address: t.address, decimals: t.decimals });
      const data: z.infer<typeof preparedSwap> = {
        chain: s.chain,
        chainId: s.chainId,
        wallet: s.wallet,
        strategyHash: s.strategyHash,
        direction: s.direction as z.infer<typeof preparedSwap>['direction'],
        router: s.router,
        transactions: s.transactions.map((t) => ({
          step: t.step,
          purpose: t.purpose as 'approve' | 'swap',
          to: t.to,
          value: t.value,
          data: t.data,
          description: t.description,
        })),
        quote: {
          tokenIn: token(q.tokenIn),
          tokenOut: token(q.tokenOut),
          amountIn: q.amountIn,
          amountOut: q.amountOut,
          minAmountOut: q.minAmountOut,
          slippageBps: q.slippageBps,
          deadline: q.deadline,
          protocolFee: fee(q.protocolFee),
          makerFee: q.makerFee ? fee(q.makerFee) : null,
          effectivePrice: q.effectivePrice,
          blockNumber: Number(q.blockNumber),
        },
      };
      return { body: readBody(ctx, data, { preparedAt: s.preparedAt, note: PREPARE_NOTE }) };
    },
  },
];
