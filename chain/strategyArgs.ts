/**
 * The arguments a maker ships for the concentrated and pegged programs of the Aqua router, derived the
 * way 1inch's SDK derives them (the protocol notes, "Program recipes"): a concentrated range from two
 * human prices, a pegged curve from the shipped amounts, the decimals and a flat band of ±X %.
 *
 * Prices are "the price of the second deposit's token in the first's": how many of the first token
 * one whole second token is worth. Lt/Gt are the tokens with the lower/higher address.
 */
import { parseUnits } from 'viem';

const E18 = 10n ** 18n;
const E27 = 10n ** 27n;
const E36 = 10n ** 36n;
/** The router refuses a wider flat band (PeggedSwapInvalidLinearWidth). */
export const MAX_LINEAR_WIDTH = 5000n * E27;

/** ⌊√n⌋ */
export function isqrt(n: bigint): bigint {
  if (n < 0n) throw new RangeError('isqrt of a negative number');
  if (n < 2n) return n;
  let x = 1n << (BigInt(n.toString(2).length + 1) / 2n);
  let y = (x + n / x) >> 1n;
  while (y < x) {
    x = y;
    y = (x + n / x) >> 1n;
  }
  return x;
}

export interface PairDecimals {
  /** Decimals of the token with the lower address. */
  lt: number;
  /** Decimals of the token with the higher address. */
  gt: number;
  /** Whether the first deposit (the quote of a price) is the token with the lower address. */
  firstIsLt: boolean;
}

/**
 * sqrt(P)·1e18 of a human price, P being tokenGt base units per tokenLt base unit (what
 * XYCConcentrateGrowLiquidity2D reads). `price` is decimal text; digits beyond the precision round.
 */
export function sqrtPriceOf(price: string, pair: PairDecimals): bigint {
  const scaled = parseUnits(price, pair.lt + pair.gt);
  if (scaled <= 0n) throw new RangeError('a price must be above 0');
  // The quote is the first deposit: Lt quoted means a price of Gt in Lt (inverted), else of Lt in Gt.
  return pair.firstIsLt
    ? isqrt((10n ** BigInt(2 * pair.gt) * E36) / scaled)
    : isqrt((scaled * E36) / 10n ** BigInt(2 * pair.lt));
}

/** The two sqrt bounds of a range of human prices, ordered by value (an inverted quote swaps them). */
export function concentratedRange(
  min: string,
  max: string,
  pair: PairDecimals,
): { sqrtPriceMin: bigint; sqrtPriceMax: bigint } {
  const [a, b] = [sqrtPriceOf(min, pair), sqrtPriceOf(max, pair)];
  return a < b ? { sqrtPriceMin: a, sqrtPriceMax: b } : { sqrtPriceMin: b, sqrtPriceMax: a };
}

/**
 * The spot sqrt price the shipped balances imply inside a range: the virtual balances of the range's
 * liquidity L (as the router computes it), then isqrt(VGt·1e36/VLt). A side at 0 sits on its bound.
 */
export function impliedSqrtPrice(
  balanceLt: bigint,
  balanceGt: bigint,
  range: { sqrtPriceMin: bigint; sqrtPriceMax: bigint },
): bigint {
  const { sqrtPriceMin: smin, sqrtPriceMax: smax } = range;
  if (balanceLt === 0n) return smax;
  if (balanceGt === 0n) return smin;
  const alpha = E18 - (smin * E18) / smax;
  const beta = (balanceLt * smin) / E18 + (balanceGt * E18) / smax;
  const liquidity =
    ((beta + isqrt(beta * beta + ((4n * alpha * balanceLt) / E18) * balanceGt)) * E18) / (2n * alpha);
  const virtualLt = balanceLt + (liquidity * E18) / smax;
  const virtualGt = balanceGt + (liquidity * smin) / E18;
  return isqrt((virtualGt * E36) / virtualLt);
}

/** The human price (second deposit's token in the first's) of a sqrt price, as a number for display. */
export function humanPriceOf(sqrtPrice: bigint, pair: PairDecimals): number {
  // P in base units of Gt per base unit of Lt, then whole tokens.
  const gtPerLt = (Number(sqrtPrice) / 1e18) ** 2 * 10 ** (pair.lt - pair.gt);
  return pair.firstIsLt ? 1 / gtPerLt : gtPerLt;
}

/** PeggedSwap rates: 1 for the token with more (or equal) decimals, 10^difference for the other. */
export function pegRates(pair: { lt: number; gt: number }): { rateLt: bigint; rateGt: bigint } {
  return pair.lt >= pair.gt
    ? { rateLt: 1n, rateGt: 10n ** BigInt(pair.lt - pair.gt) }
    : { rateLt: 10n ** BigInt(pair.gt - pair.lt), rateGt: 1n };
}

/**
 * linearWidth of a flat band of ±`percent` % around the peg: x = ⌊round(X·1e13)·1e27/(100·1e13)⌋,
 * linearWidth = ⌊(1e27 − x)·1e27/(2x)⌋ (±0.2 % → 249.5e27). A narrower band is flatter.
 */
export function linearWidthOf(percent: number): bigint {
  if (!(percent > 0 && percent < 100)) throw new RangeError('the band is a percent above 0 and below 100');
  const x = (BigInt(Math.round(percent * 1e13)) * E27) / (100n * 10n ** 13n);
  if (x === 0n) throw new RangeError('the band is too narrow');
  return ((E27 - x) * E27) / (2n * x);
}

/** PeggedSwapGrowPriceRange2D's arguments for shipped amounts: x0/y0 are the amounts at their rates. */
export function peggedArgs(
  shippedLt: bigint,
  shippedGt: bigint,
  pair: { lt: number; gt: number },
  bandPercent: number,
): { x0: bigint; y0: bigint; linearWidth: bigint; rateLt: bigint; rateGt: bigint } {
  const { rateLt, rateGt } = pegRates(pair);
  return {
    x0: shippedLt * rateLt,
    y0: shippedGt * rateGt,
    linearWidth: linearWidthOf(bandPercent),
    rateLt,
    rateGt,
  };
}

/**
 * The amount of one side that goes with `amount` of the other for a spot sqrt price strictly inside the
 * range (the SDK's computeLiquidityFromAmounts with the other side fixed): the liquidity that amount
 * gives, then the other side of it.
 */
export function fittingAmount(
  given: { side: 'lt' | 'gt'; amount: bigint },
  spot: bigint,
  range: { sqrtPriceMin: bigint; sqrtPriceMax: bigint },
): bigint {
  const { sqrtPriceMin: smin, sqrtPriceMax: smax } = range;
  if (!(smin < spot && spot < smax)) throw new RangeError('the spot is not inside the range');
  const product = (smax * spot) / E18;
  if (given.side === 'lt') {
    const liquidity = (given.amount * product) / (smax - spot);
    return (liquidity * (spot - smin)) / E18;
  }
  const liquidity = (given.amount * E18) / (spot - smin);
  return (liquidity * (smax - spot)) / product;
}
