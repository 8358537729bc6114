/**
 * The follower's (indexer/follower.ts) answer to a reorg under indexed blocks: check that the chain
 * still holds the stored checkpoint's block, else find the fork point among the kept block hashes and
 * rewind to it (or index the chain anew when the reorg went deeper than the kept hashes).
 */
import type pg from 'pg';
import type { ChainConfig } from '../lib/config.js';
import type { Logger } from '../lib/logger.js';
import type { Metrics } from '../lib/metrics.js';
import { storedHashes } from './blocks.js';
import { rewindChain } from './rewind.js';
import type { BlockHeader, IndexerRpc } from './rpc.js';
import { type Checkpoint, resetChain } from './write.js';

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
 * (or null when the chain was reset: the reorg went deeper than the kept hashes).
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
    if (!header || header.hash === checkpoint.lastBlockHash) return checkpoint;
  }
  return locateFork(search, client, checkpoint, head, result);
}

/**
 * The highest stored block the chain still holds (its hash unchanged) is the fork point: the rows of
 * the blocks above it are rewound (their count added to `result.rewound`). Without one (a reorg deeper
 * than INDEXER_REORG_WINDOW), the chain is indexed anew.
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
  const stored = await storedHashes(client, key, Math.min(checkpoint.lastBlock, head), reorgWindow + 1);
  let fork: BlockHeader | null = null;
  for (let i = 0; i < stored.length && !fork; i += 64) {
    const slice = stored.slice(i, i + 64);
    const headers = await Promise.all(slice.map((s) => rpc.block(s.number)));
    const at = slice.findIndex((s, j) => headers[j]?.hash === s.hash);
    if (at >= 0) fork = headers[at]!;
  }
  if (!fork) {
    logger.warn(
      { indexedTo: checkpoint.lastBlock, window: reorgWindow },
      'indexed blocks reorganised away deeper than the kept hashes: indexing the chain anew',
    );
    await resetChain(client, key);
    return null;
  }
  const depth = checkpoint.lastBlock - fork.number;
  const rewound = await rewindChain(client, chain, fork);
  result.rewound += depth;
  metrics?.indexerRewound(key, depth);
  logger.warn(
    { fork: fork.number, depth, ms: Math.round(performance.now() - started), ...rewound },
    'reorg: rewound the orphaned blocks',
  );
  return { ...checkpoint, lastBlock: fork.number, lastBlockHash: fork.hash };
}
