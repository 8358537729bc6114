/**
 * Quote by simulation: ONE `eth_call` of the chain's Multicall3 `aggregate3`, so the block number, the
 * router's `quote` and the funding a swap would need all come from the same state in one round trip:
 *   0 getBlockNumber()                                   the block the quote reports
 *   1 router.quote(order, tokenIn, tokenOut, amount, t)  the quote itself (may revert: decoded)
 *   2 aqua.rawBalances(maker, router, hash, tokenIn)     the strategy's state on chain (tokensCount: 0
 *                                                        never shipped, 0xFF docked) and its tokenIn
 *                                                        balance, from which the protocol fee leaves
 *   3-6 tokenIn/tokenOut balanceOf(maker), allowance(maker, aqua)   what Aqua pulls from on a swap
 *   7-8 (a prepared swap only) tokenIn balanceOf(taker), allowance(taker, router)   what the router
 *                                                        takes from the taker (useTransferFromAndAquaPush)
 */
import { type Address, BaseError, decodeFunctionResult, encodeFunctionData, type Hex, toHex } from 'viem';
import type { ChainConfig } from '../lib/config.js';
import { ApiError } from '../lib/errors.js';
import { aquaAbi, erc20Abi, multicall3Abi, routerAbi } from './abi.js';
import { quoteCalldata, type SwapParams } from './calldata.js';
import { type ChainClient, classifyRpcError } from './clients.js';
import { keccak256 } from './keccak.js';
import { type DecodedRevert, decodeRevert } from './revert.js';

type SimulationChain = Pick<ChainConfig, 'key' | 'multicall' | 'router' | 'aqua'>;

/** What a swap would pull from: null where the read failed (a token that does not answer). */
export interface SwapFunding {
  /** The strategy's virtual tokenIn balance in Aqua; the protocol fee is pulled from it first. */
  strategyBalanceIn: bigint | null;
  /** The strategy's virtual tokenOut balance in Aqua: the most a swap can pay out. */
  strategyBalanceOut: bigint | null;
  makerBalanceIn: bigint | null;
  makerAllowanceIn: bigint | null;
  makerBalanceOut: bigint | null;
  makerAllowanceOut: bigint | null;
}

/** Aqua's tokensCount of a strategy: 0 never shipped (to this app), 1..254 active, 0xFF docked. */
export type StrategyState = 'active' | 'docked' | 'unknown' | null;

export const DOCKED_TOKENS_COUNT = 0xff;

export type QuoteSimulation =
  | {
      ok: true;
      blockNumber: bigint;
      /** From rawBalances in the same call; null when that read failed. */
      state: StrategyState;
      amountIn: bigint;
      amountOut: bigint;
      orderHash: Hex;
      funding: SwapFunding;
      /** Present when the simulation was given a taker. */
      taker: TakerFunding | null;
    }
  | { ok: false; blockNumber: bigint | null; state: StrategyState; revert: DecodedRevert };

/** The taker's side of a prepared swap (legs 8-9); null where the read failed. */
export interface TakerFunding {
  balanceIn: bigint | null;
  allowanceIn: bigint | null;
}

const BLOCK_NUMBER_CALL = encodeFunctionData({ abi: multicall3Abi, functionName: 'getBlockNumber' });

export type SimulationParams = Omit<SwapParams, 'amount'> & {
  strategyHash: Hex;
  /** A prepared swap: also reads the taker's tokenIn balance and allowance to the router. */
  taker?: Address;
};

/** 32-byte words that cannot occur by chance in the rest of the calldata (from keccak256 of a label). */
const AMOUNT_SENTINEL = keccak256(toHex('quote amount placeholder')).slice(2);
const TAKER_SENTINEL = `0x${keccak256(toHex('swap taker placeholder')).slice(26)}` as Address;
const TAKER_WORD = TAKER_SENTINEL.slice(2).padStart(64, '0');
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

function encodeSimulation(chain: SimulationChain, params: SimulationParams, amount: bigint): Hex {
  const maker = params.order.maker;
  const aqua = chain.aqua as Address;
  const balanceOf = encodeFunctionData({ abi: erc20Abi, functionName: 'balanceOf', args: [maker] });
  const allowance = encodeFunctionData({ abi: erc20Abi, functionName: 'allowance', args: [maker, aqua] });
  const call = (target: Address, callData: Hex, allowFailure = true) => ({ target, allowFailure, callData });
  return encodeFunctionData({
    abi: multicall3Abi,
    functionName: 'aggregate3',
    args: [
      [
        call(chain.multicall as Address, BLOCK_NUMBER_CALL, false),
        call(chain.router as Address, quoteCalldata({ ...params, amount })),
        call(
          aqua,
          encodeFunctionData({
            abi: aquaAbi,
            functionName: 'rawBalances',
            args: [maker, chain.router as Address, params.strategyHash, params.tokenIn],
          }),
        ),
        call(params.tokenIn, balanceOf),
        call(params.tokenIn, allowance),
        call(params.tokenOut, balanceOf),
        call(params.tokenOut, allowance),
        // The strategy's tokenOut in Aqua: a concentrated curve quotes past it, a swap cannot pay it.
        call(
          aqua,
          encodeFunctionData({
            abi: aquaAbi,
            functionName: 'rawBalances',
            args: [maker, chain.router as Address, params.strategyHash, params.tokenOut],
          }),
        ),
        ...(params.taker
          ? [
              call(
                params.tokenIn,
                encodeFunctionData({ abi: erc20Abi, functionName: 'balanceOf', args: [params.taker] }),
              ),
              call(
                params.tokenIn,
                encodeFunctionData({
                  abi: erc20Abi,
                  functionName: 'allowance',
                  args: [params.taker, chain.router as Address],
                }),
              ),
            ]
          : []),
      ],
    ],
  });
}

/**
 * `template` cut around its placeholder words: the fixed pieces and, between each two, which word was
 * there. Null when a word does not occur exactly as often as the encoding puts it.
 */
function cut(template: string, words: Record<string, number>): { fixed: string[]; slots: string[] } | null {
  const found: { at: number; word: string }[] = [];
  for (const [word, expected] of Object.entries(words)) {
    let count = 0;
    for (let at = template.indexOf(word); at >= 0; at = template.indexOf(word, at + word.length)) {
      found.push({ at, word });
      count++;
    }
    if (count !== expected) return null;
  }
  found.sort((a, b) => a.at - b.at);
  const fixed: string[] = [];
  let from = 0;
  for (const { at, word } of found) {
    fixed.push(template.slice(from, at));
    from = at + word.length;
  }
  fixed.push(template.slice(from));
  return { fixed, slots: found.map((f) => f.word) };
}

function amountWord(amount: bigint): string {
  if (amount < 0n || amount >= 1n << 256n) throw new RangeError(`amount is not a uint256: ${amount}`);
  return amount.toString(16).padStart(64, '0');
}

/**
 * The calldata of the pinned simulation as a function of the amount and, for a prepared swap, of the
 * taker: ABI-encoded once with placeholder words, then only those 32-byte words change per call (the
 * order, the tokens and the strategy stay those of one strategy and direction).
 */
function templateOf(
  chain: SimulationChain,
  params: Omit<SimulationParams, 'taker'>,
  withTaker: boolean,
): (amount: bigint, taker?: Address) => Hex {
  const full = (amount: bigint, taker?: Address) =>
    encodeSimulation(chain, { ...params, ...(withTaker ? { taker } : {}) }, amount);
  const template = encodeSimulation(
    chain,
    { ...params, ...(withTaker ? { taker: TAKER_SENTINEL } : {}) },
    BigInt(`0x${AMOUNT_SENTINEL}`),
  );
  const pieces = cut(template, { [AMOUNT_SENTINEL]: 1, ...(withTaker ? { [TAKER_WORD]: 2 } : {}) });
  if (!pieces) return full;
  const { fixed, slots } = pieces;
  return (amount, taker) => {
    const words: Record<string, string> = { [AMOUNT_SENTINEL]: amountWord(amount) };
    if (withTaker) {
      if (taker === undefined || !ADDRESS.test(taker))
        throw new RangeError(`taker is not an address: ${taker}`);
      words[TAKER_WORD] = taker.slice(2).toLowerCase().padStart(64, '0');
    }
    let calldata = fixed[0]!;
    for (let i = 0; i < slots.length; i++) calldata += words[slots[i]!]! + fixed[i + 1]!;
    return calldata as Hex;
  };
}

/** A quote's simulation calldata as a function of the amount (legs 0-7). */
export function simulationTemplate(
  chain: SimulationChain,
  params: Omit<SimulationParams, 'taker'>,
): (amount: bigint) => Hex {
  return templateOf(chain, params, false);
}

/** A prepared swap's simulation calldata as a function of the amount and the taker (legs 0-9). */
export function swapSimulationTemplate(
  chain: SimulationChain,
  params: Omit<SimulationParams, 'taker'>,
): (amount: bigint, taker: Address) => Hex {
  return templateOf(chain, params, true);
}

/** The calldata of the pinned simulation (the bench sends it raw). */
export function simulationCalldata(
  chain: SimulationChain,
  params: SwapParams & { strategyHash: Hex; taker?: Address },
): Hex {
  return encodeSimulation(chain, params, params.amount);
}

function rawBalanceOf(result: { success: boolean; returnData: Hex } | undefined): bigint | null {
  if (!result?.success) return null;
  const [balance] = decodeFunctionResult({
    abi: aquaAbi,
    functionName: 'rawBalances',
    data: result.returnData,
  });
  return balance;
}

function uintOf(result: { success: boolean; returnData: Hex } | undefined): bigint | null {
  if (!result?.success || result.returnData.length !== 66) return null;
  return BigInt(result.returnData);
}

/**
 * Simulates `router.quote` at the latest block, given the calldata of `simulationTemplate`. RPC failures become 503 UPSTREAM_UNAVAILABLE / 504
 * UPSTREAM_TIMEOUT (classifyRpcError); a revert of the router is returned as `{ ok: false }`.
 */
export async function simulateQuote(
  client: ChainClient,
  chain: SimulationChain,
  calldata: Hex,
): Promise<QuoteSimulation> {
  let data: Hex | undefined;
  try {
    ({ data } = await client.call({ to: chain.multicall as Address, data: calldata }));
  } catch (error) {
    const mapped = classifyRpcError(error, chain.key);
    if (mapped) throw mapped;
    // The aggregate itself reverted (the quote leg may fail without that): report the reason.
    const withData =
      error instanceof BaseError
        ? (error.walk((e) => typeof (e as { data?: unknown }).data === 'string') as { data?: Hex } | null)
        : null;
    return { ok: false, blockNumber: null, state: null, revert: decodeRevert(withData?.data) };
  }
  if (data === undefined || data === '0x') {
    throw new ApiError(
      'UPSTREAM_UNAVAILABLE',
      `The multicall contract of chain "${chain.key}" did not answer.`,
    );
  }
  const results = decodeFunctionResult({ abi: multicall3Abi, functionName: 'aggregate3', data });
  const [block, quote, raw] = results;
  if (!block?.success || !quote) {
    throw new ApiError(
      'UPSTREAM_UNAVAILABLE',
      `The multicall contract of chain "${chain.key}" gave no block.`,
    );
  }
  const blockNumber = decodeFunctionResult({
    abi: multicall3Abi,
    functionName: 'getBlockNumber',
    data: block.returnData,
  });
  let state: StrategyState = null;
  let strategyBalanceIn: bigint | null = null;
  if (raw?.success) {
    const [balance, tokensCount] = decodeFunctionResult({
      abi: aquaAbi,
      functionName: 'rawBalances',
      data: raw.returnData,
    });
    state = tokensCount === 0 ? 'unknown' : tokensCount === DOCKED_TOKENS_COUNT ? 'docked' : 'active';
    strategyBalanceIn = balance;
  }
  if (!quote.success) return { ok: false, blockNumber, state, revert: decodeRevert(quote.returnData) };
  const [amountIn, amountOut, orderHash] = decodeFunctionResult({
    abi: routerAbi,
    functionName: 'quote',
    data: quote.returnData,
  });
  return {
    ok: true,
    blockNumber,
    state,
    amountIn,
    amountOut,
    orderHash,
    funding: {
      strategyBalanceIn,
      strategyBalanceOut: rawBalanceOf(results[7]),
      makerBalanceIn: uintOf(results[3]),
      makerAllowanceIn: uintOf(results[4]),
      makerBalanceOut: uintOf(results[5]),
      makerAllowanceOut: uintOf(results[6]),
    },
    taker: results.length > 8 ? { balanceIn: uintOf(results[8]), allowanceIn: uintOf(results[9]) } : null,
  };
}
