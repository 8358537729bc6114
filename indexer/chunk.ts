/**
 * One chunk of a chain read for the follower (indexer/follower.ts): its logs decoded, the times of
 * their blocks and the headers near the head; and the reorg detected while it is read (the headers do
 * not link up, or a log names another hash than its block's).
 */
import type { ChainConfig } from '../lib/config.js';
import { type ChainEvent, decodeLogs, FOLLOWED_TOPICS } from './events.js';
import type { BlockHeader, IndexerRpc } from './rpc.js';

export interface FetchedChunk {
  from: number;
  to: number;
  toHash: string;
  logs: number;
  events: ChainEvent[];
  blockTimes: Map<number, number>;
  /** Headers of the chunk's blocks near the head (and of its last block), in block order. */
  headers: BlockHeader[];
}

/** The chain's blocks no longer link up with what was read or stored: a reorg under the sync. */
export class ReorgDetected extends Error {
  constructor(readonly block: number) {
    super(`chain reorganised at block ${block} while it was read`);
  }
}

/**
 * Logs of the range, and the headers of its blocks at or above `windowStart` (near the head, where
 * reorgs happen) and of its last block. The headers must link up, and every log of those blocks must
 * name its block's hash: otherwise the chain changed while it was read. With `logTimestamps`, block
 * times come from the logs' `blockTimestamp` when the node gives it.
 */
export async function fetchChunk(
  rpc: IndexerRpc,
  chain: ChainConfig,
  range: { from: number; to: number },
  windowStart: number,
  logTimestamps: boolean,
): Promise<FetchedChunk> {
  const { aqua, router } = chain;
  const wanted: number[] = [];
  for (let n = Math.max(range.from, windowStart); n < range.to; n++) wanted.push(n);
  wanted.push(range.to);
  const [logs, headerMap] = await Promise.all([
    rpc.logs(range.from, range.to, [aqua.toLowerCase(), router.toLowerCase()], FOLLOWED_TOPICS),
    rpc.blocks(wanted),
  ]);
  const headers = wanted.map((n) => headerMap.get(n)!);
  for (let i = 1; i < headers.length; i++) {
    const h = headers[i]!;
    if (h.number === headers[i - 1]!.number + 1 && h.parentHash !== headers[i - 1]!.hash)
      throw new ReorgDetected(h.number);
  }
  for (const log of logs) {
    const header = headerMap.get(Number(log.blockNumber));
    if (header && log.blockHash.toLowerCase() !== header.hash) throw new ReorgDetected(header.number);
  }
  const events = decodeLogs(logs, { aqua, router });
  const blockTimes = new Map<number, number>(headers.map((h) => [h.number, h.timestamp]));
  // Nodes that put blockTimestamp on logs save the header fetches; others get one fetch per block.
  if (logTimestamps) {
    for (const log of logs) {
      if (log.blockTimestamp) blockTimes.set(Number(log.blockNumber), Number(log.blockTimestamp));
    }
  }
  const missing = events.map((e) => e.blockNumber).filter((n) => !blockTimes.has(n));
  if (missing.length > 0) {
    for (const [n, header] of await rpc.blocks(missing)) blockTimes.set(n, header.timestamp);
  }
  const last = headerMap.get(range.to)!;
  return { ...range, toHash: last.hash, logs: logs.length, events, blockTimes, headers };
}
