/**
 * The curve of a new position: the `strategy` a prepare asks for and what the answer says it built
 * (resolvers/positions/strategy.ts), with the program decoded as the strategy detail decodes it.
 */

import type { Hex } from 'viem';
import { describeProgram } from '../chain/program.js';
import type { PositionStrategy as PositionStrategyShape } from '../resolvers/positions/strategy.js';
import { builder } from './builder.js';
import { enumOf } from './enums.js';
import { StrategyProgram } from './program.js';
import { as } from './valueFormats.js';

export const StrategyKind = enumOf('StrategyKind', 'The curve a position runs.', {
  xyc: 'x·y=k over the two deposits.',
  concentrated: 'x·y=k with the liquidity concentrated in a price range.',
  pegged: 'A curve that stays flat near a peg.',
});

const PriceRangeInput = builder.inputType('PriceRangeInput', {
  description: "A range of the price of the second deposit's token in the first's, as decimal text.",
  fields: (t) => ({
    min: t.string({ required: true, description: 'The lowest price.' }),
    max: t.string({ required: true, description: 'The highest price.' }),
  }),
});

export const PositionStrategyInput = builder.inputType('PositionStrategyInput', {
  description:
    'The curve of a new position (absent: xyc). concentrated needs priceRange; pegged takes pegPrice and flatBandPercent.',
  fields: (t) => ({
    kind: t.field({ type: StrategyKind, required: true, description: 'Which curve.' }),
    priceRange: t.field({
      type: PriceRangeInput,
      required: false,
      description:
        'concentrated: the range; it must contain the market price of the configured USD prices, and the deposits must open it near that price.',
    }),
    pegPrice: t.string({ required: false, description: 'pegged: the peg (default "1").' }),
    flatBandPercent: t.float({
      required: false,
      description: 'pegged: the flat band, ± percent (default 0.2).',
    }),
  }),
});

const PriceRange = builder.objectRef<{ min: string; max: string }>('PriceRange').implement({
  description: "A range of the price of the second deposit's token in the first's, as asked.",
  fields: (t) => ({
    min: t.exposeString('min', { description: 'The lowest price.' }),
    max: t.exposeString('max', { description: 'The highest price.' }),
  }),
});

export const PositionStrategy = builder
  .objectRef<PositionStrategyShape & { program: Hex }>('PositionStrategy')
  .implement({
    description: 'The curve the prepared order runs, and its program decoded instruction by instruction.',
    fields: (t) => ({
      kind: t.field({ type: StrategyKind, description: 'Which curve.', resolve: (s) => s.kind }),
      priceRange: t.field({
        type: PriceRange,
        nullable: true,
        description: 'concentrated: the range asked; null for the other kinds.',
        resolve: (s) => s.priceRange,
      }),
      sqrtPriceMin: t.exposeString('sqrtPriceMin', {
        nullable: true,
        description:
          'concentrated: the lower bound shipped, sqrt(P)·1e18 with P in base units of the higher-address token per base unit of the other.',
        extensions: as('baseUnits'),
      }),
      sqrtPriceMax: t.exposeString('sqrtPriceMax', {
        nullable: true,
        description: 'concentrated: the upper bound shipped, on the same scale.',
        extensions: as('baseUnits'),
      }),
      pegPrice: t.exposeString('pegPrice', { nullable: true, description: 'pegged: the peg.' }),
      flatBandPercent: t.exposeFloat('flatBandPercent', {
        nullable: true,
        description: 'pegged: how far either side of the peg, in percent, the price stays nearly flat.',
      }),
      openingPrice: t.exposeFloat('openingPrice', {
        nullable: true,
        description:
          "The price of the second deposit's token in the first's the deposits open the position at.",
      }),
      program: t.field({
        type: StrategyProgram,
        description: 'The program of the order, decoded as the strategy detail decodes a shipped one.',
        resolve: (s) => describeProgram(s.program),
      }),
    }),
  });
