import { z } from 'zod';
import { AMOUNT_PATTERN, simulateField, WALLET_PATTERN } from '../../resolvers/positions/request.js';
import { QUOTE_DIRECTIONS } from '../../resolvers/quote.js';
import { SWAP_LIMITS } from '../../resolvers/swaps.js';
import { PrepareSwapDocument } from '../../rest/generated/graphql.js';
import { operationSchema } from '../openapi/fromSelection.js';
import { component, readBody } from './common.js';
import { bundleSimulation, preparedTransaction, prepareMeta } from './positions.js';
import { blockNumber, quoteFee, quoteToken } from './quote.js';

/** POST /v1/swaps: the request the route parses with, and the prepared swap. */
export const swapRequestSchema = z.strictObject({
  chain: z.string({ error: 'must be a chain key such as "base"' }).min(1).max(64).meta({
    description: 'A chain key of the live catalogue (GET /api/chains).',
  }),
  hash: z
    .string({ error: 'must be a strategy hash' })
    .regex(/^0x[0-9a-fA-F]{64}$/, 'must be 0x followed by 64 hex characters')
    .meta({ description: 'The strategy to swap against: live, on the verified router, USDC/USDT.' }),
  wallet: z
    .string({ error: 'must be the 0x address that will sign' })
    .regex(WALLET_PATTERN, 'must match ^0x[a-fA-F0-9]{40}$')
    .meta({ description: 'The taker: the address that signs, pays tokenIn and receives tokenOut.' }),
  amount: z
    .string({ error: 'must be a string of base units, e.g. "1000000"' })
    .regex(AMOUNT_PATTERN, {
      error: 'must be an integer string of base units (digits only: no sign, point or exponent)',
      abort: true,
    })
    .refine((value) => BigInt(value) > 0n, 'must be greater than 0')
    .refine((value) => BigInt(value) < 1n << 256n, 'must fit in a uint256')
    .meta({ description: 'exactIn: base units of tokenIn to sell.', example: '1000000' }),
  direction: z.enum(QUOTE_DIRECTIONS, { error: 'must be aToB or bToA' }).meta({
    description: 'aToB sells tokenA (the lower address of the pair) for tokenB; bToA the reverse.',
  }),
  slippageBps: z
    .number({ error: 'must be an integer' })
    .int('must be an integer')
    .min(0, 'must be 0 or more')
    .max(SWAP_LIMITS.maxSlippageBps, `must be at most ${SWAP_LIMITS.maxSlippageBps}`)
    .default(SWAP_LIMITS.defaultSlippageBps)
    .meta({
      description:
        'Tolerated shortfall of the output on the 1e4 scale (50 = 0.5%): the swap carries minAmountOut = amountOut × (10000 − slippageBps) / 10000 and reverts below it.',
    }),
  deadlineSeconds: z
    .number({ error: 'must be an integer' })
    .int('must be an integer')
    .min(SWAP_LIMITS.minDeadlineSeconds, `must be at least ${SWAP_LIMITS.minDeadlineSeconds}`)
    .max(SWAP_LIMITS.maxDeadlineSeconds, `must be at most ${SWAP_LIMITS.maxDeadlineSeconds}`)
    .optional()
    .meta({
      description: `Seconds from now after which the swap reverts (default ${SWAP_LIMITS.defaultDeadlineSeconds}).`,
    }),
  simulate: simulateField,
});

/**
 * rest/operations/PrepareSwap.graphql: `preparedAt` goes to `meta`. The graph answers the direction as
 * text; the contract names its two values.
 */
export const preparedSwap = component(
  'PreparedSwap',
  operationSchema(PrepareSwapDocument, ['prepareSwap'], {
    omit: ['preparedAt'],
    replace: {
      direction: z.enum(QUOTE_DIRECTIONS),
      transactions: z.array(preparedTransaction).min(1),
      'quote.blockNumber': blockNumber,
    },
    // With `simulate` only: the route drops them when null.
    present: ['preflight', 'simulation'],
    optional: ['preflight', 'simulation'],
    fragments: {
      QuoteTokenFields: quoteToken,
      QuoteFeeFields: quoteFee,
      BundleSimulationFields: bundleSimulation,
    },
  }),
);

export const preparedSwapBody = component('PrepareSwapResponse', readBody(preparedSwap, prepareMeta));
