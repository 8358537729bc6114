/**
 * The follower's (indexer/follower.ts) answer to a chain whose history no longer matches the stored
 * one. A reorg within the kept block hashes is rewound to its fork point; a chain that holds none of
 * them (a fork below the reorg window, an RPC URL now serving another chain, a devnet started afresh)
 * is a replaced chain: its catalogue is rewound to genesis and indexed anew. Both happen in one
 * transaction each (indexer/rewind.ts), so a reader sees the catalogue before or after, never between.
 */
import type pg from 'pg';
import type { ChainConfig } from '../lib/config.js';
import type { Logger } from '../lib/logger.js';
import type { Metrics } from '../lib/metrics.js';
import { storedHashes } from './blocks.js';
import { rewindChain, rewindToGenesis } from './rewind.js';
import type { BlockHeader, IndexerRpc } from './rpc.js';
import type { Checkpoint } from './write.js';

/** What the fork search reads from and reports to: one chain's follower. */
export interface ForkSearch {
  chain: ChainConfig;
  rpc: IndexerRpc;
  logger: Logger;
  /** Blocks below the head whose hashes are kept: the deepest reorg rewound rather than re-indexed. */
  reorgWindow: number;
  metrics?: Metrics;
}

/**
 * The stored checkpoint, if the chain still holds its block; else the fork point found and rewound to
 * (or null when the chain was replaced and rewound to genesis).
 */
export async function verifyCheckpoint(
  search: ForkSearch,
  client: pg.Client,
  checkpoint: Checkpoint,
  head: number,
  result: { rewound: number },
): Promise<Checkpoint | null> {
  if (!checkpoint.lastBlockHash) return checkpoint;
  if (checkpoint.lastBlock <= head) {
    const header = await search.rpc.block(checkpoint.lastBlock);
    // A node without a block below its own head (a lagging replica behind a balancer) proves nothing.
    if (!header || header.hash === checkpoint.lastBlockHash) return checkpoint;
  }
  return locateFork(search, client, checkpoint, head, result);
}

/**
 * The highest stored block the chain still holds (its hash unchanged) is the fork point, found by a
 * binary search over the kept hashes (a chain holds every block below its fork point and none above
 * it): about log2(INDEXER_REORG_WINDOW) header reads. The rows of the blocks above it are rewound
 * (their count added to `result.rewound`). When the chain holds none of them, it was replaced.
 */
export async function locateFork(
  search: ForkSearch,
  client: pg.Client,
  checkpoint: Checkpoint,
  head: number,
  result: { rewound: number },
): Promise<Checkpoint | null> {
  const { chain, rpc, logger, reorgWindow, metrics } = search;
  const key = chain.key;
  const started = performance.now();
  // Highest first; a block above the chain's head cannot be held by it.
  const stored = await storedHashes(client, key, Math.min(checkpoint.lastBlock, head), reorgWindow + 1);
  const held = async (i: number): Promise<BlockHeader | null> => {
    const header = await rpc.block(stored[i]!.number);
    return header && header.hash === stored[i]!.hash ? header : null;
  };
  let fork = stored.length > 0 ? await held(stored.length - 1) : null;
  if (!fork) {
    await replaced(search, client, checkpoint, 'no stored block is on the chain any more');
    result.rewound += Math.max(1, checkpoint.lastBlock);
    return null;
  }
  // stored[hi] is held; find the lowest index (the highest block) that is.
  let lo = 0;
  let hi = stored.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    const header = await held(mid);
    if (header) {
      hi = mid;
      fork = header;
    } else lo = mid + 1;
  }
  const depth = checkpoint.lastBlock - fork.number;
  if (depth <= 0) return { ...checkpoint, lastBlock: fork.number, lastBlockHash: fork.hash };
  const rewound = await rewindChain(client, chain, fork);
  result.rewound += depth;
  metrics?.indexerRewound(key, depth);
  logger.warn(
    { fork: fork.number, depth, ms: Math.round(performance.now() - started), ...rewound },
    'reorg: rewound the orphaned blocks',
  );
  return { ...checkpoint, lastBlock: fork.number, lastBlockHash: fork.hash };
}

/**
 * The chain under this key is not the one indexed (another genesis block, or none of the kept hashes
 * on it): everything derived from it is rewound to genesis in one transaction, told once at error
 * level and counted, and the chain is indexed anew from its start block.
 */
export async function replaced(
  search: ForkSearch,
  client: pg.Client,
  checkpoint: Checkpoint,
  why: string,
): Promise<void> {
  const started = performance.now();
  const rewound = await rewindToGenesis(client, search.chain);
  search.metrics?.indexerChainReplaced(search.chain.key);
  search.logger.error(
    {
      indexedTo: checkpoint.lastBlock,
      window: search.reorgWindow,
      ms: Math.round(performance.now() - started),
      ...rewound,
    },
    `chain replaced under the catalogue (${why}): rewound to genesis, indexing it anew`,
  );
}
