import { z } from 'zod';
import { QUOTE_DIRECTIONS } from '../../resolvers/quote.js';
import { address, baseUnits, component, hash32, meta } from './common.js';

/** The body of GET /api/quote (an open body of SPEC §2.8): an indicative, simulated exactIn quote. */

export const quoteToken = z.object({ symbol: z.string(), address, decimals: z.int().min(0) });

export const quoteFee = component(
  'QuoteFee',
  z
    .object({
      amount: baseUnits.meta({ description: 'Base units of tokenIn.' }),
      fee1e9: z.int().min(0).meta({ description: 'On-chain rate, 1e9 = 100%.' }),
      bps: z.number().min(0).meta({ description: 'Rate on the API 1e7 scale (5000 = 0.05%).' }),
      percent: z.string().meta({ description: 'Rate as percentage text, e.g. "0.05".', examples: ['0.05'] }),
    })
    .meta({ description: "A fee the strategy's program takes from the input, as the router computes it." }),
);

export const quote = component(
  'Quote',
  z
    .looseObject({
      strategyHash: hash32,
      chain: z.string(),
      chainId: z.int(),
      pair: z.string().meta({ examples: ['USDC/USDT'] }),
      direction: z.enum(QUOTE_DIRECTIONS),
      exactIn: z.boolean(),
      router: address.meta({ description: 'The verified router the quote was simulated on.' }),
      tokenIn: quoteToken,
      tokenOut: quoteToken,
      amountIn: baseUnits.meta({ description: 'Base units of tokenIn.' }),
      amountOut: baseUnits.meta({ description: 'Base units of tokenOut.' }),
      protocolFee: quoteFee,
      makerFee: quoteFee.nullable(),
      effectivePrice: z
        .number()
        .meta({ description: 'tokenOut per tokenIn, in whole tokens (amounts adjusted for decimals).' }),
      blockNumber: z.int().min(0).meta({ description: 'The block the simulation read.' }),
      indicative: z.boolean(),
      signed: z.literal(false).meta({ description: 'Always false: the service signs nothing.' }),
      note: z.string(),
    })
    .meta({
      description: 'An indicative exactIn quote simulated on the verified router. Nothing is signed or sent.',
    }),
);

export const quoteBody = component('QuoteResponse', z.looseObject({ data: quote, meta }));
