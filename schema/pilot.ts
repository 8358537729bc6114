import {
  type BalancesView,
  type PilotStrategyView,
  type PilotSwapView,
  type PilotView,
  type PilotWalletView,
  readBalances,
  readPilot,
  type TokenAmount as TokenAmountValue,
} from '../resolvers/pilot.js';
import { builder } from './builder.js';

/** The test-network demo (SPEC §4.7, §4.8): the pilot and the balances look-up. */

const DemoTokenAmount = builder.objectRef<TokenAmountValue>('DemoTokenAmount').implement({
  description: 'An amount of a token, or of the native currency when `address` is null, in base units.',
  fields: (t) => ({
    symbol: t.exposeString('symbol'),
    address: t.exposeString('address', { nullable: true }),
    decimals: t.exposeInt('decimals', { nullable: true }),
    amount: t.exposeString('amount', { description: 'Integer string in base units.' }),
  }),
});

const PilotWallet = builder.objectRef<PilotWalletView>('PilotWallet').implement({
  fields: (t) => ({
    address: t.exposeString('address'),
    balances: t.field({
      type: [DemoTokenAmount],
      resolve: (w) => w.balances,
      description: 'Native first, then USDC and USDT.',
    }),
  }),
});

const PilotWallets = builder.objectRef<PilotView['wallets']>('PilotWallets').implement({
  fields: (t) => ({
    maker: t.field({ type: PilotWallet, resolve: (w) => w.maker }),
    taker: t.field({ type: PilotWallet, resolve: (w) => w.taker }),
    feeWallet: t.field({ type: PilotWallet, resolve: (w) => w.feeWallet }),
  }),
});

const PilotStrategy = builder.objectRef<PilotStrategyView>('PilotStrategy').implement({
  fields: (t) => ({
    hash: t.exposeString('hash'),
    maker: t.exposeString('maker'),
    app: t.exposeString('app', { description: 'The router the strategy is shipped to.' }),
    status: t.exposeString('status', { description: '`active`, `docked` or `not_shipped`.' }),
    tokens: t.field({
      type: [DemoTokenAmount],
      resolve: (s) => s.tokens,
      description: "The strategy's tokens with their live balances in Aqua (rawBalances).",
    }),
  }),
});

const PilotSwap = builder.objectRef<PilotSwapView>('PilotSwap').implement({
  fields: (t) => ({
    transactionHash: t.exposeString('transactionHash'),
    blockNumber: t.exposeString('blockNumber'),
    logIndex: t.exposeInt('logIndex'),
    timestamp: t.field({ type: 'DateTime', nullable: true, resolve: (s) => s.timestamp }),
    taker: t.exposeString('taker'),
    tokenIn: t.field({ type: DemoTokenAmount, resolve: (s) => s.tokenIn }),
    tokenOut: t.field({ type: DemoTokenAmount, resolve: (s) => s.tokenOut }),
  }),
});

const PilotSwaps = builder.objectRef<PilotView['swaps']>('PilotSwaps').implement({
  description: 'Swaps of the pilot strategy in the recent block window (PILOT_BLOCK_WINDOW).',
  fields: (t) => ({
    fromBlock: t.exposeString('fromBlock'),
    toBlock: t.exposeString('toBlock'),
    blockWindow: t.exposeInt('blockWindow'),
    count: t.exposeInt('count', { description: 'Swaps in the whole window.' }),
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
    balances: t.field({ type: [DemoTokenAmount], resolve: (f) => f.balances }),
  }),
});

const Pilot = builder.objectRef<PilotView>('Pilot').implement({
  description:
    'The test-network pilot: demo wallets, their shipped strategy, recent swaps, fee receiver balance.',
  fields: (t) => ({
    chain: t.exposeString('chain'),
    chainId: t.exposeInt('chainId'),
    name: t.exposeString('name'),
    blockNumber: t.exposeString('blockNumber'),
    observedAt: t.field({ type: 'DateTime', resolve: (p) => p.observedAt }),
    cached: t.exposeBoolean('cached', { description: 'True when served from the short server-side cache.' }),
    wallets: t.field({ type: PilotWallets, resolve: (p) => p.wallets }),
    strategy: t.field({ type: PilotStrategy, resolve: (p) => p.strategy }),
    swaps: t.field({ type: PilotSwaps, resolve: (p) => p.swaps }),
    feeReceiver: t.field({ type: PilotFeeReceiver, resolve: (p) => p.feeReceiver }),
  }),
});

const DemoAccountBalances = builder
  .objectRef<BalancesView['accounts'][number]>('DemoAccountBalances')
  .implement({
    fields: (t) => ({
      address: t.exposeString('address'),
      native: t.field({ type: DemoTokenAmount, resolve: (a) => a.native }),
      tokens: t.field({ type: [DemoTokenAmount], resolve: (a) => a.tokens }),
    }),
  });

const DemoBalances = builder.objectRef<BalancesView>('DemoBalances').implement({
  fields: (t) => ({
    chain: t.exposeString('chain'),
    chainId: t.exposeInt('chainId'),
    name: t.exposeString('name'),
    accounts: t.field({ type: [DemoAccountBalances], resolve: (b) => b.accounts }),
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
    args: { addresses: t.arg.stringList({ required: true }) },
    resolve: (_root, { addresses }, ctx) => readBalances(ctx.services, ctx.loaders, addresses),
  }),
}));
