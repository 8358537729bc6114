/**
 * Follows one chain: from the stored checkpoint to the confirmed head, chunk by chunk. Only the
 * holder of the chain's advisory lock writes; the lock lives on a connection of its own, and the
 * chunks are written through that same connection, so a writer that lost its connection (and with
 * it the lock) cannot commit anything more. The lock is indexer/writerLock.ts, the read of a chunk
 * indexer/chunk.ts, the fork search after a reorg indexer/fork.ts.
 */

import type pg from 'pg';
import type { PriceBook } from '../chain/prices.js';
import type { ChainRegistry } from '../chain/registry.js';
import type { ChainConfig } from '../lib/config.js';
import type { Logger } from '../lib/logger.js';
import type { Metrics } from '../lib/metrics.js';
import type { Db } from '../store/db.js';
import { buildBatch } from './batch.js';
import { markIndexedThrough } from './blocks.js';
import { type FetchedChunk, fetchChunk, ReorgDetected } from './chunk.js';
import { type ForkSearch, locateFork, replaced, verifyCheckpoint } from './fork.js';
import { SyncProgress } from './progress.js';
import { createIndexerRpc, type IndexerRpc } from './rpc.js';
import { markSynced, readCheckpoint, writeChunk } from './write.js';
import { WriterLock } from './writerLock.js';

export interface FollowerOptions {
  db: Db;
  logger: Logger;
  registry: ChainRegistry;
  /** Prices each chunk's swaps in USD at the prices of the moment it is indexed. */
  prices: PriceBook;
  /** Blocks behind the head this chain is indexed to (the chain's `confirmations`, or the default). */
  confirmations: number;
  chunkBlocks: number;
  /** Blocks below the head whose hashes are kept: the deepest reorg rewound rather than re-indexed. */
  reorgWindow: number;
  /** Milliseconds between two progress lines of a backfill. */
  progressEveryMs: number;
  rpcTimeoutMs: number;
  /** Counts this chain's RPC requests (lib/metrics.ts). */
  metrics?: Metrics;
  /** Take block times from the logs' `blockTimestamp` when the node gives it (false: read headers). */
  logTimestamps: boolean;
}

export interface SyncResult {
  chain: string;
  /** False when another process holds the chain's lock: nothing was done. */
  led: boolean;
  /** First and last block stored by this call (to < from: nothing new). */
  from: number;
  to: number;
  /** The chain head this call saw (absent when not led). */
  head?: number;
  chunks: number;
  logs: number;
  ms: number;
  /** Of `ms`: waiting for the chain (the read of a chunk not yet prefetched) and building + writing rows. */
  readMs: number;
  writeMs: number;
  /** Indexed blocks a reorg orphaned, rewound by this call (0: none). */
  rewound: number;
}

export interface SyncOptions {
  toBlock?: number;
  until?: number;
}

const IDLE_COUNTS = { chunks: 0, logs: 0, ms: 0, readMs: 0, writeMs: 0, rewound: 0 };

/** Rounds of (reorg found → rewind → index again) one sync goes through before it gives up until the next. */
const REORG_ROUNDS = 3;

export class ChainFollower {
  private readonly lock: WriterLock;
  private readonly forkSearch: ForkSearch;
  private readonly rpc: IndexerRpc;
  private queue: Promise<unknown> = Promise.resolve();
  private stopping = false;
  private readonly logger: Logger;

  constructor(
    readonly chain: ChainConfig,
    private readonly options: FollowerOptions,
  ) {
    this.logger = options.logger.child({ chain: chain.key });
    this.rpc = createIndexerRpc(chain, {
      timeoutMs: Math.max(options.rpcTimeoutMs, 20_000),
      fetchFn: options.metrics?.rpcFetch(chain.key, 'indexer'),
      maxLogRange: options.chunkBlocks,
      onLogRange: (span) => {
        options.metrics?.indexerLogRange(chain.key, span);
        this.logger.info({ blocks: span }, 'eth_getLogs range resized');
      },
    });
    options.metrics?.indexerLogRange(chain.key, options.chunkBlocks);
    this.lock = new WriterLock(options.db, chain.key, this.logger);
    this.forkSearch = {
      chain,
      rpc: this.rpc,
      logger: this.logger,
      reorgWindow: options.reorgWindow,
      metrics: options.metrics,
    };
  }

  /** True while this process holds the chain's writer lock. */
  get isLeader(): boolean {
    return this.lock.isLeader;
  }

  /**
   * Indexes up to the confirmed head (or `toBlock`, if lower); with `until` (a `performance.now()`
   * time), stops after the chunk that ends past it. One sync runs at a time per chain.
   */
  sync(options: SyncOptions = {}): Promise<SyncResult> {
    const run = this.queue.then(() => this.syncExclusive(options));
    this.queue = run.catch(() => {});
    return run;
  }

  /** Lets the running chunk commit, then releases the lock (closes its connection). */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.queue;
    await this.lock.release();
  }

  private async syncExclusive(options: SyncOptions): Promise<SyncResult> {
    const started = performance.now();
    const idle: SyncResult = { ...IDLE_COUNTS, chain: this.chain.key, led: false, from: 0, to: -1 };
    if (this.stopping) return idle;
    try {
      const client = await this.lock.lead();
      if (!client) return idle;
      const result = await this.syncLed(client, options);
      return { ...result, ms: Math.round(performance.now() - started) };
    } catch (error) {
      // A chain that fails leaves the lock where it is; a connection that no longer answers is
      // closed (its lock goes with it) and the next sync starts on a new one.
      if (!(await this.lock.answers())) await this.lock.release();
      throw error;
    }
  }

  private async syncLed(client: pg.Client, options: SyncOptions): Promise<SyncResult> {
    const key = this.chain.key;
    // The genesis block is read at every sync (one header): the URL may serve another chain since the
    // last one (a node replaced behind it, a devnet started afresh), whatever its head says.
    const [head, stored, genesis] = await Promise.all([
      this.rpc.blockNumber(),
      readCheckpoint(client, key),
      this.rpc.block(0),
    ]);
    const headSeenAt = new Date();
    const genesisHash = genesis?.hash;
    if (!genesisHash) throw new Error(`chain "${key}" has no block 0`);
    let checkpoint = stored;
    const result: SyncResult = { ...IDLE_COUNTS, chain: key, led: true, from: 0, to: -1, head };

    if (checkpoint?.genesisHash && checkpoint.genesisHash !== genesisHash) {
      await replaced(this.forkSearch, client, checkpoint, 'another genesis block');
      result.rewound += Math.max(1, checkpoint.lastBlock);
      checkpoint = null;
    } else if (checkpoint) {
      checkpoint = await verifyCheckpoint(this.forkSearch, client, checkpoint, head, result);
    }

    const confirmed = head - this.options.confirmations;
    const target = Math.min(confirmed, options.toBlock ?? confirmed);
    const first = checkpoint ? checkpoint.lastBlock + 1 : this.chain.startBlock;
    result.from = first;
    result.to = first - 1;
    if (first > target) {
      // Nothing to index: with the head itself indexed, the catalogue holds every event up to now.
      if (checkpoint && checkpoint.lastBlock >= head) await markIndexedThrough(client, key, headSeenAt);
      await markSynced(client, key, head);
      return result;
    }
    const progress = new SyncProgress(
      key,
      { startBlock: this.chain.startBlock, from: first, target, head },
      { logger: this.logger, metrics: this.options.metrics, everyMs: this.options.progressEveryMs },
    );
    let from = first;
    let parentHash = checkpoint?.lastBlockHash ?? null;
    for (let round = 0; ; round++) {
      try {
        await this.follow(
          client,
          { from, target, head, headSeenAt, parentHash, genesisHash, until: options.until },
          result,
          progress,
        );
        break;
      } catch (error) {
        if (!(error instanceof ReorgDetected) || round >= REORG_ROUNDS || this.stopping) throw error;
        // What the fork search finds is logged once by it (a rewind, or a replaced chain); this
        // round's detection alone is not news.
        this.logger.debug({ block: error.block }, 'chain reorganised during the sync: locating the fork');
        const now = await readCheckpoint(client, key);
        const back = now ? await locateFork(this.forkSearch, client, now, head, result) : null;
        from = back ? back.lastBlock + 1 : this.chain.startBlock;
        parentHash = back?.lastBlockHash ?? null;
        result.from = Math.min(result.from, from);
      }
    }
    await markSynced(client, key, head);
    result.readMs = Math.round(result.readMs);
    result.writeMs = Math.round(result.writeMs);
    return result;
  }

  /**
   * Indexes [from, target] chunk by chunk; the next chunk is read from the chain while the current one
   * is written. Each chunk must link to the block before it (its first block's parent hash).
   */
  private async follow(
    client: pg.Client,
    range: {
      from: number;
      target: number;
      head: number;
      headSeenAt: Date;
      parentHash: string | null;
      genesisHash: string;
      until?: number;
    },
    result: SyncResult,
    progress: SyncProgress,
  ): Promise<void> {
    const { target, head } = range;
    const windowStart = head - this.options.reorgWindow;
    const rangeFrom = (from: number) => ({ from, to: Math.min(from + this.options.chunkBlocks - 1, target) });
    let parentHash = range.parentHash;
    let pending: Promise<FetchedChunk> | null = this.fetch(rangeFrom(range.from), windowStart);
    while (pending) {
      const waited = performance.now();
      const chunk: FetchedChunk = await pending;
      const writing = performance.now();
      result.readMs += writing - waited;
      const more = chunk.to < target && !this.stopping && !(range.until && performance.now() > range.until);
      pending = more ? this.fetch(rangeFrom(chunk.to + 1), windowStart) : null;
      // Its failure is reported when it is awaited; until then it must not count as unhandled.
      pending?.catch(() => {});
      const firstHeader = chunk.headers[0];
      if (parentHash && firstHeader?.number === chunk.from && firstHeader.parentHash !== parentHash)
        throw new ReorgDetected(chunk.from);
      const batch = buildBatch(
        {
          chainKey: this.chain.key,
          registry: this.options.registry,
          prices: await this.options.prices.usd(),
          blockTimes: chunk.blockTimes,
        },
        chunk.events,
      );
      await writeChunk(client, this.chain, batch, {
        lastBlock: chunk.to,
        lastBlockHash: chunk.toHash,
        genesisHash: range.genesisHash,
        // Up to the head: every event up to when the head was read. Below it: up to the block's time.
        indexedThroughAt:
          chunk.to >= head ? range.headSeenAt : new Date(chunk.blockTimes.get(chunk.to)! * 1000),
        headers: chunk.headers,
        reorgWindow: this.options.reorgWindow,
      });
      parentHash = chunk.toHash;
      result.writeMs += performance.now() - writing;
      result.to = chunk.to;
      result.chunks++;
      result.logs += chunk.logs;
      progress.chunk(chunk.to, chunk.to - chunk.from + 1, chunk.logs);
      this.logger.debug(
        {
          from: chunk.from,
          to: chunk.to,
          logs: chunk.logs,
          strategies: batch.strategies.length,
          swaps: batch.swaps.length,
        },
        'indexed chunk',
      );
    }
  }

  /** The chunk of the range, read from this chain (indexer/chunk.ts). */
  private fetch(range: { from: number; to: number }, windowStart: number): Promise<FetchedChunk> {
    return fetchChunk(this.rpc, this.chain, range, windowStart, this.options.logTimestamps);
  }
}
