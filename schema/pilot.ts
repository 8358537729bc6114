import { type BalancesView, readBalances } from '../resolvers/balances.js';
import type { TokenAmount as TokenAmountValue } from '../resolvers/demo.js';
import {
  type PilotStrategyView,
  type PilotSwapView,
  type PilotView,
  type PilotWalletView,
  readPilot,
} from '../resolvers/pilot.js';
import { builder } from './builder.js';
import { PilotStrategyStatus } from './enums.js';
import { as } from './valueFormats.js';

/** The test-network demo (SPEC §4.7, §4.8): the pilot and the balances look-up. */

const DemoTokenAmount = builder.objectRef<TokenAmountValue>('DemoTokenAmount').implement({
  description: 'An amount of a token, or of the native currency when `address` is null, in base units.',
  fields: (t) => ({
    symbol: t.exposeString('symbol', { description: 'Token symbol, or the native currency symbol (ETH).' }),
    address: t.exposeString('address', {
      nullable: true,
      description: 'Token contract address, checksummed; null for the native currency.',
      extensions: as('address'),
    }),
    decimals: t.exposeInt('decimals', {
      nullable: true,
      description: 'Decimals; null when unknown.',
      extensions: as('count'),
    }),
    amount: t.exposeString('amount', {
      description: 'Integer string in base units.',
      extensions: as('baseUnits'),
    }),
  }),
});

const PilotWallet = builder.objectRef<PilotWalletView>('PilotWallet').implement({
  description: 'A demo wallet of the pilot with its live balances.',
  fields: (t) => ({
    address: t.exposeString('address', {
      description: 'Wallet address, checksummed.',
      extensions: as('address'),
    }),
    balances: t.field({
      type: [DemoTokenAmount],
      resolve: (w) => w.balances,
      description: 'Native first, then USDC and USDT.',
    }),
  }),
});

const PilotWallets = builder.objectRef<PilotView['wallets']>('PilotWallets').implement({
  description: 'The three demo wallets configured for the pilot.',
  fields: (t) => ({
    maker: t.field({
      type: PilotWallet,
      resolve: (w) => w.maker,
      description: 'The wallet that shipped the strategy.',
    }),
    taker: t.field({
      type: PilotWallet,
      resolve: (w) => w.taker,
      description: 'The wallet that swaps against it.',
    }),
    feeWallet: t.field({
      type: PilotWallet,
      resolve: (w) => w.feeWallet,
      description: 'The demo fee wallet.',
    }),
  }),
});

const PilotStrategy = builder.objectRef<PilotStrategyView>('PilotStrategy').implement({
  description: "The pilot's configured strategy, as Aqua holds it now.",
  fields: (t) => ({
    hash: t.exposeString('hash', { description: 'The strategy hash.', extensions: as('hash32') }),
    maker: t.exposeString('maker', {
      description: 'The maker address, checksummed.',
      extensions: as('address'),
    }),
    app: t.exposeString('app', {
      description: 'The router the strategy is shipped to.',
      extensions: as('address'),
    }),
    status: t.expose('status', { type: PilotStrategyStatus, description: "The strategy's state on chain." }),
    tokens: t.field({
      type: [DemoTokenAmount],
      resolve: (s) => s.tokens,
      description: "The strategy's tokens with their live balances in Aqua (rawBalances).",
    }),
  }),
});

const PilotSwap = builder.objectRef<PilotSwapView>('PilotSwap').implement({
  description: 'One swap against the pilot strategy.',
  fields: (t) => ({
    transactionHash: t.exposeString('transactionHash', {
      description: 'The transaction that swapped.',
      extensions: as('hash32'),
    }),
    blockNumber: t.exposeString('blockNumber', {
      description: 'Its block, as a decimal string.',
      extensions: as('decimal'),
    }),
    logIndex: t.exposeInt('logIndex', {
      description: 'Index of the swap log in the block.',
      extensions: as('count'),
    }),
    timestamp: t.field({
      type: 'DateTime',
      nullable: true,
      resolve: (s) => s.timestamp,
      description: 'Time of the block; null when the node did not give it.',
    }),
    taker: t.exposeString('taker', {
      description: 'Who swapped, checksummed.',
      extensions: as('address'),
    }),
    tokenIn: t.field({
      type: DemoTokenAmount,
      resolve: (s) => s.tokenIn,
      description: 'What the taker paid in.',
    }),
    tokenOut: t.field({
      type: DemoTokenAmount,
      resolve: (s) => s.tokenOut,
      description: 'What the taker received.',
    }),
  }),
});

const PilotSwaps = builder.objectRef<PilotView['swaps']>('PilotSwaps').implement({
  description: 'Swaps of the pilot strategy in the recent block window (PILOT_BLOCK_WINDOW).',
  fields: (t) => ({
    fromBlock: t.exposeString('fromBlock', {
      description: 'First block of the window, decimal string.',
      extensions: as('decimal'),
    }),
    toBlock: t.exposeString('toBlock', {
      description: 'Last block of the window (the latest), decimal string.',
      extensions: as('decimal'),
    }),
    blockWindow: t.exposeInt('blockWindow', {
      description: 'Blocks in the window (PILOT_BLOCK_WINDOW).',
      extensions: as('positive'),
    }),
    count: t.exposeInt('count', { description: 'Swaps in the whole window.', extensions: as('count') }),
    volume: t.field({
      type: [DemoTokenAmount],
      resolve: (s) => s.volume,
      description: 'Gross amounts in, per token.',
    }),
    items: t.field({
      type: [PilotSwap],
      resolve: (s) => s.items,
      description: 'The most recent swaps first.',
    }),
  }),
});

const PilotFeeReceiver = builder.objectRef<PilotView['feeReceiver']>('PilotFeeReceiver').implement({
  description: "The protocol fee receiver's balances; its address is deliberately not exposed.",
  fields: (t) => ({
    balances: t.field({
      type: [DemoTokenAmount],
      resolve: (f) => f.balances,
      description: 'USDC then USDT, those the test network lists.',
    }),
  }),
});

const Pilot = builder.objectRef<PilotView>('Pilot').implement({
  description:
    'The test-network pilot: demo wallets, their shipped strategy, recent swaps, fee receiver balance.',
  fields: (t) => ({
    chain: t.exposeString('chain', { description: 'Chain key of the test network.' }),
    chainId: t.exposeInt('chainId', { description: 'EVM chain id.' }),
    name: t.exposeString('name', { description: 'Human-readable chain name.' }),
    blockNumber: t.exposeString('blockNumber', {
      description: 'The latest block read, decimal string.',
      extensions: as('decimal'),
    }),
    observedAt: t.field({
      type: 'DateTime',
      resolve: (p) => p.observedAt,
      description: 'When the chain was read (earlier than now when cached).',
    }),
    cached: t.exposeBoolean('cached', { description: 'True when served from the short server-side cache.' }),
    wallets: t.field({ type: PilotWallets, resolve: (p) => p.wallets, description: 'The demo wallets.' }),
    strategy: t.field({
      type: PilotStrategy,
      resolve: (p) => p.strategy,
      description: 'The pilot strategy.',
    }),
    swaps: t.field({ type: PilotSwaps, resolve: (p) => p.swaps, description: 'Its recent swaps.' }),
    feeReceiver: t.field({
      type: PilotFeeReceiver,
      resolve: (p) => p.feeReceiver,
      description: "The protocol fee receiver's balances.",
    }),
  }),
});

const DemoAccountBalances = builder
  .objectRef<BalancesView['accounts'][number]>('DemoAccountBalances')
  .implement({
    description: 'The balances of one address asked for.',
    fields: (t) => ({
      address: t.exposeString('address', {
        description: 'The address, checksummed.',
        extensions: as('address'),
      }),
      native: t.field({ type: DemoTokenAmount, resolve: (a) => a.native, description: 'Native balance.' }),
      tokens: t.field({
        type: [DemoTokenAmount],
        resolve: (a) => a.tokens,
        description: 'USDC then USDT, those the test network lists.',
      }),
    }),
  });

const DemoBalances = builder.objectRef<BalancesView>('DemoBalances').implement({
  description: 'USDC, USDT and native balances of some addresses on the test network.',
  fields: (t) => ({
    chain: t.exposeString('chain', { description: 'Chain key of the test network read.' }),
    chainId: t.exposeInt('chainId', { description: 'EVM chain id.' }),
    name: t.exposeString('name', { description: 'Human-readable chain name.' }),
    accounts: t.field({
      type: [DemoAccountBalances],
      resolve: (b) => b.accounts,
      description: 'One entry per distinct address, in the order asked.',
    }),
  }),
});

builder.queryFields((t) => ({
  pilot: t.field({
    type: Pilot,
    description: 'The test-network pilot (GET /api/pilot).',
    resolve: (_root, _args, ctx) => readPilot(ctx.services, ctx.loaders),
  }),
  demoBalances: t.field({
    type: DemoBalances,
    description: 'USDC, USDT and native balances on the test network, 1 to 10 addresses (GET /api/balances).',
    args: {
      addresses: t.arg.stringList({
        required: true,
        description: '1 to 10 addresses (0x and 40 hex, checksummed when mixed-case); a repeat is read once.',
      }),
    },
    resolve: (_root, { addresses }, ctx) => readBalances(ctx.services, ctx.loaders, addresses),
  }),
}));
