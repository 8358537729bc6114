import type { PriceSource } from '../chain/prices.js';
import type { TokenConfig } from '../lib/config.js';
import { type ChainView, listChains } from '../resolvers/catalogue/chains.js';
import type { ChainRollup } from '../store/rollups.js';
import { builder } from './builder.js';
import { PriceSourceKind } from './enums.js';
import { as } from './valueFormats.js';

const TokenPrice = builder.objectRef<PriceSource>('TokenPrice').implement({
  description:
    "A token's USD price and where it comes from. Every USD figure of the catalogue (volume, TVL, fees) prices the token so.",
  fields: (t) => ({
    usd: t.float({
      description: 'USD per whole token now; null while a feed has not answered yet.',
      nullable: true,
      resolve: (p) => p.usd,
    }),
    source: t.field({
      type: PriceSourceKind,
      description: 'Where the price comes from.',
      resolve: (p) => p.source,
    }),
    feed: t.string({
      description: 'The price feed read (source feed); null otherwise.',
      nullable: true,
      extensions: as('address'),
      resolve: (p) => p.feed,
    }),
    updatedAt: t.field({
      type: 'DateTime',
      description: "When the feed's answer was last updated on its chain (source feed); null otherwise.",
      nullable: true,
      resolve: (p) => p.updatedAt,
    }),
  }),
});

const ChainToken = builder.objectRef<TokenConfig>('ChainToken').implement({
  description: 'A token the operator lists on a chain.',
  fields: (t) => ({
    symbol: t.exposeString('symbol', { description: 'Token symbol as the operator lists it (e.g. USDC).' }),
    address: t.exposeString('address', { description: 'Token contract address.' }),
    decimals: t.exposeInt('decimals', { description: 'Token decimals.' }),
    price: t.field({
      type: TokenPrice,
      nullable: true,
      description:
        'Its USD price and its source; null when nothing prices it (then it counts 0 USD in every figure, never 1).',
      resolve: async (token, _args, ctx) => {
        await ctx.services.prices.usd();
        return ctx.services.prices.source(token.symbol) ?? null;
      },
    }),
  }),
});

const ChainIndexer = builder.objectRef<NonNullable<ChainView['checkpoint']>>('ChainIndexer').implement({
  description: 'Where the indexer is on the chain.',
  fields: (t) => ({
    lastBlock: t.int({
      description: 'Last block whose logs are fully stored.',
      extensions: as('count'),
      resolve: (c) => Number(c.last_block),
    }),
    updatedAt: t.field({
      description: 'When the indexer last advanced its checkpoint on this chain.',
      type: 'DateTime',
      resolve: (c) => c.updated_at,
    }),
  }),
});

/** A count of the roll-up: 0 for a chain without activity, null when the store could not answer. */
const count = (c: ChainView, pick: (r: ChainRollup) => number): number | null =>
  c.storeAvailable ? (c.rollup ? pick(c.rollup) : 0) : null;

const ChainContracts = builder.objectRef<ChainView>('ChainContracts').implement({
  description: 'The contracts of a chain the service reads and prepares for.',
  fields: (t) => ({
    aqua: t.string({
      description: 'The Aqua contract.',
      extensions: as('address'),
      resolve: (c) => c.config.aqua.toLowerCase(),
    }),
    router: t.string({
      description: 'The verified AquaSwapVMRouter (the app of quotable strategies).',
      extensions: as('address'),
      resolve: (c) => c.config.router.toLowerCase(),
    }),
  }),
});

const ChainCounts = builder.objectRef<ChainView>('ChainCounts').implement({
  description: "The chain's counts from the roll-up; each null when the store could not answer.",
  fields: (t) => ({
    strategies: t.int({
      nullable: true,
      description: 'Open strategies.',
      extensions: as('count'),
      resolve: (c) => count(c, (r) => r.count),
    }),
    makers: t.int({
      nullable: true,
      description: 'Distinct makers with an open strategy.',
      extensions: as('count'),
      resolve: (c) => count(c, (r) => r.makers),
    }),
    pairs: t.int({
      nullable: true,
      description: 'Distinct pairs with an open strategy.',
      extensions: as('count'),
      resolve: (c) => count(c, (r) => r.pairs),
    }),
    swaps30d: t.int({
      nullable: true,
      description: 'Swaps settled over the last 30 days.',
      extensions: as('count'),
      resolve: (c) => count(c, (r) => r.swaps_30d),
    }),
  }),
});

const ChainVolume = builder.objectRef<ChainView>('ChainVolume').implement({
  description:
    "The chain's settled volume, USD, from the roll-up; each null when the store could not answer.",
  fields: (t) => ({
    d1: t.float({
      nullable: true,
      description: 'Over the last day.',
      extensions: as('usd'),
      resolve: (c) => count(c, (r) => r.volume_1d_usd),
    }),
    d7: t.float({
      nullable: true,
      description: 'Over the last 7 days.',
      extensions: as('usd'),
      resolve: (c) => count(c, (r) => r.volume_7d_usd),
    }),
    d30: t.float({
      nullable: true,
      description: 'Over the last 30 days.',
      extensions: as('usd'),
      resolve: (c) => count(c, (r) => r.volume_30d_usd),
    }),
  }),
});

export const Chain = builder.objectRef<ChainView>('Chain').implement({
  description: 'A chain the service serves (from the registry), with its live counts from the roll-up.',
  fields: (t) => ({
    key: t.string({
      description: 'Chain key, as the API names the chain (e.g. base).',
      extensions: as(null, ['base']),
      resolve: (c) => c.config.key,
    }),
    chainId: t.int({
      description: 'EVM chain id.',
      extensions: as(null, [8453]),
      resolve: (c) => c.config.chainId,
    }),
    name: t.string({ description: 'Human-readable name.', resolve: (c) => c.config.name ?? c.config.key }),
    testnet: t.boolean({ description: 'True for a test network.', resolve: (c) => c.config.testnet }),
    tokens: t.field({
      description: 'The tokens the operator lists on the chain.',
      type: [ChainToken],
      resolve: (c) => c.config.tokens,
    }),
    contracts: t.field({
      description: 'Its Aqua and verified router.',
      type: ChainContracts,
      resolve: (c) => c,
    }),
    counts: t.field({ description: 'Its counts from the roll-up.', type: ChainCounts, resolve: (c) => c }),
    volumeUsd: t.field({
      description: 'Its settled volume from the roll-up.',
      type: ChainVolume,
      resolve: (c) => c,
    }),
    aqua: t.string({ description: 'The Aqua contract.', resolve: (c) => c.config.aqua.toLowerCase() }),
    router: t.string({
      description: 'The verified AquaSwapVMRouter (the app of quotable strategies).',
      resolve: (c) => c.config.router.toLowerCase(),
    }),
    countsAvailable: t.boolean({
      description: 'False when the store could not answer: the counts below are then null.',
      resolve: (c) => c.storeAvailable,
    }),
    strategies: t.int({
      nullable: true,
      description: 'Open strategies.',
      resolve: (c) => count(c, (r) => r.count),
    }),
    makers: t.int({
      description: 'Distinct makers with an open strategy; null when the store could not answer.',
      nullable: true,
      resolve: (c) => count(c, (r) => r.makers),
    }),
    pairs: t.int({
      description: 'Distinct pairs with an open strategy; null when the store could not answer.',
      nullable: true,
      resolve: (c) => count(c, (r) => r.pairs),
    }),
    swaps30d: t.int({
      description: 'Swaps settled over the last 30 days; null when the store could not answer.',
      nullable: true,
      resolve: (c) => count(c, (r) => r.swaps_30d),
    }),
    volume1dUsd: t.float({
      description: 'Settled volume over the last day, USD; null when the store could not answer.',
      nullable: true,
      resolve: (c) => count(c, (r) => r.volume_1d_usd),
    }),
    volume7dUsd: t.float({
      description: 'Settled volume over the last 7 days, USD; null when the store could not answer.',
      nullable: true,
      resolve: (c) => count(c, (r) => r.volume_7d_usd),
    }),
    volume30dUsd: t.float({
      description: 'Settled volume over the last 30 days, USD; null when the store could not answer.',
      nullable: true,
      resolve: (c) => count(c, (r) => r.volume_30d_usd),
    }),
    lastActivity: t.field({
      description: 'Latest ship, dock or swap seen on the chain; null when none.',
      type: 'DateTime',
      nullable: true,
      resolve: (c) => c.rollup?.last_activity ?? null,
    }),
    rollupUpdatedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When the roll-up the counts come from was refreshed.',
      resolve: (c) => c.rollupUpdatedAt,
    }),
    dataAsOf: t.field({
      type: 'DateTime',
      nullable: true,
      description:
        'The time the roll-up the counts come from holds every event up to (the oldest of the chains; far back during a backfill).',
      resolve: (c) => c.dataAsOf,
    }),
    indexer: t.field({
      description:
        'Where the indexer is on the chain; null before its first chunk or when the store could not answer.',
      type: ChainIndexer,
      nullable: true,
      resolve: (c) => c.checkpoint,
    }),
  }),
});

builder.queryField('chains', (t) =>
  t.field({
    type: [Chain],
    description: 'The live chains: configured (never hardcoded), with counts from the latest roll-up.',
    resolve: (_root, _args, ctx) => listChains(ctx),
  }),
);
