/**
 * USD value of base-unit token amounts at the prices of chain/prices.ts (by upper-case symbol): how TVL is priced everywhere (stats roll-up, maker view), as indexer/batch.ts `volumeUsd`
 * prices a swap. A token without a symbol, decimals or price counts 0.
 */
export type UsdPrices = Readonly<Record<string, number>>;

export interface TokenAmount {
  symbol: string | null;
  decimals: number | null;
  /** Base units, as Postgres numeric text or a bigint. */
  amount: string | bigint;
}

export function priceOf(prices: UsdPrices, symbol: string | null): number {
  return symbol === null ? 0 : (prices[symbol.toUpperCase()] ?? 0);
}

export function amountUsd(prices: UsdPrices, token: TokenAmount): number {
  const price = priceOf(prices, token.symbol);
  if (price === 0 || token.decimals === null) return 0;
  return (Number(token.amount) / 10 ** token.decimals) * price;
}

/** Rounded to cents, as every USD figure of the read models. */
export const cents = (usd: number): number => Math.round(usd * 100) / 100;
