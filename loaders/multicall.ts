import DataLoader from 'dataloader';
import type { Abi, Address } from 'viem';
import { encodeFunctionData } from 'viem';
import type { Services } from '../lib/services.js';

/** One view call of a contract on a configured chain. */
export interface ContractRead {
  chain: string;
  address: Address;
  abi: Abi;
  functionName: string;
  args: readonly unknown[];
}

function keyOf(read: ContractRead): string {
  const data = encodeFunctionData({ abi: read.abi, functionName: read.functionName, args: read.args });
  return `${read.chain}:${read.address.toLowerCase()}:${data}`;
}

/**
 * View calls batched per chain: every read loaded in the same tick goes out as ONE `aggregate3`
 * eth_call through the chain's Multicall3 (`batchSize: 0`: viem never splits the batch). A call that
 * reverts rejects only its own key; a failed round trip rejects every key of that chain with the RPC
 * error, for the caller to classify (`classifyRpcError`).
 */
export function createMulticallLoader(
  services: Services,
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
            const multicallAddress = client.chain.contracts?.multicall3?.address;
            const outcomes = await client.multicall({
              contracts: indexes.map((i) => {
                const { address, abi, functionName, args } = reads[i]!;
                return { address, abi, functionName, args };
              }),
              allowFailure: true,
              batchSize: 0,
              ...(multicallAddress ? { multicallAddress } : {}),
            });
            indexes.forEach((readIndex, j) => {
              const outcome = outcomes[j];
              results[readIndex] =
                outcome?.status === 'success' ? outcome.result : (outcome?.error ?? new Error('no result'));
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
