/**
 * Indicative quotes (SPEC §4.4): an `eth_call` of the verified router's `quote` with the exact shipped
 * order, exactIn, pinned to the block it ran at. Only open USDC/USDT strategies of the chain's verified
 * router are simulated; anything else is a 422 saying why. Nothing is signed or sent.
 */
import { type SwapFunding, simulateQuote } from '../chain/simulate.js';
import type { TokenConfig } from '../lib/config.js';
import { ApiError } from '../lib/errors.js';
import type { GraphQLContext } from './context.js';
import {
  checkOpen,
  QUOTE_DIRECTIONS,
  type QuoteDirection,
  type QuoteToken,
  quotableStrategy,
  simulationClient,
  unprocessable,
} from './quotable.js';

// Where the quote's types are declared (quotable.ts, which the quote builds on); re-exported for callers.
export { QUOTE_DIRECTIONS, type QuoteDirection, type QuoteToken };

import { programFees, type QuoteFee } from './quoteFees.js';

/** SPEC §4.4: the chain a quote names when the caller names none. */
export const DEFAULT_QUOTE_CHAIN = 'ethereum';

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

export function effectivePrice(
  amountIn: bigint,
  amountOut: bigint,
  tokenIn: TokenConfig,
  tokenOut: TokenConfig,
): number {
  const price = Number(amountOut) / 10 ** tokenOut.decimals / (Number(amountIn) / 10 ** tokenIn.decimals);
  return Number(price.toPrecision(12));
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
      type: 'STRATEGY_BALANCE_SHORT',
      what: `the strategy's ${tokenOut.symbol} balance (past the edge of its price range)`,
      have: funding.strategyBalanceOut,
      need: amounts.amountOut,
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
  const chain = ctx.services.registry.require(args.chain, 'chain', args.chain === DEFAULT_QUOTE_CHAIN);
  const hash = args.hash.toLowerCase();
  const { quotable, forget } = await quotableStrategy(ctx, chain, hash);
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
    forget();
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
