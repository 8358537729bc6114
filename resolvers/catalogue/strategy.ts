/** The fields of one strategy as the schema resolves them: tokens, pair, chain id, shipped and docked. */
import { pairKeyOf } from '../../indexer/batch.js';
import { type TokenInfo, tokenKey } from '../../loaders/catalogue.js';
import type { StrategyDetailRow, StrategyRow } from '../../store/catalogue.js';
import type { GraphQLContext } from '../context.js';

/** A strategy as the schema resolves it: a list row, or a detail row that also has the shipped bytes. */
export type StrategyView = StrategyRow & Partial<Omit<StrategyDetailRow, keyof StrategyRow>>;

/** The detail columns of a listed strategy, loaded (batched) only when a field asks for them. */
export async function strategyDetailOf(
  ctx: GraphQLContext,
  row: StrategyView,
): Promise<Partial<StrategyDetailRow>> {
  if (row.strategy !== undefined) return row;
  const rows = await ctx.loaders.strategiesByHash.load(row.strategy_hash);
  return rows.find((r) => r.chain_key === row.chain_key) ?? {};
}

/** In the documented order of a strategy's token (the REST list serialises it as built). */
export interface StrategyTokenView {
  symbol: string | null;
  address: string;
  decimals: number | null;
  initialAmount: string | null;
  currentAmount: string | null;
}

type TokenItem = { address?: unknown; token?: unknown; symbol?: unknown; decimals?: unknown } & Record<
  string,
  unknown
>;

const amountText = (value: unknown): string | null =>
  typeof value === 'string' || typeof value === 'number' || typeof value === 'bigint' ? String(value) : null;

/**
 * The tokens of a strategy with their amounts in base units. Two-token strategies carry everything in
 * columns; other token counts keep `tokens` (addresses, maybe amounts) and are named through the
 * token loader.
 */
export function strategyTokens(
  ctx: GraphQLContext,
  row: StrategyView,
): StrategyTokenView[] | Promise<StrategyTokenView[]> {
  if (row.token_a && row.token_b) {
    const tokens: StrategyTokenView[] = [
      {
        symbol: row.symbol_a,
        address: row.token_a,
        decimals: row.decimals_a,
        initialAmount: row.initial_a,
        currentAmount: row.balance_a,
      },
      {
        symbol: row.symbol_b,
        address: row.token_b,
        decimals: row.decimals_b,
        initialAmount: row.initial_b,
        currentAmount: row.balance_b,
      },
    ];
    if (tokens.every((t) => t.symbol !== null && t.decimals !== null)) return tokens;
    return fillTokens(ctx, row.chain_key, tokens);
  }
  const items = Array.isArray(row.tokens) ? (row.tokens as unknown[]) : [];
  const tokens = items.flatMap((item): StrategyTokenView[] => {
    const entry: TokenItem = typeof item === 'string' ? { address: item } : ((item ?? {}) as TokenItem);
    const address =
      typeof entry.address === 'string'
        ? entry.address
        : typeof entry.token === 'string'
          ? entry.token
          : null;
    if (!address) return [];
    return [
      {
        symbol: typeof entry.symbol === 'string' ? entry.symbol : null,
        address: address.toLowerCase(),
        decimals: typeof entry.decimals === 'number' ? entry.decimals : null,
        initialAmount: amountText(entry.initial ?? entry.initialAmount ?? entry.amount),
        currentAmount: amountText(entry.balance ?? entry.currentAmount),
      },
    ];
  });
  return fillTokens(ctx, row.chain_key, tokens);
}

async function fillTokens(
  ctx: GraphQLContext,
  chain: string,
  tokens: StrategyTokenView[],
): Promise<StrategyTokenView[]> {
  const infos = await Promise.all(
    tokens.map((t) =>
      t.symbol !== null && t.decimals !== null
        ? null
        : ctx.loaders.token.load(tokenKey(chain, t.address)).catch((): TokenInfo | null => null),
    ),
  );
  return tokens.map((t, i) => ({
    ...t,
    symbol: t.symbol ?? infos[i]?.symbol ?? null,
    decimals: t.decimals ?? infos[i]?.decimals ?? null,
  }));
}

export function pairOf(row: StrategyView): string | null {
  if (row.pair_key) return row.pair_key;
  return row.symbol_a && row.symbol_b ? pairKeyOf(row.symbol_a, row.symbol_b) : null;
}

export function chainIdOf(ctx: GraphQLContext, row: StrategyView): number {
  return ctx.services.registry.get(row.chain_key)?.chainId ?? 0;
}

/** The app is the chain's verified router (the one quotes simulate). */
export function isVerifiedRouter(ctx: GraphQLContext, row: StrategyView): boolean {
  return ctx.services.registry.isRouter(row.chain_key, row.app);
}

export const shippedOf = (row: StrategyView) => ({
  at: row.shipped_at,
  block: Number(row.shipped_block),
  tx: row.shipped_tx,
});

export const dockedOf = (row: StrategyView) =>
  row.status === 'docked'
    ? { at: row.docked_at, block: row.docked_block === null ? null : Number(row.docked_block) }
    : null;
