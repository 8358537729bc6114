import DataLoader from 'dataloader';
import {
  type Abi,
  type AbiFunction,
  type Address,
  type BaseError,
  decodeFunctionResult,
  encodeFunctionData,
  getContractError,
  type Hex,
  multicall3Abi,
  prepareEncodeFunctionData,
  RawContractError,
} from 'viem';
import type { Services } from '../lib/services.js';

/** One view call of a contract on a configured chain. */
export interface ContractRead {
  chain: string;
  address: Address;
  abi: Abi;
  functionName: string;
  args: readonly unknown[];
}

/** What the loader needs of the services: a client per chain key. */
export type MulticallServices = Pick<Services, 'clients'>;

/** A function of an ABI with its selector, as viem's encoder takes it without hashing its signature. */
interface PreparedFunction {
  abi: readonly [AbiFunction];
  functionName: Hex;
}

/**
 * Selectors of the functions read, per ABI object (the ABIs are module constants): viem's
 * `encodeFunctionData` and `client.multicall` take keccak256 of the function's signature on every call
 * (pure-JS keccak), about ten times per prepare. An overloaded name is prepared per call (the
 * arguments choose the overload), as viem would.
 */
const prepared = new WeakMap<Abi, Map<string, PreparedFunction | null>>();

function preparedFunction(read: ContractRead): PreparedFunction {
  let byName = prepared.get(read.abi);
  if (!byName) {
    byName = new Map();
    prepared.set(read.abi, byName);
  }
  let entry = byName.get(read.functionName);
  if (entry === undefined) {
    const overloads = read.abi.filter((item) => item.type === 'function' && item.name === read.functionName);
    entry =
      overloads.length === 1
        ? (prepareEncodeFunctionData({ abi: read.abi, functionName: read.functionName }) as PreparedFunction)
        : null;
    byName.set(read.functionName, entry);
  }
  return (
    entry ??
    (prepareEncodeFunctionData({
      abi: read.abi,
      functionName: read.functionName,
      args: read.args,
    } as Parameters<typeof prepareEncodeFunctionData>[0]) as PreparedFunction)
  );
}

/** The call's ABI item and calldata, computed once per read (its cache key and its batch both use them). */
const encoded = new WeakMap<ContractRead, { fn: PreparedFunction; callData: Hex }>();

function encodedRead(read: ContractRead): { fn: PreparedFunction; callData: Hex } {
  let entry = encoded.get(read);
  if (!entry) {
    const fn = preparedFunction(read);
    entry = {
      fn,
      callData: encodeFunctionData({ abi: fn.abi, functionName: fn.functionName, args: read.args }),
    };
    encoded.set(read, entry);
  }
  return entry;
}

function keyOf(read: ContractRead): string {
  return `${read.chain}:${read.address.toLowerCase()}:${encodedRead(read).callData}`;
}

const aggregate3 = prepareEncodeFunctionData({
  abi: multicall3Abi,
  functionName: 'aggregate3',
}) as PreparedFunction;

/**
 * The reads of one chain as ONE `aggregate3` eth_call through its Multicall3, as viem's
 * `client.multicall({ allowFailure: true, batchSize: 0 })` sends it, and its outcomes as viem gives them:
 * a decoded result, or the contract error of a call that reverted. A failed round trip throws what
 * viem's readContract of `aggregate3` throws (the RPC error wrapped as a contract error). Done here
 * with viem's encoder and decoder, from the selectors above, instead of through `client.multicall`:
 * that action hashed every call's signature twice (encoding and decoding) and the aggregate's once.
 */
async function aggregate(
  client: ReturnType<MulticallServices['clients']['get']>,
  multicall: Address,
  reads: readonly ContractRead[],
): Promise<unknown[]> {
  const calls = reads.map((read) => ({
    target: read.address,
    allowFailure: true,
    callData: encodedRead(read).callData,
  }));
  let returned: readonly { success: boolean; returnData: Hex }[];
  try {
    const { data } = await client.call({
      to: multicall,
      data: encodeFunctionData({ ...aggregate3, args: [calls] }),
    });
    returned = decodeFunctionResult({ abi: aggregate3.abi, data: data ?? '0x' }) as typeof returned;
  } catch (error) {
    throw getContractError(error as BaseError, {
      abi: multicall3Abi,
      address: multicall,
      args: [calls],
      docsPath: '/docs/contract/readContract',
      functionName: 'aggregate3',
    });
  }
  return reads.map((read, i) => {
    const outcome = returned[i];
    try {
      if (!outcome) throw new Error('no result');
      if (!outcome.success) throw new RawContractError({ data: outcome.returnData });
      return decodeFunctionResult({ abi: encodedRead(read).fn.abi, data: outcome.returnData });
    } catch (error) {
      return getContractError(error as BaseError, {
        abi: read.abi,
        address: read.address,
        args: read.args,
        docsPath: '/docs/contract/multicall',
        functionName: read.functionName,
      });
    }
  });
}

/**
 * View calls batched per chain: every read loaded in the same tick goes out as ONE `aggregate3`
 * eth_call through the chain's Multicall3 (never split). A call that reverts rejects only its own key;
 * a failed round trip rejects every key of that chain with the RPC error, for the caller to classify
 * (`classifyRpcError`).
 */
export function createMulticallLoader(
  services: MulticallServices,
  options: {
    /**
     * Collect the reads of this many ms into one batch instead of one tick (the background health
     * check: its positions' reads start after their own catalogue queries, not in one tick).
     */
    windowMs?: number;
  } = {},
): DataLoader<ContractRead, unknown, string> {
  const { windowMs } = options;
  return new DataLoader<ContractRead, unknown, string>(
    async (reads) => {
      const results: unknown[] = new Array(reads.length);
      const byChain = new Map<string, number[]>();
      for (const [i, read] of reads.entries()) {
        byChain.set(read.chain, [...(byChain.get(read.chain) ?? []), i]);
      }
      await Promise.all(
        [...byChain].map(async ([chain, indexes]) => {
          try {
            const client = services.clients.get(chain);
            const multicall = client.chain.contracts?.multicall3?.address;
            if (!multicall) throw new Error(`chain "${chain}" has no Multicall3 address`);
            const outcomes = await aggregate(
              client,
              multicall,
              indexes.map((i) => reads[i]!),
            );
            indexes.forEach((readIndex, j) => {
              results[readIndex] = outcomes[j];
            });
          } catch (error) {
            for (const i of indexes) results[i] = error instanceof Error ? error : new Error(String(error));
          }
        }),
      );
      return results;
    },
    {
      cacheKeyFn: keyOf,
      ...(windowMs === undefined ? {} : { batchScheduleFn: (run: () => void) => setTimeout(run, windowMs) }),
    },
  );
}
