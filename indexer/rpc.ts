/**
 * The indexer's reads of a chain: raw JSON-RPC (no per-log formatting), with HTTP batching so the
 * block headers a chunk needs go in one request. A client of its own, not the gateway's: a range of
 * logs may take longer than a request's RPC budget, and batching suits ingestion only.
 */
import { createClient, type Hex, toHex } from 'viem';
import { createRpcTransport, endpointsOf } from '../chain/transport.js';
import type { ChainConfig } from '../lib/config.js';
import type { RpcLog } from './events.js';
import { isRangeRefusal, LogRange } from './logRange.js';

export interface BlockHeader {
  number: number;
  hash: string;
  parentHash: string;
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
   * Logs of the given addresses whose topic0 is one of `topics`, in [from, to], asked in ranges of
   * `logRange.span` blocks: a range the node refuses (too many results, too wide, too slow) is asked
   * again narrower, and the span grows back after answers (indexer/logRange.ts).
   */
  logs(from: number, to: number, addresses: readonly string[], topics: readonly Hex[]): Promise<RpcLog[]>;
  /** The span `logs` asks for now. */
  readonly logRange: LogRange;
}

interface RawBlock {
  number: Hex;
  hash: Hex;
  parentHash: Hex;
  timestamp: Hex;
}

const headerOf = (raw: RawBlock): BlockHeader => ({
  number: Number(raw.number),
  hash: raw.hash.toLowerCase(),
  parentHash: raw.parentHash.toLowerCase(),
  timestamp: Number(raw.timestamp),
});

export function createIndexerRpc(
  chain: ChainConfig,
  options: {
    timeoutMs: number;
    fetchFn?: typeof fetch;
    /** The widest eth_getLogs range (INDEXER_CHUNK_BLOCKS). */
    maxLogRange: number;
    /** Told each time the span changes (metrics, logs). */
    onLogRange?: (span: number) => void;
  },
): IndexerRpc {
  // Every RPC URL of the chain, with failover and backoff (chain/transport.ts).
  const endpoints = endpointsOf(chain, { backoffMs: 1_000, backoffMaxMs: 30_000 });
  const fetchFn = options.fetchFn ? { fetchFn: options.fetchFn } : {};
  const client = createClient({
    transport: createRpcTransport({
      endpoints,
      timeoutMs: options.timeoutMs,
      retryCount: 1,
      client: 'indexer',
      ...fetchFn,
      batch: { batchSize: 500, wait: 0 },
    }),
  });
  // eth_getLogs alone in its HTTP request: a provider's refusal of it (an HTTP 413 among them) then
  // fails only the range, never the headers read beside it; a batch would not save anything on it.
  const logsClient = createClient({
    transport: createRpcTransport({
      endpoints,
      timeoutMs: options.timeoutMs,
      retryCount: 0,
      client: 'indexer',
      ...fetchFn,
    }),
  });
  // viem's request typing follows its public schema; results are read as the raw JSON they are.
  const request = <T>(method: string, params: unknown[]): Promise<T> =>
    client.request({ method, params } as never) as Promise<T>;
  const logRange = new LogRange(options.maxLogRange, options.onLogRange);

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
    const out: RpcLog[] = [];
    let start = from;
    let retried = false;
    while (start <= to) {
      const end = Math.min(to, start + logRange.span - 1);
      try {
        // No retry of a refusal at the same range: the next ask is narrower.
        const part = (await logsClient.request({
          method: 'eth_getLogs',
          params: [{ fromBlock: toHex(start), toBlock: toHex(end), address: addresses, topics: [topics] }],
        } as never)) as RpcLog[];
        for (const log of part) out.push(log);
        logRange.answered(end - start + 1);
        start = end + 1;
        retried = false;
      } catch (error) {
        if (isRangeRefusal(error) && logRange.refused(end - start + 1, error)) continue;
        // Anything else (a 429, a 5xx, a dropped connection) is tried once more after a pause.
        if (retried || isRangeRefusal(error)) throw error;
        retried = true;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    }
    return out;
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
    logRange,
  };
}
