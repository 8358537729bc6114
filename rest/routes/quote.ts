import { z } from 'zod';
import { quoteBody } from '../../contract/schemas/quote.js';
import {
  DEFAULT_QUOTE_CHAIN,
  HASH_PATTERN,
  parseQuoteAmount,
  QUOTE_DIRECTIONS,
} from '../../resolvers/quote.js';
import { QuoteDocument } from '../generated/graphql.js';
import { operationRoute } from '../operationRoute.js';
import { queryText } from '../queryValues.js';
import { queryParam, type RestRoute, type RouteContext, readBody } from '../route.js';

/**
 * GET /api/quote (SPEC §4.4). Parameters: hash (required), amount (required, base units), direction
 * (aToB | bToA, default aToB), chain (default `ethereum`: a chain key not in the registry is 422
 * UNSUPPORTED_CHAIN, so a call without `chain` is a 422 unless an `ethereum` chain is configured).
 */

/**
 * The query parameters as documented (the OpenAPI document can take this object as is). The route
 * reads them one by one so that the first failure is a 400 naming its parameter.
 */
export const quoteQuery = z.object({
  hash: queryText('hash').regex(
    HASH_PATTERN,
    'hash must be a strategy hash: 0x followed by 64 hex characters.',
  ),
  amount: queryText('amount').refine(
    (amount) => {
      try {
        parseQuoteAmount(amount);
        return true;
      } catch {
        return false;
      }
    },
    { error: 'amount must be a positive integer string in base units that fits in a uint256.' },
  ),
  direction: z
    .enum(QUOTE_DIRECTIONS, { error: `direction must be one of ${QUOTE_DIRECTIONS.join(', ')}.` })
    .optional(),
  chain: queryText('chain').optional(),
});

const parameters = quoteQuery.shape;

type Name = keyof typeof parameters;

const param = <K extends Name>(ctx: RouteContext, name: K, required: boolean) =>
  queryParam(ctx, parameters, name, required);

export const quoteRoutes: RestRoute[] = [
  operationRoute({
    method: 'GET',
    path: '/api/quote',
    bucket: 'quote',
    doc: {
      operationId: 'getQuote',
      descriptionValues: { DEFAULT_QUOTE_CHAIN },
      query: z.object({
        hash: parameters.hash.meta({
          examples: ['0x5f1c3a0e1b6b0f7f2d86d8e3d1c2a0f9c3b4e5d6a7b8c9d0e1f2a3b4c5d6e7f8'],
        }),
        chain: parameters.chain.default(DEFAULT_QUOTE_CHAIN).meta({
          examples: ['base'],
        }),
        amount: parameters.amount.meta({
          examples: ['1000000'],
        }),
        direction: parameters.direction.default('aToB'),
      }),
      response: quoteBody,
    },
    operation: QuoteDocument,
    // One by one, hash, amount, direction, chain (not the document's order): the first refusal names its
    // parameter, as it always has.
    variables: (ctx) => ({
      hash: param(ctx, 'hash', true)!,
      amount: param(ctx, 'amount', true)!,
      direction: param(ctx, 'direction', false) ?? 'aToB',
      chain: param(ctx, 'chain', false) ?? DEFAULT_QUOTE_CHAIN,
    }),
    // As selected; the block number is a decimal string in the graph (a uint64), a number here.
    answer: (ctx, { quote }) => ({
      body: readBody(ctx, { ...quote, blockNumber: Number(quote.blockNumber) }),
    }),
  }),
];
