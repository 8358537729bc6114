import {
  type EarningsToken,
  type EarningsWindow,
  makerEarningsOf,
  strategyEarningsOf,
} from '../resolvers/earnings.js';
import { builder } from './builder.js';
import { Maker } from './maker.js';
import { Strategy } from './strategy.js';
import { as } from './valueFormats.js';

/** The formula, said once: the field descriptions and the docs quote it. */
export const APY_FORMULA =
  'maker fees of the window ÷ the time-weighted liquidity of the window (∫ virtual balances in USD dt) × 365 days, in percent: simple, not compounded; fees and liquidity both at today’s USD prices, and time without liquidity counts nothing';

const FEES =
  'in base units of the swaps’ tokenIn, by the router’s exactIn arithmetic: protocol ⌊amountIn·pf/1e9⌋, maker ⌈(amountIn − protocol)·ff/1e9⌉ (pf, ff the fee rates of the program)';

const EarningsTokenRef = builder.objectRef<EarningsToken>('EarningsToken').implement({
  description: 'One token of a window’s earnings.',
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
    makerFees: t.exposeString('makerFees', {
      description: `Earned by the maker’s own fee (FlatFeeAmountIn), ${FEES}.`,
      extensions: as('baseUnits'),
    }),
    protocolFees: t.exposeString('protocolFees', {
      description: `Paid to the protocol fee’s receiver from the strategies’ balances, ${FEES}.`,
      extensions: as('baseUnits'),
    }),
    makerFeesUsd: t.exposeFloat('makerFeesUsd', {
      description: 'makerFees at today’s USD price (0 without a price).',
      extensions: as('usd'),
    }),
    protocolFeesUsd: t.exposeFloat('protocolFeesUsd', {
      description: 'protocolFees at today’s USD price (0 without a price).',
      extensions: as('usd'),
    }),
    averageLiquidityUsd: t.exposeFloat('averageLiquidityUsd', {
      description: 'The virtual balance of this token averaged over the window’s time, at today’s USD price.',
      extensions: as('usd'),
    }),
  }),
});

const EarningsWindowRef = builder.objectRef<EarningsWindow>('EarningsWindow').implement({
  description: `Fees earned over a window and the APY they give: ${APY_FORMULA}.`,
  fields: (t) => ({
    days: t.int({
      nullable: true,
      description:
        'Length of the window in days (the current UTC hour and the hours before it); null for the lifetime.',
      resolve: (w) => w.days,
    }),
    since: t.field({
      type: 'DateTime',
      description: 'Start of the window: a whole UTC hour, or for the lifetime the first ship.',
      resolve: (w) => w.since,
    }),
    until: t.field({
      type: 'DateTime',
      description:
        'End of the window: the moment these figures were computed (the liquidity is averaged up to it).',
      resolve: (w) => w.until,
    }),
    makerFeesUsd: t.exposeFloat('makerFeesUsd', {
      description: 'The tokens’ maker fees, USD at today’s prices.',
      extensions: as('usd'),
    }),
    protocolFeesUsd: t.exposeFloat('protocolFeesUsd', {
      description: 'The tokens’ protocol fees, USD at today’s prices.',
      extensions: as('usd'),
    }),
    averageLiquidityUsd: t.exposeFloat('averageLiquidityUsd', {
      description: 'The virtual balances averaged over the window’s time, USD at today’s prices.',
      extensions: as('usd'),
    }),
    apy: t.float({
      nullable: true,
      description: `Percent (12.5 = 12.5 %): ${APY_FORMULA}. Null when the window held no priced liquidity.`,
      resolve: (w) => w.apy,
    }),
    tokens: t.field({ type: [EarningsTokenRef], description: 'Per token.', resolve: (w) => w.tokens }),
  }),
});

builder.objectField(Strategy, 'earnings', (t) =>
  t.field({
    type: [EarningsWindowRef],
    description: 'Fees earned and APY over 1, 7 and 30 days and since it shipped, in that order.',
    resolve: (row, _args, ctx) => strategyEarningsOf(ctx, row),
  }),
);

builder.objectField(Maker, 'earnings', (t) =>
  t.field({
    type: [EarningsWindowRef],
    description:
      'Fees earned and APY over all its strategies on the chain, over 1, 7 and 30 days and since its first ship, in that order.',
    resolve: (row, _args, ctx) => makerEarningsOf(ctx, row),
  }),
);
