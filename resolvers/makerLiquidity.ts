/**
 * A maker's liquidity split three ways, per token of its open strategies and in USD: what its strategies
 * hold (virtual balances, as indexed), what they can really pay out (pullable: the smaller of that, the
 * wallet's balance and its allowance to Aqua, one wallet and one allowance serving every strategy), and
 * what sits in the wallet. The wallet figures are the indexer's last read (indexer/walletReader.ts).
 */
import { amountUsd, cents } from '../lib/usd.js';
import type { MakerRow } from '../store/makers.js';
import { makerLiquidity } from '../store/makerWallets.js';
import type { GraphQLContext } from './context.js';

/** One token's liquidity, of a maker (summed over its open strategies) or of one strategy. */
export interface LiquidityToken {
  address: string;
  symbol: string | null;
  decimals: number | null;
  /** Null for a strategy whose balance is unknown. */
  virtual: string | null;
  walletBalance: string | null;
  allowance: string | null;
  pullable: string | null;
  virtualUsd: number | null;
  pullableUsd: number | null;
  walletUsd: number | null;
  readAt: Date | null;
}

export interface MakerLiquidityView {
  virtualUsd: number;
  /** Over the tokens read; null until the wallet was read. */
  pullableUsd: number | null;
  walletUsd: number | null;
  /** The oldest read of the tokens; null until the wallet was read. */
  readAt: Date | null;
  tokens: LiquidityToken[];
}

export async function makerLiquidityOf(ctx: GraphQLContext, row: MakerRow): Promise<MakerLiquidityView> {
  const [rows, prices] = await Promise.all([
    makerLiquidity(ctx.services.db, row.chain_key, row.maker),
    ctx.services.prices.usd(),
  ]);
  const usdOf = (symbol: string | null, decimals: number | null, amount: string | null) =>
    amount === null ? null : cents(amountUsd(prices, { symbol, decimals, amount }));
  const tokens = rows.map(
    (r): LiquidityToken => ({
      address: r.token,
      symbol: r.symbol,
      decimals: r.decimals,
      virtual: r.virtual,
      walletBalance: r.balance,
      allowance: r.allowance,
      pullable: r.pullable,
      virtualUsd: usdOf(r.symbol, r.decimals, r.virtual),
      pullableUsd: usdOf(r.symbol, r.decimals, r.pullable),
      walletUsd: usdOf(r.symbol, r.decimals, r.balance),
      readAt: r.read_at,
    }),
  );
  const read = tokens.filter((t) => t.readAt !== null);
  const sum = (pick: (t: LiquidityToken) => number | null) =>
    cents(read.reduce((total, t) => total + (pick(t) ?? 0), 0));
  return {
    virtualUsd: cents(tokens.reduce((total, t) => total + (t.virtualUsd ?? 0), 0)),
    pullableUsd: read.length === 0 ? null : sum((t) => t.pullableUsd),
    walletUsd: read.length === 0 ? null : sum((t) => t.walletUsd),
    readAt: read.length === 0 ? null : new Date(Math.min(...read.map((t) => t.readAt!.getTime()))),
    tokens,
  };
}
