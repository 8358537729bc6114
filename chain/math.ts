/**
 * exactIn arithmetic of the program `AquaProtocolFee(pf) → FlatFee(ff) → XYCSwap` on the 1e9 fee
 * scale, as the router computes it (PROTOCOL.md):
 *   p = floor(a·pf/1e9); a1 = a − p; f = ceil(a1·ff/1e9); a2 = a1 − f; out = floor(a2·bo/(bi + a2)).
 */

const SCALE = 1_000_000_000n;

export type ExactInQuote = {
  /** Gross input the taker pays (= the requested amount). */
  amountIn: bigint;
  amountOut: bigint;
  /** Leaves the pool to the protocol's receiver on swap. */
  protocolFee: bigint;
  /** The maker's fee; stays in the pool. */
  flatFee: bigint;
};

function feeBig(fee1e9: number | bigint, what: string): bigint {
  const fee = BigInt(fee1e9);
  if (fee < 0n || fee > SCALE) throw new RangeError(`${what} must be in [0, 1e9]: ${fee1e9}`);
  return fee;
}

export function quoteExactIn(params: {
  amountIn: bigint;
  balanceIn: bigint;
  balanceOut: bigint;
  protocolFee1e9: number | bigint;
  flatFee1e9: number | bigint;
}): ExactInQuote {
  const { amountIn: a, balanceIn: bi, balanceOut: bo } = params;
  if (a < 0n || bi < 0n || bo < 0n) throw new RangeError('amounts and balances must be non-negative');
  const pf = feeBig(params.protocolFee1e9, 'protocolFee1e9');
  const ff = feeBig(params.flatFee1e9, 'flatFee1e9');
  const protocolFee = (a * pf) / SCALE;
  const a1 = a - protocolFee;
  const flatFee = (a1 * ff + SCALE - 1n) / SCALE;
  const a2 = a1 - flatFee;
  const amountOut = bi + a2 === 0n ? 0n : (a2 * bo) / (bi + a2);
  return { amountIn: a, amountOut, protocolFee, flatFee };
}

/** Strategy balances after a swap: the flat fee stays in the pool, the protocol fee leaves it. */
export function balancesAfterExactIn(
  quote: ExactInQuote,
  balances: { balanceIn: bigint; balanceOut: bigint },
): { balanceIn: bigint; balanceOut: bigint } {
  return {
    balanceIn: balances.balanceIn - quote.protocolFee + quote.amountIn,
    balanceOut: balances.balanceOut - quote.amountOut,
  };
}
