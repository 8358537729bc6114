/**
 * One strategy's liquidity per token: its virtual balance, what it can really pay out (the smaller of
 * that, its maker's wallet balance and allowance to Aqua, as the indexer last read them: a cap the
 * maker's other strategies share), and the wallet's balance. Its `state` follows from the same figures
 * and is kept by the store (strategy_state, migration 030), so the list's rendered entries carry it too.
 */
import { amountUsd, cents } from '../../lib/usd.js';
import { walletOf } from '../../store/makerWallets.js';
import type { GraphQLContext } from '../context.js';
import type { LiquidityToken } from '../makerLiquidity.js';
import { type StrategyView, strategyTokens } from './strategy.js';

export interface StrategyLiquidityView {
  virtualUsd: number;
  /** Null until its maker's wallet was read. */
  pullableUsd: number | null;
  readAt: Date | null;
  tokens: LiquidityToken[];
}

// biome-ignore lint/complexity/useMathMinMax: bigints, which Math.min does not take.
const min = (...values: bigint[]) => values.reduce((a, b) => (b < a ? b : a));

export async function strategyLiquidityOf(
  ctx: GraphQLContext,
  row: StrategyView,
): Promise<StrategyLiquidityView> {
  const tokens = await strategyTokens(ctx, row);
  const [wallet, prices] = await Promise.all([
    walletOf(
      ctx.services.db,
      row.chain_key,
      row.maker,
      tokens.map((t) => t.address),
    ),
    ctx.services.prices.usd(),
  ]);
  const docked = row.status === 'docked';
  const usdOf = (t: { symbol: string | null; decimals: number | null }, amount: string | null) =>
    amount === null ? null : cents(amountUsd(prices, { ...t, amount }));
  const view = tokens.map((t): LiquidityToken => {
    const read = wallet.find((w) => w.token === t.address.toLowerCase());
    // A docked strategy's balances left Aqua: it holds and pays out nothing.
    const virtual = docked ? '0' : t.currentAmount;
    const pullable =
      read && virtual !== null
        ? min(BigInt(virtual), BigInt(read.balance), BigInt(read.allowance)).toString()
        : null;
    return {
      address: t.address,
      symbol: t.symbol,
      decimals: t.decimals,
      virtual,
      walletBalance: read?.balance ?? null,
      allowance: read?.allowance ?? null,
      pullable,
      virtualUsd: usdOf(t, virtual),
      pullableUsd: usdOf(t, pullable),
      walletUsd: usdOf(t, read?.balance ?? null),
      readAt: read?.read_at ?? null,
    };
  });
  const read = view.filter((t) => t.readAt !== null);
  return {
    virtualUsd: cents(view.reduce((sum, t) => sum + (t.virtualUsd ?? 0), 0)),
    pullableUsd: read.length === 0 ? null : cents(read.reduce((sum, t) => sum + (t.pullableUsd ?? 0), 0)),
    readAt: read.length === 0 ? null : new Date(Math.min(...read.map((t) => t.readAt!.getTime()))),
    tokens: view,
  };
}
