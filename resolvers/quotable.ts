/**
 * What a quote and a prepared swap know of a strategy before they simulate it: its catalogue row checked
 * once (on the chain's verified router, a USDC/USDT pair, a canonical SwapVM order, open), its order,
 * tokens and fee steps, and its simulation calldata as a template. A hash fixes the strategy's bytes for
 * good, so this is kept per store (bounded); from then on the chain is the authority on the strategy's
 * state, read in the same eth_call as each quote.
 */
import { type Address, getAddress, type Hex } from 'viem';
import type { ChainClient } from '../chain/clients.js';
import { keccak256 } from '../chain/keccak.js';
import { decodeStrategy, type Order } from '../chain/order.js';
import { type SimulationParams, simulationTemplate, swapSimulationTemplate } from '../chain/simulate.js';
import { exactInTakerTraits } from '../chain/takerTraits.js';
import type { ChainConfig, TokenConfig } from '../lib/config.js';
import { ApiError } from '../lib/errors.js';
import type { Services } from '../lib/services.js';
import type { StrategyDetailRow } from '../store/catalogue.js';
import type { Db } from '../store/db.js';
import type { GraphQLContext } from './context.js';
import { type FeeStep, feeSteps } from './quoteFees.js';

export const QUOTE_DIRECTIONS = ['aToB', 'bToA'] as const;
export type QuoteDirection = (typeof QUOTE_DIRECTIONS)[number];

export interface QuoteToken {
  symbol: string;
  address: string;
  decimals: number;
}

/** The pair quotes are simulated for, by symbol of the chain's registry (addresses come from there). */
const QUOTABLE_SYMBOLS = ['USDC', 'USDT'] as const;

/** What a quote reads of a catalogue row (the catalogue's `strategiesByHash` loader gives more). */
type QuoteStrategyRow = Pick<
  StrategyDetailRow,
  | 'chain_key'
  | 'strategy_hash'
  | 'app'
  | 'strategy'
  | 'token_a'
  | 'token_b'
  | 'symbol_a'
  | 'symbol_b'
  | 'pair_key'
  | 'status'
>;

export function describeToken(token: TokenConfig): QuoteToken {
  return { symbol: token.symbol, address: getAddress(token.address), decimals: token.decimals };
}

export function unprocessable(message: string): ApiError {
  return new ApiError('UNPROCESSABLE', message);
}

function same(a: string | null | undefined, b: string | null | undefined): boolean {
  return a != null && b != null && a.toLowerCase() === b.toLowerCase();
}

/** The two registry tokens of the strategy, or a 422 saying why it is not simulated (status aside). */
function quotableTokens(
  chain: ChainConfig,
  row: QuoteStrategyRow,
  tokenOf: (s: string) => TokenConfig | undefined,
) {
  const hash = row.strategy_hash;
  if (!same(row.app, chain.router)) {
    throw unprocessable(
      `Strategy ${hash} is attached to app ${row.app}, not to the verified router ${chain.router} of chain "${chain.key}"; quotes are simulated only on the verified router.`,
    );
  }
  const [x, y] = QUOTABLE_SYMBOLS.map(tokenOf);
  if (!x || !y) {
    throw unprocessable(
      `Chain "${chain.key}" lists no ${QUOTABLE_SYMBOLS.join('/')} pair; quotes are not simulated there.`,
    );
  }
  const isPair =
    (same(row.token_a, x.address) && same(row.token_b, y.address)) ||
    (same(row.token_a, y.address) && same(row.token_b, x.address));
  if (!isPair) {
    const pair =
      row.pair_key ?? ([row.symbol_a, row.symbol_b].filter(Boolean).join('/') || 'a non-two-token');
    throw unprocessable(
      `Strategy ${hash} is a ${pair} strategy; quotes are simulated only for verified ${QUOTABLE_SYMBOLS.join('/')} strategies.`,
    );
  }
  const [tokenA, tokenB] = BigInt(x.address) < BigInt(y.address) ? [x, y] : [y, x];
  return { tokenA, tokenB };
}

/** The immutable part of a quotable strategy: bytes, order, tokens (a hash fixes its bytes for good). */
export interface Quotable {
  /** The strategy hash (lowercase). */
  hash: string;
  /** Catalogue pair key, e.g. "USDC/USDT". */
  pair: string;
  /** Checksummed router address. */
  router: string;
  fees: FeeStep[];
  tokenA: TokenConfig;
  tokenB: TokenConfig;
  /** As the body shows them (checksummed addresses). */
  shown: Record<'a' | 'b', QuoteToken>;
  /** The decoded order (its program carries the fees). */
  order: Order;
  /** A quote's simulation calldata per direction, as a function of the amount. */
  calldata: Record<QuoteDirection, (amount: bigint) => Hex>;
  /** A prepared swap's, as a function of the amount and the taker: built on the first swap. */
  swapCalldata?: Record<QuoteDirection, (amount: bigint, taker: Address) => Hex>;
  /** Seen docked on chain: final. */
  docked?: boolean;
}

/**
 * Per store, the strategies already found quotable: a repeated quote or swap makes no read of the
 * store, only the one eth_call (which also reads the strategy's state on chain). Bounded; oldest out
 * first.
 */
const QUOTABLE_CACHE_SIZE = 10_000;
const quotableCache = new WeakMap<Db, Map<string, Quotable>>();

function cacheOf(db: Db): Map<string, Quotable> {
  let cache = quotableCache.get(db);
  if (!cache) {
    cache = new Map();
    quotableCache.set(db, cache);
  }
  return cache;
}

/** The simulation's client of the chain (node:http keep-alive, the quote timeout; chain/clients.ts). */
export function simulationClient(services: Services, chain: ChainConfig): ChainClient {
  return services.clients.simulation(chain.key);
}

/** Reads the row and checks what never changes; a 404 or a 422 saying why it is not simulated. */
async function loadQuotable(
  ctx: GraphQLContext,
  chain: ChainConfig,
  hash: string,
): Promise<{ quotable: Quotable; status: QuoteStrategyRow['status'] }> {
  const rows = await ctx.loaders.strategiesByHash.load(hash);
  const row = rows.find((r) => r.chain_key === chain.key);
  if (!row) {
    const elsewhere = rows.map((r) => `"${r.chain_key}"`).join(', ');
    throw ApiError.notFound(
      `No strategy ${hash} on chain "${chain.key}".${elsewhere ? ` It is in the catalogue of chain ${elsewhere}.` : ''}`,
      'hash',
    );
  }
  const { tokenA, tokenB } = quotableTokens(chain, row, (symbol) =>
    ctx.services.registry.token(chain.key, symbol),
  );
  const order = decodeStrategy(row.strategy as Hex);
  if (!order || keccak256(row.strategy as Hex) !== hash) {
    throw unprocessable(
      `Strategy ${hash}: the shipped bytes are not a canonical SwapVM order; it cannot be simulated or swapped.`,
    );
  }
  const template = (tokenIn: TokenConfig, tokenOut: TokenConfig) =>
    simulationTemplate(chain, simulationParams(order, hash, tokenIn, tokenOut));
  const quotable: Quotable = {
    hash,
    pair: row.pair_key ?? `${tokenA.symbol}/${tokenB.symbol}`,
    router: getAddress(chain.router),
    fees: feeSteps(order.data),
    order,
    tokenA,
    tokenB,
    shown: { a: describeToken(tokenA), b: describeToken(tokenB) },
    calldata: { aToB: template(tokenA, tokenB), bToA: template(tokenB, tokenA) },
  };
  return { quotable, status: row.status };
}

export function checkOpen(hash: string, status: QuoteStrategyRow['status']): void {
  if (status !== 'active') {
    throw unprocessable(
      `Strategy ${hash} is ${status} (closed by its maker); only open strategies are quoted or swapped.`,
    );
  }
}

function simulationParams(
  order: Order,
  hash: string,
  tokenIn: TokenConfig,
  tokenOut: TokenConfig,
): Omit<SimulationParams, 'taker'> {
  return {
    order,
    strategyHash: hash as Hex,
    tokenIn: tokenIn.address as Address,
    tokenOut: tokenOut.address as Address,
    takerTraits: exactInTakerTraits(),
  };
}

/**
 * The strategy `hash` of `chain`, checked and kept on its first quote or swap; a 404 or a 422 saying
 * why it is not simulated. `quotable.docked`: seen docked on chain before (final; the caller refuses
 * without simulating). `forget()`: the chain did not confirm it (not shipped to the router, or its
 * state could not be read): the next call reads and checks the store again.
 */
export async function quotableStrategy(
  ctx: GraphQLContext,
  chain: ChainConfig,
  hash: string,
): Promise<{ quotable: Quotable; forget(): void }> {
  const cache = cacheOf(ctx.services.db);
  const key = `${chain.key}:${hash}`;
  let quotable = cache.get(key);
  if (!quotable) {
    const loaded = await loadQuotable(ctx, chain, hash);
    checkOpen(hash, loaded.status);
    quotable = loaded.quotable;
    if (cache.size >= QUOTABLE_CACHE_SIZE) cache.delete(cache.keys().next().value as string);
    cache.set(key, quotable);
  }
  return { quotable, forget: () => cache.delete(key) };
}

/** A prepared swap's simulation calldata of the strategy, per direction (built on its first swap). */
export function swapCalldataOf(
  chain: ChainConfig,
  quotable: Quotable,
): Record<QuoteDirection, (amount: bigint, taker: Address) => Hex> {
  const { order, hash, tokenA, tokenB } = quotable;
  quotable.swapCalldata ??= {
    aToB: swapSimulationTemplate(chain, simulationParams(order, hash, tokenA, tokenB)),
    bToA: swapSimulationTemplate(chain, simulationParams(order, hash, tokenB, tokenA)),
  };
  return quotable.swapCalldata;
}
