/**
 * The indexer's reads of a chain: raw JSON-RPC (no per-log formatting), with HTTP batching so the
 * block headers a chunk needs go in one request. A client of its own, not the gateway's: a range of
 * logs may take longer than a request's RPC budget, and batching suits ingestion only.
 */
import { BaseError, createClient, type Hex, HttpRequestError, http, TimeoutError, toHex } from 'viem';
import type { ChainConfig } from '../lib/config.js';
import type { RpcLog } from './events.js';

export interface BlockHeader {
  number: number;
  hash: string;
  /** Unix seconds. */
  timestamp: number;
}

export interface IndexerRpc {
  blockNumber(): Promise<number>;
  /** A block header; null when the node does not have it (yet). */
  block(number: number): Promise<BlockHeader | null>;
  /** Headers of many blocks, fetched once each, batched into few HTTP requests. */
  blocks(numbers: readonly number[]): Promise<Map<number, BlockHeader>>;
  /**
   * Logs of the given addresses whose topic0 is one of `topics`, in [from, to]. A range the node
   * refuses (too many results, too wide, too slow) is split in halves until it answers.
   */
  logs(from: number, to: number, addresses: readonly string[], topics: readonly Hex[]): Promise<RpcLog[]>;
}

interface RawBlock {
  number: Hex;
  hash: Hex;
  timestamp: Hex;
}

const headerOf = (raw: RawBlock): BlockHeader => ({
  number: Number(raw.number),
  hash: raw.hash.toLowerCase(),
  timestamp: Number(raw.timestamp),
});

/** The node answered with an error, or was too slow: a narrower range may succeed. */
function isRangeRefusal(error: unknown): boolean {
  if (!(error instanceof BaseError)) return false;
  if (error.walk((e) => e instanceof TimeoutError)) return true;
  // A connection that failed is not about the range; a JSON-RPC error answer is.
  return !error.walk((e) => e instanceof HttpRequestError && e.status === undefined);
}

export function createIndexerRpc(
  chain: ChainConfig,
  options: { timeoutMs: number; fetchFn?: typeof fetch },
): IndexerRpc {
  const client = createClient({
    transport: http(chain.rpcUrl, {
      timeout: options.timeoutMs,
      retryCount: 1,
      fetchFn: options.fetchFn,
      batch: { batchSize: 500, wait: 0 },
    }),
  });
  // viem's request typing follows its public schema; results are read as the raw JSON they are.
  const request = <T>(method: string, params: unknown[]): Promise<T> =>
    client.request({ method, params } as never) as Promise<T>;

  const block = async (number: number) => {
    const raw = await request<RawBlock | null>('eth_getBlockByNumber', [toHex(number), false]);
    return raw ? headerOf(raw) : null;
  };

  const logs = async (
    from: number,
    to: number,
    addresses: readonly string[],
    topics: readonly Hex[],
  ): Promise<RpcLog[]> => {
    try {
      return await request<RpcLog[]>('eth_getLogs', [
        { fromBlock: toHex(from), toBlock: toHex(to), address: addresses, topics: [topics] },
      ]);
    } catch (error) {
      if (to <= from || !isRangeRefusal(error)) throw error;
      const middle = Math.floor((from + to) / 2);
      const first = await logs(from, middle, addresses, topics);
      const second = await logs(middle + 1, to, addresses, topics);
      return first.concat(second);
    }
  };

  return {
    async blockNumber() {
      return Number(await request<Hex>('eth_blockNumber', []));
    },
    block,
    async blocks(numbers) {
      const unique = [...new Set(numbers)];
      const headers = await Promise.all(unique.map((n) => block(n)));
      const out = new Map<number, BlockHeader>();
      headers.forEach((header, i) => {
        if (!header) throw new Error(`block ${unique[i]} not found on chain "${chain.key}"`);
        out.set(header.number, header);
      });
      return out;
    },
    logs,
  };
}
