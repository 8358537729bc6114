/**
 * POST /v1/swaps: a taker's swap against one live, verified strategy, prepared unsigned.
 * Simulated like /api/quote (chain/simulate.ts: the block, the router's quote, the strategy's state,
 * the maker's funding and the taker's balance and allowance to the router, in ONE eth_call), then
 * `approve` (router as spender, only where short, reset rule) and `swap` with taker data carrying the
 * minimum output (the quote less `slippageBps`) and a deadline (PROTOCOL.md "Taker data with a minimum
 * output and a deadline"): on chain, less than the minimum reverts with
 * TakerTraitsInsufficientMinOutputAmount, a late swap with TakerTraitsDeadlineExpired.
 */
import { type Address, getAddress } from 'viem';
import { swapCalldata } from '../chain/calldata.js';
import { simulateQuote } from '../chain/simulate.js';
import { minOutputTakerTraits } from '../chain/takerTraits.js';
import { human } from '../domain/chainReads.js';
import type { ChainConfig, TokenConfig } from '../lib/config.js';
import { ApiError } from '../lib/errors.js';
import { UNAUTHORIZED_MESSAGE } from './apiKeys.js';
import { type Simulated, simulateTransactions } from './bundleSimulation.js';
import type { GraphQLContext } from './context.js';
import { approveSteps, stepList } from './positions/approvals.js';
import { assertEnvironment } from './positions/intent.js';
import type { PreparedTransaction } from './positions/types.js';
import {
  describeToken,
  type Quotable,
  quotableStrategy,
  simulationClient,
  swapCalldataOf,
} from './quotable.js';
import {
  checkFunding,
  effectivePrice,
  HASH_PATTERN,
  parseQuoteAmount,
  QUOTE_DIRECTIONS,
  type QuoteDirection,
  type QuoteToken,
} from './quote.js';
import { programFees, type QuoteFee } from './quoteFees.js';

export const SWAP_LIMITS = {
  defaultSlippageBps: 50,
  maxSlippageBps: 5000,
  defaultDeadlineSeconds: 1200,
  minDeadlineSeconds: 30,
  maxDeadlineSeconds: 86_400,
} as const;

const WALLET = /^0x[a-fA-F0-9]{40}$/;

export interface PrepareSwapInput {
  chain: string;
  hash: string;
  wallet: string;
  amount: string;
  direction: QuoteDirection;
  slippageBps?: number | null;
  deadlineSeconds?: number | null;
  /** Run the bundle in one eth_simulateV1 and report it. */
  simulate?: boolean | null;
}

export interface SwapQuote {
  tokenIn: QuoteToken;
  tokenOut: QuoteToken;
  amountIn: string;
  amountOut: string;
  minAmountOut: string;
  slippageBps: number;
  /** Unix seconds after which the swap reverts. */
  deadline: number;
  protocolFee: QuoteFee;
  makerFee: QuoteFee | null;
  effectivePrice: number;
  blockNumber: string;
}

export interface PreparedSwap {
  chain: string;
  chainId: number;
  wallet: string;
  strategyHash: string;
  direction: QuoteDirection;
  router: string;
  transactions: PreparedTransaction[];
  quote: SwapQuote;
  preparedAt: string;
  /** With `simulate` only. */
  preflight?: Simulated['preflight'] | null;
  simulation?: Simulated['simulation'];
}

interface SwapIntent {
  hash: string;
  wallet: Address;
  amount: bigint;
  direction: QuoteDirection;
  slippageBps: number;
  deadlineSeconds: number;
}

const int = (value: number | null | undefined, fallback: number) => value ?? fallback;

/** Checks of what the REST layer has already validated, for the internal GraphQL callers too. */
function validate(input: PrepareSwapInput): SwapIntent {
  if (!HASH_PATTERN.test(input.hash)) {
    throw ApiError.invalid('hash', 'hash must be a strategy hash: 0x followed by 64 hex characters.');
  }
  if (!WALLET.test(input.wallet)) throw ApiError.invalid('wallet', 'wallet must match ^0x[a-fA-F0-9]{40}$.');
  if (!QUOTE_DIRECTIONS.includes(input.direction)) {
    throw ApiError.invalid('direction', `direction must be one of ${QUOTE_DIRECTIONS.join(', ')}.`);
  }
  const slippageBps = int(input.slippageBps, SWAP_LIMITS.defaultSlippageBps);
  if (!Number.isInteger(slippageBps) || slippageBps < 0 || slippageBps > SWAP_LIMITS.maxSlippageBps) {
    throw ApiError.invalid(
      'slippageBps',
      `slippageBps must be an integer in 0..${SWAP_LIMITS.maxSlippageBps}.`,
    );
  }
  const deadlineSeconds = int(input.deadlineSeconds, SWAP_LIMITS.defaultDeadlineSeconds);
  if (
    !Number.isInteger(deadlineSeconds) ||
    deadlineSeconds < SWAP_LIMITS.minDeadlineSeconds ||
    deadlineSeconds > SWAP_LIMITS.maxDeadlineSeconds
  ) {
    throw ApiError.invalid(
      'deadlineSeconds',
      `deadlineSeconds must be an integer in ${SWAP_LIMITS.minDeadlineSeconds}..${SWAP_LIMITS.maxDeadlineSeconds}.`,
    );
  }
  return {
    hash: input.hash.toLowerCase(),
    wallet: getAddress(input.wallet),
    amount: parseQuoteAmount(input.amount),
    direction: input.direction,
    slippageBps,
    deadlineSeconds,
  };
}

function refused(message: string, type: string, actual: string): ApiError {
  return new ApiError('UNPROCESSABLE', message, {
    issues: [{ type, expected: 'a swap the router accepts', actual }],
  });
}

/** The one round trip: block, quote, strategy state, maker funding and taker funding. */
async function simulate(
  ctx: GraphQLContext,
  chain: ChainConfig,
  intent: SwapIntent,
  strategy: { quotable: Quotable; forget(): void },
  trade: { tokenIn: TokenConfig; tokenOut: TokenConfig },
) {
  const notActive = (what: string, at = '') =>
    refused(`Strategy ${intent.hash} is ${what}${at}; it cannot be swapped.`, 'STRATEGY_NOT_ACTIVE', what);
  // Docking is final (the same bytes can never be shipped again): refused without a simulation.
  if (strategy.quotable.docked) throw notActive('docked (closed by its maker)');
  const calldata = swapCalldataOf(chain, strategy.quotable)[intent.direction](intent.amount, intent.wallet);
  const simulation = await simulateQuote(simulationClient(ctx.services, chain), chain, calldata);
  const at = simulation.blockNumber === null ? '' : ` at block ${simulation.blockNumber}`;
  if (simulation.state === 'docked') {
    strategy.quotable.docked = true;
    throw notActive('docked (closed by its maker)', at);
  }
  if (simulation.state === 'unknown') {
    strategy.forget();
    throw notActive('not active on the verified router', at);
  }
  if (simulation.state === null) {
    // The chain did not say (its rawBalances leg failed): the store decides, as on a first swap (a
    // strategy it has seen docked since is refused there), and is asked again next time.
    strategy.forget();
    await quotableStrategy(ctx, chain, intent.hash);
  }
  if (!simulation.ok) {
    const { reason, hint } = simulation.revert;
    throw refused(
      `The router refused to quote ${intent.amount} ${trade.tokenIn.symbol} → ${trade.tokenOut.symbol}${at}: ${reason}${hint ? ` (${hint})` : ''}.`,
      'SIMULATION_REVERTED',
      reason,
    );
  }
  return simulation;
}

function checkTakerBalance(
  balance: bigint | null,
  amount: bigint,
  token: TokenConfig,
  wallet: Address,
): void {
  if (balance === null || balance >= amount) return;
  throw new ApiError(
    'UNPROCESSABLE',
    `The taker ${wallet} holds ${human(balance, token)}, less than the ${human(amount, token)} to swap.`,
    {
      issues: [
        {
          type: 'INSUFFICIENT_BALANCE',
          expected: amount.toString(),
          actual: balance.toString(),
        },
      ],
    },
  );
}

export async function prepareSwap(ctx: GraphQLContext, input: PrepareSwapInput): Promise<PreparedSwap> {
  const key = ctx.apiKey;
  if (!key) throw new ApiError('UNAUTHORIZED', UNAUTHORIZED_MESSAGE);
  const intent = validate(input);
  const chain = ctx.services.registry.require(input.chain, 'chain');
  assertEnvironment(key.environment, chain);
  const strategy = await quotableStrategy(ctx, chain, intent.hash);
  const { tokenA, tokenB, order, fees: feeSteps } = strategy.quotable;
  const aToB = intent.direction === 'aToB';
  const [tokenIn, tokenOut] = aToB ? [tokenA, tokenB] : [tokenB, tokenA];
  const simulation = await simulate(ctx, chain, intent, strategy, { tokenIn, tokenOut });
  const fees = programFees(feeSteps, simulation.amountIn);
  checkFunding(
    simulation.funding,
    { protocolFee: BigInt(fees.protocolFee.amount), amountOut: simulation.amountOut },
    tokenIn,
    tokenOut,
  );
  checkTakerBalance(simulation.taker?.balanceIn ?? null, simulation.amountIn, tokenIn, intent.wallet);

  const minAmountOut = (simulation.amountOut * BigInt(10_000 - intent.slippageBps)) / 10_000n;
  const deadline = Math.floor(Date.now() / 1000) + intent.deadlineSeconds;
  const router = getAddress(chain.router);
  const { transactions, step } = stepList();
  approveSteps(step, {
    token: tokenIn,
    spender: router,
    spenderName: 'the SwapVM router',
    allowance: simulation.taker?.allowanceIn ?? 0n,
    needed: simulation.amountIn,
    target: simulation.amountIn,
    why: 'The router takes the input from this wallet and pushes it to Aqua for the maker.',
  });
  step(
    'swap',
    router,
    swapCalldata({
      order,
      tokenIn: tokenIn.address as Address,
      tokenOut: tokenOut.address as Address,
      amount: simulation.amountIn,
      takerTraits: minOutputTakerTraits({ minAmountOut, deadline: BigInt(deadline) }),
    }),
    `Swap ${human(simulation.amountIn, tokenIn)} for at least ${human(minAmountOut, tokenOut)} ` +
      `(quoted ${human(simulation.amountOut, tokenOut)} at block ${simulation.blockNumber}, less ${intent.slippageBps / 100}% slippage) ` +
      `against strategy ${intent.hash} on the SwapVM router ${router}. It reverts if the output would be lower, ` +
      `or after ${new Date(deadline * 1000).toISOString()}.`,
  );
  const prepared: PreparedSwap = {
    chain: chain.key,
    chainId: chain.chainId,
    wallet: intent.wallet,
    strategyHash: intent.hash,
    direction: intent.direction,
    router,
    transactions,
    quote: {
      tokenIn: describeToken(tokenIn),
      tokenOut: describeToken(tokenOut),
      amountIn: simulation.amountIn.toString(),
      amountOut: simulation.amountOut.toString(),
      minAmountOut: minAmountOut.toString(),
      slippageBps: intent.slippageBps,
      deadline,
      protocolFee: fees.protocolFee,
      makerFee: fees.makerFee,
      effectivePrice: effectivePrice(simulation.amountIn, simulation.amountOut, tokenIn, tokenOut),
      blockNumber: simulation.blockNumber.toString(),
    },
    preparedAt: new Date().toISOString(),
  };
  if (!input.simulate) return prepared;
  const simulated = await simulateTransactions(ctx, {
    chain,
    wallet: intent.wallet,
    transactions,
    watch: {
      tokens: [tokenIn, tokenOut],
      spenders: [{ address: router, name: 'the SwapVM router' }],
    },
  });
  return { ...prepared, ...simulated };
}
