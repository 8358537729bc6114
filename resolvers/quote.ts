/**
 * Indicative quotes (SPEC §4.4): an `eth_call` of the verified router's `quote` with the exact shipped
 * order, exactIn, pinned to the block it ran at. Only open USDC/USDT strategies of the chain's verified
 * router are simulated; anything else is a 422 saying why. Nothing is signed or sent.
 */
import { type Address, getAddress, type Hex, keccak256 } from 'viem';
import type { ChainClient } from '../chain/clients.js';
import { decodeStrategy } from '../chain/order.js';
import { type SwapFunding, simulateQuote, simulationTemplate } from '../chain/simulate.js';
import { exactInTakerTraits } from '../chain/takerTraits.js';
import type { ChainConfig, TokenConfig } from '../lib/config.js';
import { ApiError } from '../lib/errors.js';
import type { Services } from '../lib/services.js';
import type { GraphQLContext } from '../schema/context.js';
import type { StrategyDetailRow } from '../store/catalogue.js';
import type { Db } from '../store/db.js';
import { type FeeStep, feeSteps, programFees, type QuoteFee } from './quoteFees.js';

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

export const QUOTE_DIRECTIONS = ['aToB', 'bToA'] as const;
export type QuoteDirection = (typeof QUOTE_DIRECTIONS)[number];
/** SPEC §4.4: the chain a quote names when the caller names none. */
export const DEFAULT_QUOTE_CHAIN = 'ethereum';
/** The pair quotes are simulated for, by symbol of the chain's registry (addresses come from there). */
export const QUOTABLE_SYMBOLS = ['USDC', 'USDT'] as const;

export const HASH_PATTERN = /^0x[0-9a-fA-F]{64}$/;
const UINT256_MAX = (1n << 256n) - 1n;

export const QUOTE_NOTE =
  'Indicative quote: simulated with eth_call of the router at the block given. Nothing was signed or broadcast, nothing is reserved, and a swap may yield a different amount once the state moves.';

export interface QuoteArgs {
  hash: string;
  chain: string;
  amount: string;
  direction: QuoteDirection;
}

export interface QuoteToken {
  symbol: string;
  address: string;
  decimals: number;
}

export interface QuoteResult {
  strategyHash: string;
  chain: string;
  chainId: number;
  pair: string;
  direction: QuoteDirection;
  exactIn: boolean;
  router: string;
  tokenIn: QuoteToken;
  tokenOut: QuoteToken;
  amountIn: string;
  amountOut: string;
  protocolFee: QuoteFee;
  makerFee: QuoteFee | null;
  effectivePrice: number;
  blockNumber: string;
  indicative: boolean;
  signed: boolean;
  note: string;
}

/** Checks the arguments (REST validates first; this guards the internal GraphQL callers too). */
export function parseQuoteAmount(amount: string): bigint {
  if (!/^[0-9]{1,78}$/.test(amount)) {
    throw ApiError.invalid('amount', 'amount must be a positive integer string in base units.');
  }
  const value = BigInt(amount);
  if (value === 0n) throw ApiError.invalid('amount', 'amount must be greater than 0.');
  if (value > UINT256_MAX) throw ApiError.invalid('amount', 'amount must fit in a uint256.');
  return value;
}

function validate(args: QuoteArgs): bigint {
  if (!HASH_PATTERN.test(args.hash)) {
    throw ApiError.invalid('hash', 'hash must be a strategy hash: 0x followed by 64 hex characters.');
  }
  const amount = parseQuoteAmount(args.amount);
  if (!QUOTE_DIRECTIONS.includes(args.direction)) {
    throw ApiError.invalid('direction', `direction must be one of ${QUOTE_DIRECTIONS.join(', ')}.`);
  }
  return amount;
}

function unprocessable(message: string): ApiError {
  return new ApiError('UNPROCESSABLE', message);
}

function same(a: string | null | undefined, b: string | null | undefined): boolean {
  return a != null && b != null && a.toLowerCase() === b.toLowerCase();
}

/** The two registry tokens of the strategy, or a 422 saying why it is not simulated (status aside). */
export function quotableTokens(
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

export function effectivePrice(
  amountIn: bigint,
  amountOut: bigint,
  tokenIn: TokenConfig,
  tokenOut: TokenConfig,
): number {
  const price = Number(amountOut) / 10 ** tokenOut.decimals / (Number(amountIn) / 10 ** tokenIn.decimals);
  return Number(price.toPrecision(12));
}

export function describeToken(token: TokenConfig): QuoteToken {
  return { symbol: token.symbol, address: getAddress(token.address), decimals: token.decimals };
}

/** The immutable part of a quotable strategy: bytes, order, tokens (a hash fixes its bytes for good). */
interface Quotable {
  /** Catalogue pair key, e.g. "USDC/USDT". */
  pair: string;
  /** Checksummed router address. */
  router: string;
  fees: FeeStep[];
  tokenA: TokenConfig;
  tokenB: TokenConfig;
  /** As the body shows them (checksummed addresses). */
  shown: Record<'a' | 'b', QuoteToken>;
  /** The simulation's calldata per direction, as a function of the amount. */
  calldata: Record<QuoteDirection, (amount: bigint) => Hex>;
  /** Seen docked on chain: final. */
  docked?: boolean;
}

/**
 * Per store, the strategies already found quotable: a repeated quote makes no read of the store, only
 * the one eth_call (which also reads the strategy's state on chain). Bounded; oldest out first.
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
    );
  }
  const { tokenA, tokenB } = quotableTokens(chain, row, (symbol) =>
    ctx.services.registry.token(chain.key, symbol),
  );
  const order = decodeStrategy(row.strategy as Hex);
  if (!order || keccak256(row.strategy as Hex) !== hash) {
    throw unprocessable(
      `Strategy ${hash}: the shipped bytes are not a canonical SwapVM order; it cannot be simulated.`,
    );
  }
  const template = (tokenIn: TokenConfig, tokenOut: TokenConfig) =>
    simulationTemplate(chain, {
      order,
      strategyHash: hash as Hex,
      tokenIn: tokenIn.address as Address,
      tokenOut: tokenOut.address as Address,
      takerTraits: exactInTakerTraits(),
    });
  const quotable: Quotable = {
    pair: row.pair_key ?? `${tokenA.symbol}/${tokenB.symbol}`,
    router: getAddress(chain.router),
    fees: feeSteps(order.data),
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
      `Strategy ${hash} is ${status} (closed by its maker); only open strategies are quoted.`,
    );
  }
}

/**
 * A swap pulls the protocol fee (tokenIn) and then amountOut (tokenOut) from the maker's wallet through
 * Aqua: when the quote succeeds but a swap would revert on those pulls, the quote is not executable.
 */
export function checkFunding(
  funding: SwapFunding,
  amounts: { protocolFee: bigint; amountOut: bigint },
  tokenIn: TokenConfig,
  tokenOut: TokenConfig,
): void {
  const short: { type: string; what: string; have: bigint | null; need: bigint }[] = [
    {
      type: 'STRATEGY_BALANCE_SHORT',
      what: `the strategy's ${tokenIn.symbol} balance`,
      have: funding.strategyBalanceIn,
      need: amounts.protocolFee,
    },
    {
      type: 'MAKER_BALANCE_SHORT',
      what: `the maker's ${tokenIn.symbol} wallet balance`,
      have: funding.makerBalanceIn,
      need: amounts.protocolFee,
    },
    {
      type: 'MAKER_ALLOWANCE_SHORT',
      what: `the maker's ${tokenIn.symbol} allowance to Aqua`,
      have: funding.makerAllowanceIn,
      need: amounts.protocolFee,
    },
    {
      type: 'MAKER_BALANCE_SHORT',
      what: `the maker's ${tokenOut.symbol} wallet balance`,
      have: funding.makerBalanceOut,
      need: amounts.amountOut,
    },
    {
      type: 'MAKER_ALLOWANCE_SHORT',
      what: `the maker's ${tokenOut.symbol} allowance to Aqua`,
      have: funding.makerAllowanceOut,
      need: amounts.amountOut,
    },
  ].filter((c) => c.have !== null && c.have < c.need);
  if (short.length === 0) return;
  throw new ApiError(
    'UNPROCESSABLE',
    `The router quotes this amount but a swap would revert: ${short.map((c) => `${c.what} is ${c.have}, below ${c.need}`).join('; ')}.`,
    { issues: short.map((c) => ({ type: c.type, expected: `>= ${c.need}`, actual: String(c.have) })) },
  );
}

export async function quote(ctx: GraphQLContext, args: QuoteArgs): Promise<QuoteResult> {
  const amount = validate(args);
  const { registry, db } = ctx.services;
  const chain = registry.require(args.chain, 'chain');
  const hash = args.hash.toLowerCase();

  const cache = cacheOf(db);
  const key = `${chain.key}:${hash}`;
  let quotable = cache.get(key);
  if (!quotable) {
    const loaded = await loadQuotable(ctx, chain, hash);
    checkOpen(hash, loaded.status);
    quotable = loaded.quotable;
    if (cache.size >= QUOTABLE_CACHE_SIZE) cache.delete(cache.keys().next().value as string);
    cache.set(key, quotable);
  }
  // Docking is final (the same bytes can never be shipped again): no simulation needed.
  if (quotable.docked) checkOpen(hash, 'docked');
  const { tokenA, tokenB, pair, shown } = quotable;

  // From here the chain is the authority on the strategy's state, read in the same call as the quote
  // (the store may lag it by the indexer's poll).
  const aToB = args.direction === 'aToB';
  const [tokenIn, tokenOut] = aToB ? [tokenA, tokenB] : [tokenB, tokenA];
  const simulation = await simulateQuote(
    simulationClient(ctx.services, chain),
    chain,
    quotable.calldata[args.direction](amount),
  );
  const at = simulation.blockNumber === null ? '' : ` at block ${simulation.blockNumber}`;
  if (simulation.state === 'docked') {
    quotable.docked = true;
    throw unprocessable(
      `Strategy ${hash} is docked on chain${at} (closed by its maker); only open strategies are quoted.`,
    );
  }
  if (simulation.state === 'unknown') {
    cache.delete(key);
    throw unprocessable(
      `Strategy ${hash} is not shipped to the verified router on chain "${chain.key}"${at}; it cannot be simulated.`,
    );
  }
  if (!simulation.ok) {
    const { reason, hint } = simulation.revert;
    throw new ApiError(
      'UNPROCESSABLE',
      `The router refused to quote ${amount} ${tokenIn.symbol} → ${tokenOut.symbol}${at}: ${reason}${hint ? ` (${hint})` : ''}.`,
      { issues: [{ type: 'SIMULATION_REVERTED', expected: 'a quote the router accepts', actual: reason }] },
    );
  }
  if (simulation.orderHash.toLowerCase() !== hash) {
    throw new ApiError('INTERNAL', 'The router hashed the order differently from the catalogue.', {
      cause: new Error(`router orderHash ${simulation.orderHash} for strategy ${hash}`),
    });
  }

  const fees = programFees(quotable.fees, simulation.amountIn);
  checkFunding(
    simulation.funding,
    { protocolFee: BigInt(fees.protocolFee.amount), amountOut: simulation.amountOut },
    tokenIn,
    tokenOut,
  );
  return {
    strategyHash: hash,
    chain: chain.key,
    chainId: chain.chainId,
    pair,
    direction: args.direction,
    exactIn: true,
    router: quotable.router,
    tokenIn: aToB ? shown.a : shown.b,
    tokenOut: aToB ? shown.b : shown.a,
    amountIn: simulation.amountIn.toString(),
    amountOut: simulation.amountOut.toString(),
    protocolFee: fees.protocolFee,
    makerFee: fees.makerFee,
    effectivePrice: effectivePrice(simulation.amountIn, simulation.amountOut, tokenIn, tokenOut),
    blockNumber: simulation.blockNumber.toString(),
    indicative: true,
    signed: false,
    note: QUOTE_NOTE,
  };
}
