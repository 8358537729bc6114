import { walletCalls } from '../domain/walletCalls.js';
import {
  type PreparedSwap as PreparedSwapShape,
  prepareSwap,
  type SwapQuote as SwapQuoteShape,
} from '../resolvers/swaps.js';
import { builder } from './builder.js';
import { BundleSimulation, SIMULATION_DESCRIPTION, SimulationPreflight } from './bundleSimulation.js';
import { PreparedTransaction } from './preparedPosition.js';
import { QuoteDirection, QuoteFeeRef, QuoteToken } from './quote.js';
import { as } from './valueFormats.js';
import { WalletCallBundle } from './walletCalls.js';

const PrepareSwapInput = builder.inputType('PrepareSwapInput', {
  description: 'The body of POST /v1/swaps, already validated by the REST layer.',
  fields: (t) => ({
    chain: t.string({ description: 'Chain key of the strategy.', required: true }),
    hash: t.string({ required: true, description: 'The strategy to swap against.' }),
    wallet: t.string({ required: true, description: 'The taker: the address that will sign.' }),
    amount: t.string({ required: true, description: 'exactIn amount of tokenIn, base units.' }),
    direction: t.field({ description: 'Which token is sold.', type: QuoteDirection, required: true }),
    slippageBps: t.int({ required: false, defaultValue: 50, description: '1e4 scale: 50 = 0.5%; 0..5000.' }),
    deadlineSeconds: t.int({ required: false, description: 'Seconds from now; default 1200.' }),
    simulate: t.boolean({
      required: false,
      description: 'True: the steps run in one eth_simulateV1 and the answer carries `simulation`.',
    }),
  }),
});

const SwapQuote = builder.objectRef<SwapQuoteShape>('SwapQuote').implement({
  description: 'The quote a prepared swap is built from, simulated on the verified router.',
  fields: (t) => ({
    tokenIn: t.field({ description: 'The token sold.', type: QuoteToken, resolve: (q) => q.tokenIn }),
    tokenOut: t.field({ description: 'The token bought.', type: QuoteToken, resolve: (q) => q.tokenOut }),
    amountIn: t.exposeString('amountIn', {
      description: 'Base units of tokenIn (exactIn).',
      extensions: as('baseUnits'),
    }),
    amountOut: t.exposeString('amountOut', {
      description: 'Simulated at blockNumber.',
      extensions: as('baseUnits'),
    }),
    minAmountOut: t.exposeString('minAmountOut', {
      description: 'amountOut less slippageBps: the threshold the swap carries.',
      extensions: as('baseUnits'),
    }),
    slippageBps: t.exposeInt('slippageBps', {
      description: 'The slippage allowed, 1e4 scale.',
      extensions: as('count'),
    }),
    deadline: t.exposeInt('deadline', { description: 'Unix seconds; the swap reverts after it.' }),
    protocolFee: t.field({
      description: 'The protocol fee taken from the input.',
      type: QuoteFeeRef,
      resolve: (q) => q.protocolFee,
    }),
    makerFee: t.field({
      description: "The maker's own fee; null when the program has none.",
      type: QuoteFeeRef,
      nullable: true,
      resolve: (q) => q.makerFee,
    }),
    effectivePrice: t.exposeFloat('effectivePrice', {
      description: 'tokenOut per tokenIn, in whole tokens.',
    }),
    blockNumber: t.exposeString('blockNumber', { description: 'The block the simulation read.' }),
  }),
});

const PreparedSwap = builder.objectRef<PreparedSwapShape>('PreparedSwap').implement({
  description:
    "A taker's swap, unsigned: approve (where short) then swap with a minimum output and deadline.",
  fields: (t) => ({
    chain: t.exposeString('chain', { description: 'Chain key.' }),
    chainId: t.exposeInt('chainId', { description: 'EVM chain id.' }),
    wallet: t.exposeString('wallet', {
      description: 'The taker, echoed: the address that must sign.',
      extensions: as('address'),
    }),
    strategyHash: t.exposeString('strategyHash', {
      description: 'The strategy swapped against.',
      extensions: as('hash32'),
    }),
    direction: t.exposeString('direction', { description: 'aToB or bToA.' }),
    router: t.exposeString('router', {
      description: 'The verified router the swap calls: the spender of the approve step.',
      extensions: as('address'),
    }),
    transactions: t.field({
      description: 'The unsigned transactions, in order (approve when short, then swap).',
      type: [PreparedTransaction],
      resolve: (s) => s.transactions,
    }),
    calls: t.field({
      type: WalletCallBundle,
      description: 'The same steps as one EIP-5792 `wallet_sendCalls` bundle.',
      resolve: (s) => walletCalls(s.chainId, s.wallet, s.transactions),
    }),
    quote: t.field({
      description: 'The quote the swap is built from.',
      type: SwapQuote,
      resolve: (s) => s.quote,
    }),
    preparedAt: t.field({
      description: 'When the service prepared it.',
      type: 'DateTime',
      resolve: (s) => s.preparedAt,
    }),
    preflight: t.field({
      type: SimulationPreflight,
      nullable: true,
      resolve: (s) => s.preflight ?? null,
      description: 'With `simulate` only (absent otherwise): whether the bundle was simulated.',
    }),
    simulation: t.field({
      type: BundleSimulation,
      nullable: true,
      resolve: (s) => s.simulation ?? null,
      description: SIMULATION_DESCRIPTION,
    }),
  }),
});

builder.mutationField('prepareSwap', (t) =>
  t.field({
    type: PreparedSwap,
    description: "Prepares a taker's swap against one live verified strategy (POST /v1/swaps).",
    args: { input: t.arg({ description: 'What to swap.', type: PrepareSwapInput, required: true }) },
    resolve: (_root, { input }, ctx) => prepareSwap(ctx, input),
  }),
);
