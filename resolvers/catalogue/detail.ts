/** One strategy: found by hash, its shipped bytes decoded and its latest swaps. */
import type { Hex } from 'viem';
import { decodeStrategy } from '../../chain/order.js';
import {
  type DecodedProgram,
  decodeProgram,
  describeProgram,
  type ProgramInstruction,
  uintArg,
} from '../../chain/program.js';
import { humanPriceOf } from '../../chain/strategyArgs.js';
import { ApiError } from '../../lib/errors.js';
import { priceOf } from '../../lib/usd.js';
import { recentSwaps, type StrategyDetailRow, type SwapRow } from '../../store/catalogue.js';
import type { GraphQLContext } from '../context.js';
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

/** The shipped bytes of a list row (which does not carry them) or of a detail row. */
async function shippedBytes(ctx: GraphQLContext, row: StrategyView): Promise<{ bytes: string | undefined }> {
  if (row.strategy !== undefined) return { bytes: row.strategy };
  const full = (await ctx.loaders.strategiesByHash.load(row.strategy_hash)).find(
    (r) => r.chain_key === row.chain_key,
  );
  return { bytes: full?.strategy };
}

/**
 * An instruction as the REST detail has always shown it (opcode, name, args as hex, `decoded`: the
 * args by name when they decode; uints up to 32 bits as numbers, wider ones as decimal strings), plus
 * what the table decoder adds: offset, typedArgs, ok, error.
 */
function instructionJson(instruction: ProgramInstruction): unknown {
  if (!instruction.ok) return instruction;
  const named = instruction.typedArgs.map((a) => [
    a.name,
    a.type === 'uint16' || a.type === 'uint32' ? Number(a.value) : a.value,
  ]);
  // `decoded` in its documented place: after the raw args, before their typed list.
  const { offset, opcode, name, args, ...rest } = instruction;
  return { offset, opcode, name, args, decoded: Object.fromEntries(named), ...rest };
}

/**
 * The REST detail's `decoded`: the order (maker, traits, Aqua flag) and the program's instructions, from
 * the shipped bytes (the graph says the same typed: `Strategy.order` and `Strategy.program`). The indexer
 * stores only strategies whose bytes decode as an order, so `order` is null only for bytes it never wrote.
 */
export function renderDecoded(bytes: string | null): { order: ShippedOrder | null; program: unknown[] } {
  const order = orderOf(bytes ?? undefined);
  return { order, program: order ? decodeProgram(order.data).map(instructionJson) : [] };
}

export interface ShippedOrder {
  /** Lower case. */
  maker: string;
  /** uint256 in decimal. */
  traits: string;
  useAqua: boolean;
  /** The program bytes. */
  data: Hex;
}

/** The shipped order's fields; null when the bytes are not an order. */
export async function shippedOrder(ctx: GraphQLContext, row: StrategyView): Promise<ShippedOrder | null> {
  return orderOf((await shippedBytes(ctx, row)).bytes);
}

function orderOf(bytes: string | undefined): ShippedOrder | null {
  const order = bytes ? decodeStrategy(bytes as Hex) : null;
  if (!order) return null;
  return {
    maker: order.maker.toLowerCase(),
    traits: order.traits.toString(),
    useAqua: ((order.traits >> 254n) & 1n) === 1n,
    data: order.data,
  };
}

/** The program of the shipped order, instruction by instruction; null when the bytes are not an order. */
export async function strategyProgram(
  ctx: GraphQLContext,
  row: StrategyView,
): Promise<DecodedProgram | null> {
  const order = await shippedOrder(ctx, row);
  return order ? describeProgram(order.data) : null;
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

/**
 * The range of a concentrated program in prices: sqrtPrice = sqrt(P)·1e18 with P in base units of
 * tokenB (the higher address) per base unit of tokenA, so a whole tokenA is worth
 * (sqrtPrice/1e18)²·10^(decimalsA − decimalsB) tokenB. Null for any other program.
 */
export async function strategyPriceRange(ctx: GraphQLContext, row: StrategyView) {
  return priceRangeOf((await strategyProgram(ctx, row))?.instructions ?? null, row);
}

/**
 * A bound of a range in USD: a whole `of` at that bound is worth `bound` of `in`, at `in`'s price now.
 * Null when nothing prices `in` (never a price of 1 for an unpriced token).
 */
export async function priceRangeUsd(
  ctx: GraphQLContext,
  range: { in: string | null },
  bound: number,
): Promise<number | null> {
  const price = priceOf(await ctx.services.prices.usd(), range.in);
  return price === 0 ? null : Number((bound * price).toPrecision(10));
}

/** The range of a program's XYCConcentrateGrowLiquidity2D in prices (see above); null without one. */
export function priceRangeOf(
  instructions: readonly ProgramInstruction[] | null,
  row: Pick<StrategyView, 'decimals_a' | 'decimals_b' | 'symbol_a' | 'symbol_b'>,
): { of: string | null; in: string | null; min: number; max: number } | null {
  const concentrate = instructions?.find((i) => i.name === 'XYCConcentrateGrowLiquidity2D' && i.ok);
  if (!concentrate || row.decimals_a === null || row.decimals_b === null) return null;
  // tokenA is the lower address: its price in tokenB is the Gt-per-Lt price of the sqrt bound.
  const pair = { lt: row.decimals_a, gt: row.decimals_b, firstIsLt: false };
  const bound = (name: string) =>
    Number(humanPriceOf(uintArg(concentrate, name) ?? 0n, pair).toPrecision(10));
  return { of: row.symbol_a, in: row.symbol_b, min: bound('sqrtPriceMin'), max: bound('sqrtPriceMax') };
}
