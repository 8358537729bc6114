/**
 * The indexer: one follower per configured chain (Aqua and router logs into the catalogue tables)
 * and the roll-up refresh. Runs inside the service (INDEXER=embedded) or as its own process
 * (indexer/main.ts); with several replicas, one writer per chain (advisory locks) and one refresher
 * at a time.
 */
import type { Services } from '../lib/services.js';
import { ChainFollower, type SyncResult } from './follower.js';
import { type RefreshResult, refreshRollup } from './rollup.js';

export type { SyncResult } from './follower.js';
export type { RefreshResult } from './rollup.js';

export interface IndexerOptions {
  /**
   * Follow the chains and refresh the roll-up on a schedule (default true). False: nothing happens
   * but what `syncNow` and `refreshNow` do (tests and benches drive it).
   */
  background?: boolean;
  /**
   * With `background`, resolve only once every chain this process leads was indexed up to its head
   * and the first roll-up was written (default true): a service is then ready with its data.
   */
  awaitFirstSync?: boolean;
  /**
   * Block times from the logs' `blockTimestamp` where the node gives it (default true). False reads
   * every needed block header, as with nodes that do not put it on logs.
   */
  logTimestamps?: boolean;
}

export interface Indexer {
  /** Lets running chunks commit, stops the loops and releases the locks. */
  stop(): Promise<void>;
  /** Computes and writes the roll-up now. */
  refreshNow(): Promise<RefreshResult>;
  /** Indexes every chain this process can lead up to its confirmed head (or `toBlock`) now. */
  syncNow(options?: { toBlock?: number }): Promise<SyncResult[]>;
}

export async function startIndexer(services: Services, options: IndexerOptions = {}): Promise<Indexer> {
  const { config, db, registry } = services;
  const logger = services.logger.child({ component: 'indexer' });
  const chains = registry.list();
  const followers = chains.map(
    (chain) =>
      new ChainFollower(chain, {
        db,
        logger,
        registry,
        prices: config.tokenPricesUsd,
        confirmations: config.indexerConfirmations,
        chunkBlocks: config.indexerChunkBlocks,
        rpcTimeoutMs: config.rpcTimeoutMs,
        metrics: services.metrics,
        logTimestamps: options.logTimestamps ?? true,
      }),
  );

  let stopped = false;
  const wakers = new Set<() => void>();
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        wakers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      wakers.add(wake);
    });

  const syncNow = (syncOptions: { toBlock?: number } = {}) =>
    Promise.all(followers.map((f) => f.sync(syncOptions)));
  const refreshNow = () => refreshRollup(db, chains);

  // Repeated failures (a chain's RPC down) are logged when they start and when they end, not per poll.
  const failing = new Map<string, string>();
  const report = (what: string, error: unknown) => {
    const message = error instanceof Error ? error.message.split('\n')[0]! : String(error);
    if (failing.get(what) !== message) logger.warn({ what, err: message }, 'indexer step failed; retrying');
    failing.set(what, message);
  };
  const recovered = (what: string) => {
    if (failing.delete(what)) logger.info({ what }, 'indexer step recovered');
  };

  const followLoop = async (follower: ChainFollower) => {
    while (!stopped) {
      try {
        const result = observed(await follower.sync());
        recovered(follower.chain.key);
        if (result.chunks > 0)
          logger.debug({ chain: result.chain, to: result.to, logs: result.logs }, 'chain indexed');
      } catch (error) {
        report(follower.chain.key, error);
      }
      if (!stopped) await sleep(config.indexerPollMs);
    }
  };
  const refreshLoop = async () => {
    while (!stopped) {
      await sleep(config.rollupRefreshMs);
      if (stopped) break;
      try {
        // Replicas take turns: skip when another one refreshed within most of the interval.
        const result = await refreshRollup(db, chains, { minIntervalMs: config.rollupRefreshMs * 0.8 });
        recovered('rollup');
        if (result.refreshed) logger.debug({ ms: result.ms }, 'roll-up refreshed');
      } catch (error) {
        report('rollup', error);
      }
    }
  };

  const observed = (result: SyncResult) => {
    services.metrics?.indexerSynced(result);
    return result;
  };
  const loops: Promise<void>[] = [];
  if (options.background ?? true) {
    // The first pass indexes every led chain up to its head, then writes the roll-up at once.
    const firstPass = async () => {
      const started = performance.now();
      const results = await Promise.all(
        followers.map((f) =>
          f
            .sync()
            .then(observed)
            .catch((error: unknown) => {
              report(f.chain.key, error);
              return null;
            }),
        ),
      );
      try {
        await refreshNow();
      } catch (error) {
        report('rollup', error);
      }
      logger.info(
        {
          ms: Math.round(performance.now() - started),
          chains: Object.fromEntries(
            results.map((r, i) => [
              chains[i]!.key,
              r ? (r.led ? { to: r.to, logs: r.logs } : 'led by another process') : 'failed',
            ]),
          ),
        },
        'indexer first pass done',
      );
    };
    const first = firstPass();
    const startLoops = first.then(() => {
      if (!stopped) loops.push(...followers.map(followLoop), refreshLoop());
    });
    if (options.awaitFirstSync ?? true) await startLoops;
    else loops.push(startLoops);
  }

  return {
    async stop() {
      if (stopped) return;
      stopped = true;
      for (const wake of [...wakers]) wake();
      await Promise.all(followers.map((f) => f.stop()));
      await Promise.all(loops);
    },
    refreshNow,
    syncNow,
  };
}
