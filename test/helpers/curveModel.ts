/**
 * The router's arithmetic written again from the documented formulas (the reference router's, as the
 * protocol notes give them), in bigint, to check the devnet router against: nothing here is shared with
 * the contracts or the service.
 */

export const E18 = 10n ** 18n;
export const E27 = 10n ** 27n;
const FEE_SCALE = 10n ** 9n;

/** Thrown where the router reverts; `reason` names the revert. */
export class Revert extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

const div = (x: bigint, y: bigint): bigint => {
  if (y === 0n) throw new Revert('Panic(0x12)');
  return x / y;
};
const sub = (x: bigint, y: bigint): bigint => {
  if (y > x) throw new Revert('Panic(0x11)');
  return x - y;
};
/** ⌈x/y⌉ = x == 0 ? 0 : (x − 1)/y + 1 */
export const ceilDiv = (x: bigint, y: bigint): bigint => (x === 0n ? 0n : div(x - 1n, y) + 1n);

/** Floor square root by bisection (deliberately not Newton's method, which the contract uses). */
export function isqrt(n: bigint): bigint {
  if (n < 2n) return n;
  let lo = 1n;
  let hi = 1n << (BigInt(n.toString(2).length) / 2n + 1n);
  while (lo < hi) {
    const mid = (lo + hi + 1n) / 2n;
    if (mid * mid <= n) lo = mid;
    else hi = mid - 1n;
  }
  return lo;
}
const sqrtUp = (n: bigint): bigint => {
  const r = isqrt(n);
  return r * r === n ? r : r + 1n;
};

export interface Fees {
  protocol: bigint; // 1e9 scale
  flat: bigint; // 1e9 scale
}

/** exactIn through protocol fee → flat fee: what reaches the curve, and the protocol fee pulled. */
export function feesIn(amount: bigint, fees: Fees): { net: bigint; protocolFee: bigint } {
  const protocolFee = (amount * fees.protocol) / FEE_SCALE;
  const a1 = amount - protocolFee;
  const flatFee = ceilDiv(a1 * fees.flat, FEE_SCALE);
  return { net: a1 - flatFee, protocolFee };
}

/** exactOut: the gross input for a curve input `i0` (flat fee innermost), and the protocol fee. */
export function feesOut(i0: bigint, fees: Fees): { gross: bigint; protocolFee: bigint } {
  const i1 = i0 + ceilDiv(i0 * fees.flat, FEE_SCALE - fees.flat);
  const protocolFee = div(i1 * fees.protocol, FEE_SCALE - fees.protocol);
  return { gross: i1 + protocolFee, protocolFee };
}

export const xycOut = (a: bigint, vIn: bigint, vOut: bigint): bigint => div(a * vOut, vIn + a);
export const xycIn = (o: bigint, vIn: bigint, vOut: bigint): bigint => ceilDiv(o * vIn, sub(vOut, o));

/** XYCConcentrateGrowLiquidity2D: the virtual balances the rest of the program sees. */
export function concentrate(
  balanceIn: bigint,
  balanceOut: bigint,
  inIsLt: boolean,
  sqrtMin: bigint,
  sqrtMax: bigint,
): { vIn: bigint; vOut: bigint; liquidity: bigint } {
  const [bLt, bGt] = inIsLt ? [balanceIn, balanceOut] : [balanceOut, balanceIn];
  const alpha = sub(E18, div(sqrtMin * E18, sqrtMax));
  const beta = (bLt * sqrtMin) / E18 + div(bGt * E18, sqrtMax);
  const d = beta * beta + ((4n * alpha * bLt) / E18) * bGt;
  const liquidity = div((beta + isqrt(d)) * E18, 2n * alpha);
  return inIsLt
    ? {
        vIn: balanceIn + ceilDiv(liquidity * E18, sqrtMax),
        vOut: balanceOut + (liquidity * sqrtMin) / E18,
        liquidity,
      }
    : {
        vIn: balanceIn + ceilDiv(liquidity * sqrtMin, E18),
        vOut: balanceOut + (liquidity * E18) / sqrtMax,
        liquidity,
      };
}

export interface PegArgs {
  x0: bigint;
  y0: bigint;
  linearWidth: bigint;
  rateLt: bigint;
  rateGt: bigint;
}

function peg(args: PegArgs, inIsLt: boolean, balanceIn: bigint, balanceOut: bigint) {
  const [rIn, rOut, X, Y] = inIsLt
    ? [args.rateLt, args.rateGt, args.x0, args.y0]
    : [args.rateGt, args.rateLt, args.y0, args.x0];
  const xn = balanceIn * rIn;
  const yn = balanceOut * rOut;
  const u = (xn * E27) / X;
  const v = (yn * E27) / Y;
  const A = args.linearWidth;
  const C = isqrt(u * E27) + isqrt(v * E27) + (A * (u + v)) / E27;
  const solve = (s: bigint): bigint => {
    const t = isqrt(s * E27) + (A * s) / E27;
    if (t > C) throw new Revert('PeggedSwapMathInvalidInput');
    const R = C - t;
    if (A === 0n) return (R * R) / E27;
    const D = E27 + (4n * A * R) / E27;
    const w = (2n * R * E27) / (E27 + sqrtUp(D * E27));
    return (w * w) / E27;
  };
  return { rIn, rOut, X, Y, xn, yn, solve };
}

/** PeggedSwapGrowPriceRange2D exactIn: output for a curve input `a`. */
export function peggedOut(args: PegArgs, inIsLt: boolean, balanceIn: bigint, balanceOut: bigint, a: bigint) {
  const p = peg(args, inIsLt, balanceIn, balanceOut);
  const u1 = ((p.xn + a * p.rIn) * E27) / p.X;
  const v1 = p.solve(u1);
  const y1 = ceilDiv(v1 * p.Y, E27);
  return sub(p.yn, y1) / p.rOut;
}

/** PeggedSwapGrowPriceRange2D exactOut: curve input for an output `o`. */
export function peggedIn(args: PegArgs, inIsLt: boolean, balanceIn: bigint, balanceOut: bigint, o: bigint) {
  const p = peg(args, inIsLt, balanceIn, balanceOut);
  const y1 = sub(p.yn, o * p.rOut);
  const v1 = (y1 * E27) / p.Y;
  const u1 = p.solve(v1);
  const x1 = ceilDiv(u1 * p.X, E27);
  return ceilDiv(sub(x1, p.xn), p.rIn);
}

/** A Decay slot's value at `now`. */
export function decayValue(offset: bigint, time: bigint, period: bigint, now: bigint): bigint {
  if (now >= time + period) return 0n;
  return (offset * (time + period - now)) / period;
}
