import {
  type PreparedSwap as PreparedSwapShape,
  prepareSwap,
  type SwapQuote as SwapQuoteShape,
} from '../resolvers/swaps.js';
import { builder } from './builder.js';
import { PreparedTransaction } from './position.js';
import { QuoteDirection, QuoteFeeRef, QuoteToken } from './quote.js';

const PrepareSwapInput = builder.inputType('PrepareSwapInput', {
  description: 'The body of POST /v1/swaps, already validated by the REST layer.',
  fields: (t) => ({
    chain: t.string({ required: true }),
    hash: t.string({ required: true, description: 'The strategy to swap against.' }),
    wallet: t.string({ required: true, description: 'The taker: the address that will sign.' }),
    amount: t.string({ required: true, description: 'exactIn amount of tokenIn, base units.' }),
    direction: t.field({ type: QuoteDirection, required: true }),
    slippageBps: t.int({ required: false, defaultValue: 50, description: '1e4 scale: 50 = 0.5%; 0..5000.' }),
    deadlineSeconds: t.int({ required: false, description: 'Seconds from now; default 1200.' }),
  }),
});

const SwapQuote = builder.objectRef<SwapQuoteShape>('SwapQuote').implement({
  fields: (t) => ({
    tokenIn: t.field({ type: QuoteToken, resolve: (q) => q.tokenIn }),
    tokenOut: t.field({ type: QuoteToken, resolve: (q) => q.tokenOut }),
    amountIn: t.exposeString('amountIn'),
    amountOut: t.exposeString('amountOut', { description: 'Simulated at blockNumber.' }),
    minAmountOut: t.exposeString('minAmountOut', {
      description: 'amountOut less slippageBps: the threshold.',
    }),
    slippageBps: t.exposeInt('slippageBps'),
    deadline: t.exposeInt('deadline', { description: 'Unix seconds; the swap reverts after it.' }),
    protocolFee: t.field({ type: QuoteFeeRef, resolve: (q) => q.protocolFee }),
    makerFee: t.field({ type: QuoteFeeRef, nullable: true, resolve: (q) => q.makerFee }),
    effectivePrice: t.exposeFloat('effectivePrice'),
    blockNumber: t.exposeString('blockNumber'),
  }),
});

const PreparedSwap = builder.objectRef<PreparedSwapShape>('PreparedSwap').implement({
  description:
    "A taker's swap, unsigned: approve (where short) then swap with a minimum output and deadline.",
  fields: (t) => ({
    chain: t.exposeString('chain'),
    chainId: t.exposeInt('chainId'),
    wallet: t.exposeString('wallet'),
    strategyHash: t.exposeString('strategyHash'),
    direction: t.exposeString('direction'),
    router: t.exposeString('router'),
    transactions: t.field({ type: [PreparedTransaction], resolve: (s) => s.transactions }),
    quote: t.field({ type: SwapQuote, resolve: (s) => s.quote }),
    preparedAt: t.field({ type: 'DateTime', resolve: (s) => s.preparedAt }),
  }),
});

builder.mutationField('prepareSwap', (t) =>
  t.field({
    type: PreparedSwap,
    description: "Prepares a taker's swap against one live verified strategy (POST /v1/swaps).",
    args: { input: t.arg({ type: PrepareSwapInput, required: true }) },
    resolve: (_root, { input }, ctx) => prepareSwap(ctx, input),
  }),
);
