import {
  DEFAULT_QUOTE_CHAIN,
  type QuoteResult,
  type QuoteToken as QuoteTokenShape,
  quote,
} from '../resolvers/quote.js';
import type { QuoteFee } from '../resolvers/quoteFees.js';
import { builder } from './builder.js';
import { enumOf } from './enums.js';
import { as } from './valueFormats.js';

export const QuoteDirection = enumOf(
  'QuoteDirection',
  'A_TO_B sells tokenA (the lower address of the pair) for tokenB; B_TO_A the reverse.',
  { aToB: 'Sell tokenA (the lower address) for tokenB.', bToA: 'Sell tokenB for tokenA.' },
);

export const QuoteToken = builder.objectRef<QuoteTokenShape>('QuoteToken').implement({
  description: 'A token of a quote.',
  fields: (t) => ({
    symbol: t.exposeString('symbol', { description: 'Token symbol.' }),
    address: t.exposeString('address', { description: 'Token contract address.', extensions: as('address') }),
    decimals: t.exposeInt('decimals', { description: 'Token decimals.', extensions: as('count') }),
  }),
});

export const QuoteFeeRef = builder.objectRef<QuoteFee>('QuoteFee').implement({
  description: "A fee the strategy's program takes from the input, as the router computes it.",
  fields: (t) => ({
    amount: t.exposeString('amount', { description: 'Base units of tokenIn.', extensions: as('baseUnits') }),
    fee1e9: t.exposeInt('fee1e9', { description: 'On-chain rate, 1e9 = 100%.', extensions: as('count') }),
    bps: t.exposeFloat('bps', {
      description: 'Rate on the API 1e7 scale (5000 = 0.05%).',
      extensions: as('nonNegative'),
    }),
    fee1e7: t.float({
      description:
        'Rate on the API 1e7 scale (10000000 = 100%; 5000 = 0.05%): the value of bps, under a name that does not read as basis points.',
      extensions: as('nonNegative'),
      resolve: (fee) => fee.bps,
    }),
    percent: t.exposeString('percent', {
      description: 'Rate as percentage text, e.g. "0.05".',
      extensions: as(null, ['0.05']),
    }),
  }),
});

const Quote = builder.objectRef<QuoteResult>('Quote').implement({
  description: 'An indicative exactIn quote simulated on the verified router. Nothing is signed or sent.',
  fields: (t) => ({
    strategyHash: t.exposeString('strategyHash', {
      description: 'The strategy quoted against.',
      extensions: as('hash32'),
    }),
    chain: t.exposeString('chain', { description: 'Chain key.' }),
    chainId: t.exposeInt('chainId', { description: 'EVM chain id.' }),
    pair: t.exposeString('pair', {
      description: "The strategy's pair (symbols in alphabetical order).",
      extensions: as(null, ['USDC/USDT']),
    }),
    direction: t.field({
      description: 'Which token is sold.',
      type: QuoteDirection,
      resolve: (q) => q.direction,
    }),
    exactIn: t.exposeBoolean('exactIn', { description: 'Always true: the amount is the input.' }),
    router: t.exposeString('router', {
      description: 'The verified router the quote was simulated on.',
      extensions: as('address'),
    }),
    tokenIn: t.field({ description: 'The token sold.', type: QuoteToken, resolve: (q) => q.tokenIn }),
    tokenOut: t.field({ description: 'The token bought.', type: QuoteToken, resolve: (q) => q.tokenOut }),
    amountIn: t.exposeString('amountIn', {
      description: 'Base units of tokenIn.',
      extensions: as('baseUnits'),
    }),
    amountOut: t.exposeString('amountOut', {
      description: 'Base units of tokenOut.',
      extensions: as('baseUnits'),
    }),
    protocolFee: t.field({
      description: 'The protocol fee taken from the input.',
      type: QuoteFeeRef,
      resolve: (q) => q.protocolFee,
    }),
    makerFee: t.field({
      description: "The maker's own fee taken from the input; null when the program has none.",
      type: QuoteFeeRef,
      nullable: true,
      resolve: (q) => q.makerFee,
    }),
    effectivePrice: t.exposeFloat('effectivePrice', {
      description: 'tokenOut per tokenIn, in whole tokens (amounts adjusted for decimals).',
    }),
    blockNumber: t.exposeString('blockNumber', { description: 'The block the simulation read.' }),
    indicative: t.exposeBoolean('indicative', {
      description: 'Always true: a simulation at one block, not a commitment.',
    }),
    signed: t.exposeBoolean('signed', { description: 'Always false: the service signs nothing.' }),
    note: t.exposeString('note', { description: 'What the quote is and is not (nothing signed or sent).' }),
  }),
});

builder.queryField('quote', (t) =>
  t.field({
    type: Quote,
    description: 'Indicative quote against one open USDC/USDT strategy of the verified router (SPEC §4.4).',
    args: {
      hash: t.arg.string({ required: true, description: 'Strategy hash: 0x followed by 64 hex characters.' }),
      chain: t.arg.string({
        required: false,
        defaultValue: DEFAULT_QUOTE_CHAIN,
        description: 'Chain key; a key not in the live catalogue is UNSUPPORTED_CHAIN.',
      }),
      amount: t.arg.string({ required: true, description: 'Base units of tokenIn.' }),
      direction: t.arg({
        description: 'aToB (default) or bToA.',
        type: QuoteDirection,
        required: false,
        defaultValue: 'aToB',
      }),
    },
    resolve: (_root, args, ctx) =>
      quote(ctx, {
        hash: args.hash,
        chain: args.chain ?? DEFAULT_QUOTE_CHAIN,
        amount: args.amount,
        direction: args.direction ?? 'aToB',
      }),
  }),
);
