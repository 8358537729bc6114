/** One strategy: found by hash, its shipped bytes decoded and its latest swaps. */
import type { Hex } from 'viem';
import { decodeStrategy } from '../../chain/order.js';
import { decodeProgram } from '../../chain/program.js';
import { ApiError } from '../../lib/errors.js';
import type { GraphQLContext } from '../../schema/context.js';
import { recentSwaps, type StrategyDetailRow, type SwapRow } from '../../store/catalogue.js';
import { HASH, MAX_LIMIT, resolveChain } from './params.js';
import type { StrategyView } from './strategy.js';

/**
 * A strategy by hash, open or docked. A hash is chain-independent, so the same bytes shipped on two
 * chains are two strategies: `chain` picks one; without it the open one shipped last wins (its
 * `alsoOnChains` names the others).
 */
export async function strategyByHash(
  ctx: GraphQLContext,
  hash: string,
  chain?: string | null,
): Promise<StrategyDetailRow | null> {
  if (!HASH.test(hash)) throw ApiError.invalid('hash', 'hash must be 0x followed by 64 hex characters.');
  const chainKey = chain ? resolveChain(ctx, chain).key : null;
  const rows = await ctx.loaders.strategiesByHash.load(hash.toLowerCase());
  const candidates = chainKey ? rows.filter((r) => r.chain_key === chainKey) : rows;
  const [best] = [...candidates].sort(
    (a, b) =>
      Number(b.status === 'active') - Number(a.status === 'active') ||
      Date.parse(b.shipped_at) - Date.parse(a.shipped_at),
  );
  return best ?? null;
}

/** The shipped bytes decoded: the order (maker, traits, Aqua flag) and the program's instructions. */
export async function decodedStrategy(ctx: GraphQLContext, row: StrategyView): Promise<unknown> {
  let bytes = row.strategy;
  let stored = row.program;
  if (bytes === undefined) {
    const full = (await ctx.loaders.strategiesByHash.load(row.strategy_hash)).find(
      (r) => r.chain_key === row.chain_key,
    );
    bytes = full?.strategy;
    stored = full?.program;
  }
  const order = bytes ? decodeStrategy(bytes as Hex) : null;
  if (!order) return { order: null, program: toJson(stored ?? []) };
  return {
    order: {
      maker: order.maker.toLowerCase(),
      traits: order.traits.toString(),
      useAqua: ((order.traits >> 254n) & 1n) === 1n,
      data: order.data,
    },
    program: toJson(decodeProgram(order.data)),
  };
}

/** bigints (uint256 args) as decimal strings, so the value is plain JSON. */
function toJson(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)));
}

export interface SwapView {
  txHash: string;
  logIndex: number;
  block: number;
  at: Date;
  taker: string;
  tokenIn: string;
  tokenOut: string;
  amountIn: string;
  amountOut: string;
  volumeUsd: number;
}

export async function strategySwaps(
  ctx: GraphQLContext,
  row: StrategyView,
  limit: number,
): Promise<SwapView[]> {
  if (!Number.isInteger(limit) || limit < 0 || limit > MAX_LIMIT) {
    throw ApiError.invalid('swaps', `swaps must be an integer from 0 to ${MAX_LIMIT}.`);
  }
  if (limit === 0) return [];
  const rows: SwapRow[] = await recentSwaps(ctx.services.db, row.chain_key, row.strategy_hash, limit);
  return rows.map((s) => ({
    txHash: s.tx_hash,
    logIndex: s.log_index,
    block: Number(s.block_number),
    at: s.block_time,
    taker: s.taker,
    tokenIn: s.token_in,
    tokenOut: s.token_out,
    amountIn: s.amount_in,
    amountOut: s.amount_out,
    volumeUsd: s.volume_usd,
  }));
}
