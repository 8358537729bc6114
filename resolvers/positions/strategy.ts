/**
 * The curve of a new position (the request's `strategy`): which kind, checked against the chain and the
 * deposits, and the instructions that follow the protocol fee in its program. The protocol fee comes
 * first in every kind (order.ts); what follows is the reference recipe of each kind:
 *   xyc           [maker fee] → XYCSwap
 *   concentrated  XYCConcentrateGrowLiquidity2D → [maker fee] → XYCSwap
 *   pegged        [maker fee] → PeggedSwapGrowPriceRange2D
 */
import { formatUnits, type Hex, parseUnits } from 'viem';
import { encodeInstruction, flatFeeAmountIn, xycSwap } from '../../chain/program.js';
import {
  concentratedRange,
  fittingAmount,
  humanPriceOf,
  impliedSqrtPrice,
  linearWidthOf,
  MAX_LINEAR_WIDTH,
  type PairDecimals,
  peggedArgs,
  sqrtPriceOf,
} from '../../chain/strategyArgs.js';
import { STRATEGY_KINDS, type StrategyKind } from '../../lib/chains.js';
import type { ChainConfig, TokenConfig } from '../../lib/config.js';
import { ApiError } from '../../lib/errors.js';
import { priceOf, type UsdPrices } from '../../lib/usd.js';
import { DEFAULT_FLAT_BAND_PERCENT } from './request.js';

export interface StrategyInput {
  kind: StrategyKind;
  priceRange?: { min: string; max: string } | null;
  pegPrice?: string | null;
  flatBandPercent?: number | null;
}

/** What the prepared answer says of the curve (beside the decoded program). */
export interface PositionStrategy {
  kind: StrategyKind;
  /** concentrated: the range asked, as decimal text (price of the second deposit's token in the first's). */
  priceRange: { min: string; max: string } | null;
  /** concentrated: the sqrt bounds shipped (sqrt(P)·1e18, P in base units of the higher-address token). */
  sqrtPriceMin: string | null;
  sqrtPriceMax: string | null;
  /** pegged: the peg and the flat band. */
  pegPrice: string | null;
  flatBandPercent: number | null;
  /** The price the deposits open the position at (second deposit's token in the first's). */
  openingPrice: number | null;
}

export interface ResolvedStrategy {
  summary: PositionStrategy;
  /** The instructions between the protocol fee and the salt. */
  curve: Hex[];
  /** Instruction names of the whole program, for the preflight's wiring check. */
  expectedNames: string[];
  /** A phrase for the ship step: "an x·y=k pool of …". */
  describe: (amounts: string) => string;
}

interface Deposits {
  /** The deposits as the caller listed them (first, second), resolved. */
  first: { token: TokenConfig; amount: bigint };
  second: { token: TokenConfig; amount: bigint };
}

const unprocessable = (parameter: string, message: string, type: string, expected: string, actual: string) =>
  new ApiError('UNPROCESSABLE', message, { parameter, issues: [{ type, expected, actual }] });

/** The price of the second deposit's token in the first's that the deposits themselves state. */
function depositPrice(d: Deposits): number {
  const first = Number(formatUnits(d.first.amount, d.first.token.decimals));
  const second = Number(formatUnits(d.second.amount, d.second.token.decimals));
  return first / second;
}

/**
 * The market's price of the second deposit's token in the first's, from the tokens' USD prices
 * (chain/prices.ts); null when either token has none, and then nothing is checked against it.
 */
function marketPrice(prices: UsdPrices, d: Deposits): number | null {
  const first = priceOf(prices, d.first.token.symbol);
  const second = priceOf(prices, d.second.token.symbol);
  return first > 0 && second > 0 ? second / first : null;
}

function pairOf(d: Deposits): PairDecimals & { firstIsLt: boolean } {
  const firstIsLt = d.first.token.address.toLowerCase() < d.second.token.address.toLowerCase();
  const [lt, gt] = firstIsLt ? [d.first.token, d.second.token] : [d.second.token, d.first.token];
  return { lt: lt.decimals, gt: gt.decimals, firstIsLt };
}

export function resolveStrategy(
  chain: ChainConfig,
  input: StrategyInput | null | undefined,
  deposits: Deposits,
  makerFee1e9: number,
  prices: UsdPrices,
): ResolvedStrategy {
  const kind = input?.kind ?? 'xyc';
  const served = chain.strategyKinds ?? STRATEGY_KINDS;
  if (!served.includes(kind)) {
    throw unprocessable(
      'strategy.kind',
      `The router of "${chain.key}" does not run ${kind} strategies; it runs ${served.join(', ')}.`,
      'UNSUPPORTED_STRATEGY_KIND',
      served.join(', '),
      kind,
    );
  }
  const makerFee = makerFee1e9 > 0 ? [flatFeeAmountIn(makerFee1e9)] : [];
  const feeNames = ['AquaProtocolFeeAmountIn', ...(makerFee1e9 > 0 ? ['FlatFeeAmountIn'] : [])];
  const none = {
    priceRange: null,
    sqrtPriceMin: null,
    sqrtPriceMax: null,
    pegPrice: null,
    flatBandPercent: null,
  };
  if (kind === 'concentrated')
    return concentrated(input!, deposits, makerFee, feeNames, none, marketPrice(prices, deposits));
  if (kind === 'pegged') return pegged(input!, deposits, makerFee, feeNames, none);
  return {
    summary: { kind, ...none, openingPrice: depositPrice(deposits) },
    curve: [...makerFee, xycSwap()],
    expectedNames: [...feeNames, 'XYCSwap', 'Salt'],
    describe: (amounts) => `an x·y=k pool of ${amounts}`,
  };
}

function concentrated(
  input: StrategyInput,
  deposits: Deposits,
  makerFee: Hex[],
  feeNames: string[],
  none: Omit<PositionStrategy, 'kind' | 'openingPrice'>,
  market: number | null,
): ResolvedStrategy {
  const range = input.priceRange!;
  const pair = pairOf(deposits);
  const scale = pair.lt + pair.gt;
  const [min, max] = [parseUnits(range.min, scale), parseUnits(range.max, scale)];
  const asked = `${range.min}…${range.max}`;
  if (min <= 0n || min >= max) {
    throw unprocessable(
      'strategy.priceRange',
      `strategy.priceRange: min must be above 0 and below max (got ${asked}).`,
      'INVALID_PRICE_RANGE',
      '0 < min < max',
      asked,
    );
  }
  const bounds = concentratedRange(range.min, range.max, pair);
  if (bounds.sqrtPriceMin === 0n || bounds.sqrtPriceMin >= bounds.sqrtPriceMax) {
    throw unprocessable(
      'strategy.priceRange',
      `strategy.priceRange: ${asked} is narrower or more extreme than the router's price precision for these tokens.`,
      'INVALID_PRICE_RANGE',
      'a range the router can tell apart',
      asked,
    );
  }
  const [amountLt, amountGt] = pair.firstIsLt
    ? [deposits.first.amount, deposits.second.amount]
    : [deposits.second.amount, deposits.first.amount];
  const opening = humanPriceOf(impliedSqrtPrice(amountLt, amountGt, bounds), pair);
  if (market !== null) fitsMarket({ range, bounds, pair, deposits, opening, market });
  return {
    summary: {
      kind: 'concentrated',
      ...none,
      priceRange: { min: range.min, max: range.max },
      sqrtPriceMin: bounds.sqrtPriceMin.toString(),
      sqrtPriceMax: bounds.sqrtPriceMax.toString(),
      openingPrice: opening,
    },
    curve: [encodeInstruction('XYCConcentrateGrowLiquidity2D', bounds), ...makerFee, xycSwap()],
    expectedNames: [feeNames[0]!, 'XYCConcentrateGrowLiquidity2D', ...feeNames.slice(1), 'XYCSwap', 'Salt'],
    describe: (amounts) =>
      `a pool of ${amounts} concentrated between ${range.min} and ${range.max} ${deposits.first.token.symbol} per ${deposits.second.token.symbol}`,
  };
}

function pegged(
  input: StrategyInput,
  deposits: Deposits,
  makerFee: Hex[],
  feeNames: string[],
  none: Omit<PositionStrategy, 'kind' | 'openingPrice'>,
): ResolvedStrategy {
  const peg = input.pegPrice ?? '1';
  const band = input.flatBandPercent ?? DEFAULT_FLAT_BAND_PERCENT;
  const pegValue = Number(peg);
  if (!(pegValue > 0)) {
    throw unprocessable('strategy.pegPrice', 'strategy.pegPrice must be above 0.', 'INVALID_PEG', '> 0', peg);
  }
  const linearWidth = linearWidthOf(band);
  if (linearWidth > MAX_LINEAR_WIDTH) {
    throw unprocessable(
      'strategy.flatBandPercent',
      `strategy.flatBandPercent: ±${band}% is narrower than the router allows (its flat part is at most 5000 wide: about ±0.01%).`,
      'INVALID_FLAT_BAND',
      '>= 0.01',
      String(band),
    );
  }
  // The pegged curve opens at the ratio of the amounts shipped (x0 and y0 are those amounts).
  const opening = depositPrice(deposits);
  if (Math.abs(opening / pegValue - 1) * 100 > band) {
    const second = deposits.second.token;
    const fit = (deposits.second.amount * parseUnits(peg, 18)) / 10n ** 18n;
    const firstFit = (fit * 10n ** BigInt(deposits.first.token.decimals)) / 10n ** BigInt(second.decimals);
    throw unprocessable(
      'deposits',
      `The deposits open the pegged curve at ${opening} ${deposits.first.token.symbol} per ${second.symbol}, outside ±${band}% of the peg ${peg}: ` +
        `the first price a taker meets would hand them the difference. For ${formatUnits(deposits.second.amount, second.decimals)} ${second.symbol}, deposit about ${formatUnits(firstFit, deposits.first.token.decimals)} ${deposits.first.token.symbol}, or set pegPrice.`,
      'DEPOSITS_OFF_PEG',
      `${peg} ±${band}%`,
      String(opening),
    );
  }
  const pair = pairOf(deposits);
  const [amountLt, amountGt] = pair.firstIsLt
    ? [deposits.first.amount, deposits.second.amount]
    : [deposits.second.amount, deposits.first.amount];
  const args = peggedArgs(amountLt, amountGt, pair, band);
  return {
    summary: { kind: 'pegged', ...none, pegPrice: peg, flatBandPercent: band, openingPrice: opening },
    curve: [...makerFee, encodeInstruction('PeggedSwapGrowPriceRange2D', { ...args })],
    expectedNames: [...feeNames, 'PeggedSwapGrowPriceRange2D', 'Salt'],
    describe: (amounts) =>
      `a pegged pool of ${amounts}, flat within ±${band}% of ${peg} ${deposits.first.token.symbol} per ${deposits.second.token.symbol}`,
  };
}

/**
 * A concentrated position opens at the price its deposits imply inside the range. Away from the market
 * price, the first taker buys the difference from the maker; with the market outside the range, the
 * position opens on a bound with one side empty, where the protocol fee (pulled from the tokenIn side
 * first) makes every trade into that side revert. Within a tenth of the range's width (at most 1 %) of
 * the market is close enough.
 */
function fitsMarket(c: {
  range: { min: string; max: string };
  bounds: { sqrtPriceMin: bigint; sqrtPriceMax: bigint };
  pair: PairDecimals;
  deposits: Deposits;
  opening: number;
  market: number;
}): void {
  const { first, second } = c.deposits;
  const asked = `${c.range.min}…${c.range.max}`;
  const quoted = `${c.market} ${first.token.symbol} per ${second.token.symbol}`;
  const spot = sqrtPriceOf(c.market.toFixed(c.pair.lt + c.pair.gt), c.pair);
  if (!(c.bounds.sqrtPriceMin < spot && spot < c.bounds.sqrtPriceMax)) {
    throw unprocessable(
      'strategy.priceRange',
      `strategy.priceRange: ${asked} does not contain the market price (${quoted}, from the configured USD prices). ` +
        'The position would open on a bound with one side empty, and the protocol fee makes every trade into that side revert.',
      'RANGE_OFF_MARKET',
      `a range containing ${c.market}`,
      asked,
    );
  }
  const tolerance = Math.min(0.01 * c.market, 0.1 * (Number(c.range.max) - Number(c.range.min)));
  if (Math.abs(c.opening - c.market) <= tolerance) return;
  const fit = fittingAmount({ side: c.pair.firstIsLt ? 'lt' : 'gt', amount: first.amount }, spot, c.bounds);
  throw unprocessable(
    'deposits',
    `The deposits open the range ${asked} at ${c.opening} ${first.token.symbol} per ${second.token.symbol}, away from the market price (${quoted}): ` +
      `the first taker would buy the difference from you. For ${formatUnits(first.amount, first.token.decimals)} ${first.token.symbol}, deposit about ${formatUnits(fit, second.token.decimals)} ${second.token.symbol}.`,
    'DEPOSITS_OFF_MARKET',
    `${c.market} ±${tolerance}`,
    String(c.opening),
  );
}
