import { type StrategyLiquidityView, strategyLiquidityOf } from '../resolvers/catalogue/strategyLiquidity.js';
import {
  type LiquidityToken,
  type MakerLiquidityView,
  makerLiquidityOf,
} from '../resolvers/makerLiquidity.js';
import { builder } from './builder.js';
import { enumOf } from './enums.js';
import { Maker } from './maker.js';
import { Strategy } from './strategy.js';
import { as } from './valueFormats.js';

const PULLABLE =
  'the smaller of the virtual balance, the wallet balance and the allowance to Aqua (a swap pulls its output from the wallet, and one wallet and one allowance serve every strategy of the maker)';

const LiquidityTokenRef = builder.objectRef<LiquidityToken>('LiquidityToken').implement({
  description:
    "One token of a maker's open strategies, or of one strategy: held, really pullable, and in the maker's wallet.",
  fields: (t) => ({
    address: t.exposeString('address', {
      description: 'Token contract address (lower case).',
      extensions: as('address'),
    }),
    symbol: t.string({
      nullable: true,
      description: 'Token symbol; null when unknown.',
      resolve: (v) => v.symbol,
    }),
    decimals: t.int({
      nullable: true,
      description: 'Token decimals; null when unknown.',
      extensions: as('count'),
      resolve: (v) => v.decimals,
    }),
    virtual: t.string({
      nullable: true,
      description:
        "Virtual balance: of a maker, its open strategies' summed; of a strategy, its own (0 once docked). Base units, as indexed; null when unknown.",
      extensions: as('baseUnits'),
      resolve: (v) => v.virtual,
    }),
    walletBalance: t.string({
      nullable: true,
      description: "The wallet's balance at its last read (base units); null until read.",
      extensions: as('baseUnits'),
      resolve: (v) => v.walletBalance,
    }),
    allowance: t.string({
      nullable: true,
      description: "The wallet's allowance to Aqua at its last read (base units); null until read.",
      extensions: as('baseUnits'),
      resolve: (v) => v.allowance,
    }),
    pullable: t.string({
      nullable: true,
      description: `What the strategies can really pay out: ${PULLABLE}. Base units; null until read.`,
      extensions: as('baseUnits'),
      resolve: (v) => v.pullable,
    }),
    virtualUsd: t.float({
      nullable: true,
      description: 'Virtual, USD.',
      extensions: as('usd'),
      resolve: (v) => v.virtualUsd,
    }),
    pullableUsd: t.float({
      nullable: true,
      description: 'Pullable, USD.',
      extensions: as('usd'),
      resolve: (v) => v.pullableUsd,
    }),
    walletUsd: t.float({
      nullable: true,
      description: 'Wallet balance, USD.',
      extensions: as('usd'),
      resolve: (v) => v.walletUsd,
    }),
    readAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When the indexer last read the wallet for this token; null until read.',
      resolve: (v) => v.readAt,
    }),
  }),
});

const MakerLiquidity = builder.objectRef<MakerLiquidityView>('MakerLiquidity').implement({
  description: `A maker's liquidity split three ways: what its open strategies hold (virtual balances, the TVL), what they can really pay out (pullable: per token, ${PULLABLE}), and what sits in the wallet. The wallet is read by the indexer every WALLET_READ_MS, a bounded number of wallets per run.`,
  fields: (t) => ({
    virtualUsd: t.exposeFloat('virtualUsd', {
      description: 'Virtual balances of the open strategies, USD (the TVL).',
      extensions: as('usd'),
    }),
    pullableUsd: t.float({
      nullable: true,
      description: 'Pullable, USD, over the tokens read; null until the wallet was read.',
      extensions: as('usd'),
      resolve: (v) => v.pullableUsd,
    }),
    walletUsd: t.float({
      nullable: true,
      description: "The wallet's balances of these tokens, USD; null until the wallet was read.",
      extensions: as('usd'),
      resolve: (v) => v.walletUsd,
    }),
    readAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'The oldest read among the tokens; null until the wallet was read.',
      resolve: (v) => v.readAt,
    }),
    tokens: t.field({ type: [LiquidityTokenRef], description: 'Per token.', resolve: (v) => v.tokens }),
  }),
});

builder.objectField(Maker, 'liquidity', (t) =>
  t.field({
    type: MakerLiquidity,
    description: 'Its liquidity: held by its open strategies, really pullable, and in its wallet.',
    resolve: (row, _args, ctx) => makerLiquidityOf(ctx, row),
  }),
);

const StrategyLiquidity = builder.objectRef<StrategyLiquidityView>('StrategyLiquidity').implement({
  description: `One strategy's liquidity: its virtual balances, what it can really pay out (per token, ${PULLABLE}; the wallet and allowance are its maker's, shared with the maker's other strategies), and the maker's wallet, as the indexer last read it (every WALLET_READ_MS).`,
  fields: (t) => ({
    virtualUsd: t.exposeFloat('virtualUsd', {
      description: 'Its virtual balances, USD.',
      extensions: as('usd'),
    }),
    pullableUsd: t.float({
      nullable: true,
      description: "Pullable, USD, over the tokens read; null until its maker's wallet was read.",
      extensions: as('usd'),
      resolve: (v) => v.pullableUsd,
    }),
    readAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: "The oldest read of its maker's wallet among its tokens; null until read.",
      resolve: (v) => v.readAt,
    }),
    tokens: t.field({ type: [LiquidityTokenRef], description: 'Per token.', resolve: (v) => v.tokens }),
  }),
});

const StrategyState = enumOf('StrategyState', 'Whether a strategy can trade now.', {
  active:
    "Open, and some token's pullable amount is above 0 at its maker's last wallet read (or, before the first read, some virtual balance is).",
  inactive: 'Docked, or nothing pullable on any side: every swap into it would fail.',
});

builder.objectFields(Strategy, (t) => ({
  liquidity: t.field({
    type: StrategyLiquidity,
    description: "Its liquidity: virtual balances, what it can really pay out, and its maker's wallet.",
    resolve: (row, _args, ctx) => strategyLiquidityOf(ctx, row),
  }),
  state: t.field({
    type: StrategyState,
    description:
      "Whether it can trade now, from its status and what it can pay out as of its maker's last wallet read (the detail's liquidity gives the figures).",
    resolve: (row) => row.state,
  }),
}));
