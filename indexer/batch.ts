/**
 * Turns the decoded events of one chunk into the rows the catalogue stores. Pure: no I/O, so the
 * rules (what is a strategy, how a pair is named, how volume is priced) are tested without a chain.
 */
import type { Hex } from 'viem';
import { AQUA_TRAITS, decodeStrategy } from '../chain/order.js';
import { decodeProgram } from '../chain/program.js';
import type { ChainRegistry } from '../chain/registry.js';
import type { ChainEvent } from './events.js';

export interface TokenRef {
  address: string;
  symbol: string;
  decimals: number | null;
  /** Initial amount (base units), from the `Pushed` log of the ship. */
  amount: string;
}

export interface StrategyRow {
  hash: string;
  maker: string;
  app: string;
  strategy: string;
  traits: string;
  /** JSON text of the decoded program. */
  program: string;
  tokenA: string | null;
  tokenB: string | null;
  symbolA: string | null;
  symbolB: string | null;
  decimalsA: number | null;
  decimalsB: number | null;
  pairKey: string | null;
  /** JSON text of TokenRef[] in shipped order. */
  tokens: string;
  initialA: string | null;
  initialB: string | null;
  block: number;
  tx: string;
  time: string;
}

export interface BalanceRow {
  tx: string;
  logIndex: number;
  block: number;
  hash: string;
  maker: string;
  app: string;
  token: string;
  kind: 'pull' | 'push';
  amount: string;
  /** Block time (ISO), for the time-weighted liquidity of migration 027. */
  time: string;
}

export interface SwapRow {
  tx: string;
  logIndex: number;
  block: number;
  time: string;
  hash: string;
  maker: string;
  taker: string;
  tokenIn: string;
  tokenOut: string;
  amountIn: string;
  amountOut: string;
  volumeUsd: number;
}

export interface DockRow {
  hash: string;
  maker: string;
  app: string;
  block: number;
  tx: string;
  time: string;
}

export interface ChunkBatch {
  strategies: StrategyRow[];
  balances: BalanceRow[];
  swaps: SwapRow[];
  docks: DockRow[];
}

export interface BatchContext {
  chainKey: string;
  registry: ChainRegistry;
  /** USD price per upper-case symbol when the chunk is indexed (chain/prices.ts). */
  prices: Readonly<Record<string, number>>;
  /** Block number → unix seconds, for every block that holds an event. */
  blockTimes: ReadonlyMap<number, number>;
}

/** "0x1234...abcd": how a token outside the registry is named in symbols and pair keys. */
export function shortAddress(address: string): string {
  return `${address.slice(0, 6)}...${address.slice(-4)}`;
}

export function pairKeyOf(symbolA: string, symbolB: string): string {
  return [symbolA, symbolB].sort().join('/');
}

function tokenInfo(ctx: BatchContext, address: string): { symbol: string; decimals: number | null } {
  const token = ctx.registry.tokenByAddress(ctx.chainKey, address);
  return token
    ? { symbol: token.symbol, decimals: token.decimals }
    : { symbol: shortAddress(address), decimals: null };
}

/** amount × price(token) / 10^decimals; an unknown token or one without a price counts 0. */
export function volumeUsd(
  ctx: Pick<BatchContext, 'chainKey' | 'registry' | 'prices'>,
  token: string,
  amount: bigint,
) {
  const known = ctx.registry.tokenByAddress(ctx.chainKey, token);
  if (!known) return 0;
  const price = ctx.prices[known.symbol.toUpperCase()] ?? 0;
  if (price === 0 || amount === 0n) return 0;
  return (Number(amount) / 10 ** known.decimals) * price;
}

/** The block's time as an ISO string (timestamptz text), computed once per block. */
function timeOf(ctx: BatchContext, cache: Map<number, string>, block: number): string {
  let iso = cache.get(block);
  if (iso === undefined) {
    const seconds = ctx.blockTimes.get(block);
    if (seconds === undefined) throw new Error(`no timestamp for block ${block}`);
    iso = new Date(seconds * 1000).toISOString();
    cache.set(block, iso);
  }
  return iso;
}

// Program instructions carry bigints (deadline, salt): stored as decimal strings.
const jsonReplacer = (_key: string, value: unknown) => (typeof value === 'bigint' ? value.toString() : value);

/**
 * A `Shipped` log is a strategy when its bytes decode as a canonical SwapVM order with the Aqua bit
 * (254) set and the order's maker is the shipper. Its tokens and initial amounts are the `Pushed` logs
 * that follow it in the same transaction. Apps other than the chain's router are kept (their `app`
 * tells them apart); so are tokens outside the registry.
 */
function strategyOf(
  ctx: BatchContext,
  times: Map<number, string>,
  events: readonly ChainEvent[],
  index: number,
): StrategyRow | null {
  const shipped = events[index]!;
  if (shipped.kind !== 'Shipped') return null;
  const order = decodeStrategy(shipped.strategy);
  if (!order || (order.traits & AQUA_TRAITS) === 0n || order.maker.toLowerCase() !== shipped.maker)
    return null;

  const tokens: TokenRef[] = [];
  for (let j = index + 1; j < events.length; j++) {
    const e = events[j]!;
    if (e.txHash !== shipped.txHash || e.kind !== 'Pushed' || e.strategyHash !== shipped.strategyHash) break;
    tokens.push({ address: e.token, ...tokenInfo(ctx, e.token), amount: e.amount.toString() });
  }
  const two = tokens.length === 2 && tokens[0]!.address !== tokens[1]!.address;
  const [a, b] = two ? [...tokens].sort((x, y) => (x.address < y.address ? -1 : 1)) : [undefined, undefined];
  return {
    hash: shipped.strategyHash,
    maker: shipped.maker,
    app: shipped.app,
    strategy: shipped.strategy,
    traits: order.traits.toString(),
    program: JSON.stringify(decodeProgram(order.data as Hex), jsonReplacer),
    tokenA: a?.address ?? null,
    tokenB: b?.address ?? null,
    symbolA: a?.symbol ?? null,
    symbolB: b?.symbol ?? null,
    decimalsA: a?.decimals ?? null,
    decimalsB: b?.decimals ?? null,
    pairKey: a && b ? pairKeyOf(a.symbol, b.symbol) : null,
    tokens: JSON.stringify(tokens),
    initialA: a?.amount ?? null,
    initialB: b?.amount ?? null,
    block: shipped.blockNumber,
    tx: shipped.txHash,
    time: timeOf(ctx, times, shipped.blockNumber),
  };
}

export function buildBatch(ctx: BatchContext, events: readonly ChainEvent[]): ChunkBatch {
  const batch: ChunkBatch = { strategies: [], balances: [], swaps: [], docks: [] };
  const times = new Map<number, string>();
  for (let i = 0; i < events.length; i++) {
    const e = events[i]!;
    switch (e.kind) {
      case 'Shipped': {
        const row = strategyOf(ctx, times, events, i);
        if (row) batch.strategies.push(row);
        break;
      }
      case 'Pulled':
      case 'Pushed':
        batch.balances.push({
          tx: e.txHash,
          logIndex: e.logIndex,
          block: e.blockNumber,
          hash: e.strategyHash,
          maker: e.maker,
          app: e.app,
          token: e.token,
          kind: e.kind === 'Pulled' ? 'pull' : 'push',
          amount: e.amount.toString(),
          time: timeOf(ctx, times, e.blockNumber),
        });
        break;
      case 'Docked':
        batch.docks.push({
          hash: e.strategyHash,
          maker: e.maker,
          app: e.app,
          block: e.blockNumber,
          tx: e.txHash,
          time: timeOf(ctx, times, e.blockNumber),
        });
        break;
      case 'Swapped': {
        batch.swaps.push({
          tx: e.txHash,
          logIndex: e.logIndex,
          block: e.blockNumber,
          time: timeOf(ctx, times, e.blockNumber),
          hash: e.orderHash,
          maker: e.maker,
          taker: e.taker,
          tokenIn: e.tokenIn,
          tokenOut: e.tokenOut,
          amountIn: e.amountIn.toString(),
          amountOut: e.amountOut.toString(),
          volumeUsd: volumeUsd(ctx, e.tokenIn, e.amountIn),
        });
        break;
      }
    }
  }
  return batch;
}
