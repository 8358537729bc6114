/**
 * A /graphql amplification document: `aliases` copies of a full strategies page, each
 * strategy with its recent swaps. With the defaults (210 × 100 × 100) it asked ~2 million swap rows in
 * ~21 000 statements, and three at once took the store's pool from the public paths. Exported for the
 * test of the limits and for benches that send it.
 */
export function bombDocument(aliases = 210, limit = 100, swaps = 100): string {
  const one = (i: number) =>
    `a${i}: strategies(first: ${limit}) { edges { node { hash recentSwaps(limit: ${swaps}) { txHash amountIn amountOut at } } } }`;
  return `{ ${Array.from({ length: aliases }, (_, i) => one(i)).join(' ')} }`;
}

/** The JSON body of a POST /graphql carrying the bomb. */
export function bombBody(aliases = 210, limit = 100, swaps = 100): string {
  return JSON.stringify({ query: bombDocument(aliases, limit, swaps) });
}
