/**
 * A bundle of prepared transactions run in order from the wallet on the latest block, in ONE
 * `eth_simulateV1` (viem's `simulateCalls`). Its asset tracing is not used: it costs a block number, a
 * discovery simulation and an eth_call per token besides. The wallet's watched balances and allowances
 * are read instead by a Multicall3 `aggregate3` call placed around the steps in the same simulated
 * block, so every figure comes from that one request:
 *
 *   snapshot 0, step 1, snapshot 1, step 2, snapshot 2, …
 *
 * Each call of eth_simulateV1 is a transaction of its own (its own warm/cold access and refunds), so
 * the snapshots between the steps do not change the gas the steps use.
 */
import {
  type Address,
  BaseError,
  decodeFunctionResult,
  encodeFunctionData,
  type Hex,
  hexToBigInt,
  RpcRequestError,
} from 'viem';
import { simulateCalls } from 'viem/actions';
import { erc20Abi, multicall3Abi } from './abi.js';
import type { ChainClient } from './clients.js';
import { type DecodedRevert, decodeRevert } from './revert.js';

export interface BundleStep {
  to: Address;
  data: Hex;
  value: bigint;
}

/** What the snapshots read: the wallet's balance of each token, its allowance to each spender. */
export interface BundleWatch {
  tokens: readonly Address[];
  spenders: readonly Address[];
}

/** The watched values at one point of the bundle; null where a read failed. */
export interface BundleSnapshot {
  balances: (bigint | null)[];
  /** [token][spender], in the order of the watch. */
  allowances: (bigint | null)[][];
}

export interface SimulatedStep {
  ok: boolean;
  gasUsed: bigint;
  /** The decoded revert of a failed step; null when it succeeded. */
  revert: DecodedRevert | null;
}

export interface BundleRun {
  steps: SimulatedStep[];
  /** steps.length + 1 snapshots: before the first step and after each. */
  snapshots: BundleSnapshot[];
}

/** A result of simulateCalls, as far as it is read here. */
interface CallResult {
  status: 'success' | 'failure';
  data: Hex;
  gasUsed: bigint;
}

function snapshotCall(multicall: Address, wallet: Address, watch: BundleWatch): BundleStep {
  const read = (target: Address, callData: Hex) => ({ target, allowFailure: true, callData });
  const reads = watch.tokens.flatMap((token) => [
    read(token, encodeFunctionData({ abi: erc20Abi, functionName: 'balanceOf', args: [wallet] })),
    ...watch.spenders.map((spender) =>
      read(token, encodeFunctionData({ abi: erc20Abi, functionName: 'allowance', args: [wallet, spender] })),
    ),
  ]);
  return {
    to: multicall,
    data: encodeFunctionData({ abi: multicall3Abi, functionName: 'aggregate3', args: [reads] }),
    value: 0n,
  };
}

const WORD = /^0x[0-9a-fA-F]{64}$/;

function snapshotOf(result: CallResult | undefined, watch: BundleWatch): BundleSnapshot {
  const width = 1 + watch.spenders.length;
  let answers: readonly { success: boolean; returnData: Hex }[] = [];
  if (result?.status === 'success') {
    try {
      answers = decodeFunctionResult({ abi: multicall3Abi, functionName: 'aggregate3', data: result.data });
    } catch {
      answers = [];
    }
  }
  const value = (i: number) => {
    const answer = answers[i];
    return answer?.success && WORD.test(answer.returnData) ? hexToBigInt(answer.returnData) : null;
  };
  return {
    balances: watch.tokens.map((_, t) => value(t * width)),
    allowances: watch.tokens.map((_, t) => watch.spenders.map((_, s) => value(t * width + 1 + s))),
  };
}

/**
 * Runs the steps in order from `wallet` on the latest block, snapshots around them, in one
 * eth_simulateV1 request. `unsupported` when the node does not serve the method; any other failure of
 * the request throws (the caller maps it to UPSTREAM_*).
 */
export async function simulateBundle(
  client: ChainClient,
  params: { wallet: Address; multicall: Address; steps: readonly BundleStep[]; watch: BundleWatch },
): Promise<BundleRun | 'unsupported'> {
  const { wallet, steps, watch } = params;
  const snapshot = snapshotCall(params.multicall, wallet, watch);
  const calls = [snapshot, ...steps.flatMap((step) => [step, snapshot])];
  let results: readonly CallResult[];
  try {
    const answer = await simulateCalls(client, { account: wallet, calls, blockTag: 'latest' });
    results = answer.results as unknown as readonly CallResult[];
  } catch (error) {
    if (isSimulationUnsupported(error)) return 'unsupported';
    throw error;
  }
  return {
    steps: steps.map((_, k) => {
      const result = results[2 * k + 1];
      const ok = result?.status === 'success';
      return {
        ok,
        gasUsed: result?.gasUsed ?? 0n,
        revert: ok ? null : decodeRevert(result?.data),
      };
    }),
    snapshots: Array.from({ length: steps.length + 1 }, (_, k) => snapshotOf(results[2 * k], watch)),
  };
}

/** JSON-RPC codes of a method the node does not serve (-32601 method not found, -32004 not supported). */
const UNSUPPORTED_CODES = new Set([-32601, -32004]);
/** How providers word it when they use another code (Alchemy, Infura, public endpoints, geth). */
const UNSUPPORTED_WORDS =
  /(?:method|eth_simulateV1)[^.]{0,60}(?:not found|not supported|unsupported|does not exist|not available|not allowed|not whitelisted)|unsupported method/i;

/** True when the failure says the node lacks eth_simulateV1 (not that it is down or the call is bad). */
export function isSimulationUnsupported(error: unknown): boolean {
  const says = (e: unknown): boolean => {
    if (e instanceof RpcRequestError && UNSUPPORTED_CODES.has(e.code)) return true;
    if (e instanceof BaseError && 'code' in e && UNSUPPORTED_CODES.has(Number(e.code))) return true;
    const text =
      e instanceof BaseError ? `${e.details} ${e.shortMessage}` : e instanceof Error ? e.message : '';
    return UNSUPPORTED_WORDS.test(text);
  };
  return error instanceof BaseError ? error.walk(says) !== null : says(error);
}
