/**
 * Follows one chain: from the stored checkpoint to the confirmed head, chunk by chunk. Only the
 * holder of the chain's advisory lock writes; the lock lives on a connection of its own, and the
 * chunks are written through that same connection, so a writer that lost its connection (and with
 * it the lock) cannot commit anything more.
 */
import pg from 'pg';
import type { ChainRegistry } from '../chain/registry.js';
import type { ChainConfig } from '../lib/config.js';
import type { Logger } from '../lib/logger.js';
import type { Metrics } from '../lib/metrics.js';
import type { Db } from '../store/db.js';
import { buildBatch } from './batch.js';
import { type ChainEvent, decodeLogs, FOLLOWED_TOPICS } from './events.js';
import { createIndexerRpc, type IndexerRpc } from './rpc.js';
import { readCheckpoint, resetChain, writeChunk } from './write.js';

/** Advisory-lock namespace of the per-chain writer locks (second key: hashtext(chain key)). */
export const CHAIN_LOCK_SPACE = 7_420_010;

export interface FollowerOptions {
  db: Db;
  logger: Logger;
  registry: ChainRegistry;
  prices: Readonly<Record<string, number>>;
  confirmations: number;
  chunkBlocks: number;
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
}

const IDLE_COUNTS = { chunks: 0, logs: 0, ms: 0, readMs: 0, writeMs: 0 };

interface FetchedChunk {
  from: number;
  to: number;
  toHash: string;
  logs: number;
  events: ChainEvent[];
  blockTimes: Map<number, number>;
}

export class ChainFollower {
  private client: pg.Client | null = null;
  private leading = false;
  private genesisHash: string | null = null;
  private readonly rpc: IndexerRpc;
  private queue: Promise<unknown> = Promise.resolve();
  private stopping = false;
  private readonly logger: Logger;

  constructor(
    readonly chain: ChainConfig,
    private readonly options: FollowerOptions,
  ) {
    this.rpc = createIndexerRpc(chain, {
      timeoutMs: Math.max(options.rpcTimeoutMs, 20_000),
      fetchFn: options.metrics?.rpcFetch(chain.key, 'indexer'),
    });
    this.logger = options.logger.child({ chain: chain.key });
  }

  /** True while this process holds the chain's writer lock. */
  get isLeader(): boolean {
    return this.leading;
  }

  /** Indexes up to the confirmed head (or `toBlock`, if lower). One sync runs at a time per chain. */
  sync(options: { toBlock?: number } = {}): Promise<SyncResult> {
    const run = this.queue.then(() => this.syncExclusive(options));
    this.queue = run.catch(() => {});
    return run;
  }

  /** Lets the running chunk commit, then releases the lock (closes its connection). */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.queue;
    await this.dropConnection();
  }

  private async syncExclusive(options: { toBlock?: number }): Promise<SyncResult> {
    const started = performance.now();
    const idle: SyncResult = { ...IDLE_COUNTS, chain: this.chain.key, led: false, from: 0, to: -1 };
    if (this.stopping) return idle;
    try {
      if (!(await this.lead())) return idle;
      const result = await this.syncLed(this.client!, options);
      return { ...result, ms: Math.round(performance.now() - started) };
    } catch (error) {
      // A chain that fails leaves the lock where it is; a connection that no longer answers is
      // closed (its lock goes with it) and the next sync starts on a new one.
      if (!(await this.connectionAnswers())) await this.dropConnection();
      // A node that failed may come back as another chain (a devnet restarted on the same URL): the
      // next sync reads its genesis block again, so the checkpoint's genesis check sees the change.
      this.genesisHash = null;
      throw error;
    }
  }

  private async connectionAnswers(): Promise<boolean> {
    try {
      await this.client?.query('SELECT 1');
      return this.client !== null;
    } catch {
      return false;
    }
  }

  private async lead(): Promise<boolean> {
    if (this.client && this.leading) return true;
    const client = new pg.Client(this.options.db.options);
    client.on('error', (error) => {
      this.logger.warn({ err: error.message }, 'indexer lock connection lost');
      if (this.client === client) {
        this.client = null;
        this.leading = false;
      }
    });
    await client.connect();
    try {
      const { rows } = await client.query<{ locked: boolean }>(
        'SELECT pg_try_advisory_lock($1, hashtext($2)) AS locked',
        [CHAIN_LOCK_SPACE, this.chain.key],
      );
      if (!rows[0]?.locked) {
        await client.end();
        return false;
      }
    } catch (error) {
      await client.end().catch(() => {});
      throw error;
    }
    this.client = client;
    this.leading = true;
    this.logger.info('indexer leads this chain');
    return true;
  }

  private async dropConnection(): Promise<void> {
    const client = this.client;
    this.client = null;
    this.leading = false;
    await client?.end().catch(() => {});
  }

  private async syncLed(client: pg.Client, options: { toBlock?: number }): Promise<SyncResult> {
    const key = this.chain.key;
    const [head, stored] = await Promise.all([this.rpc.blockNumber(), readCheckpoint(client, key)]);
    // A chain behind its checkpoint may be another chain (a devnet restarted on the same URL).
    if (stored && head < stored.lastBlock) this.genesisHash = null;
    this.genesisHash ??= (await this.rpc.block(0))?.hash ?? null;
    const genesisHash = this.genesisHash;
    if (!genesisHash) throw new Error(`chain "${key}" has no block 0`);
    let checkpoint = stored;

    if (checkpoint?.genesisHash && checkpoint.genesisHash !== genesisHash) {
      // Another chain under the same key: a devnet started afresh against a kept database.
      this.logger.warn(
        { indexedTo: checkpoint.lastBlock },
        'chain has another genesis block: indexing it anew',
      );
      await resetChain(client, key);
      checkpoint = null;
    } else if (checkpoint?.lastBlockHash && checkpoint.lastBlock <= head) {
      const header = await this.rpc.block(checkpoint.lastBlock);
      if (header && header.hash !== checkpoint.lastBlockHash) {
        this.logger.warn(
          { block: checkpoint.lastBlock, confirmations: this.options.confirmations },
          'indexed block reorganised away (deeper than the confirmations): indexing the chain anew',
        );
        await resetChain(client, key);
        checkpoint = null;
      }
    }

    const confirmed = head - this.options.confirmations;
    const target = Math.min(confirmed, options.toBlock ?? confirmed);
    const first = checkpoint ? checkpoint.lastBlock + 1 : this.chain.startBlock;
    const result: SyncResult = { ...IDLE_COUNTS, chain: key, led: true, from: first, to: first - 1, head };
    const rangeFrom = (from: number) => ({ from, to: Math.min(from + this.options.chunkBlocks - 1, target) });

    // The next chunk is read from the chain while the current one is written.
    let pending: Promise<FetchedChunk> | null = first <= target ? this.fetch(rangeFrom(first)) : null;
    while (pending) {
      const waited = performance.now();
      const chunk: FetchedChunk = await pending;
      const writing = performance.now();
      result.readMs += writing - waited;
      pending = chunk.to < target && !this.stopping ? this.fetch(rangeFrom(chunk.to + 1)) : null;
      // Its failure is reported when it is awaited; until then it must not count as unhandled.
      pending?.catch(() => {});
      const batch = buildBatch(
        {
          chainKey: key,
          registry: this.options.registry,
          prices: this.options.prices,
          blockTimes: chunk.blockTimes,
        },
        chunk.events,
      );
      await writeChunk(client, this.chain, batch, {
        lastBlock: chunk.to,
        lastBlockHash: chunk.toHash,
        genesisHash,
      });
      result.writeMs += performance.now() - writing;
      result.to = chunk.to;
      result.chunks++;
      result.logs += chunk.logs;
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
    result.readMs = Math.round(result.readMs);
    result.writeMs = Math.round(result.writeMs);
    return result;
  }

  private async fetch(range: { from: number; to: number }): Promise<FetchedChunk> {
    const { aqua, router } = this.chain;
    const [logs, last] = await Promise.all([
      this.rpc.logs(range.from, range.to, [aqua.toLowerCase(), router.toLowerCase()], FOLLOWED_TOPICS),
      this.rpc.block(range.to),
    ]);
    if (!last) throw new Error(`block ${range.to} of chain "${this.chain.key}" not found`);
    const events = decodeLogs(logs, { aqua, router });
    const blockTimes = new Map<number, number>([[last.number, last.timestamp]]);
    // Nodes that put blockTimestamp on logs save the header fetches; others get one fetch per block.
    if (this.options.logTimestamps) {
      for (const log of logs) {
        if (log.blockTimestamp) blockTimes.set(Number(log.blockNumber), Number(log.blockTimestamp));
      }
    }
    const missing = events.map((e) => e.blockNumber).filter((n) => !blockTimes.has(n));
    if (missing.length > 0) {
      for (const [n, header] of await this.rpc.blocks(missing)) blockTimes.set(n, header.timestamp);
    }
    return { ...range, toHash: last.hash, logs: logs.length, events, blockTimes };
  }
}
