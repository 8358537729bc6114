/**
 * The indexer: one follower per configured chain (Aqua and router logs into the catalogue tables)
 * and the roll-up refresh. Runs inside the service (INDEXER=embedded) or as its own process
 * (indexer/main.ts); with several replicas, one writer per chain (advisory locks) and one refresher
 * at a time.
 */
import type { Services } from '../lib/services.js';
import { pruneCatalogueEvents } from '../store/catalogueEvents.js';
import { ChainFollower, type SyncOptions, type SyncResult } from './follower.js';
import { type HealthCheckRun, startHealthCheck } from './healthCheck.js';
import { type RefreshResult, refreshRollup } from './rollup.js';
import { createWalletReader, type WalletReadRun } from './walletReader.js';

export type { SyncResult } from './follower.js';
export type { HealthCheckRun } from './healthCheck.js';
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
  syncNow(options?: SyncOptions): Promise<SyncResult[]>;
  /** Re-reads the health of the subscribed positions on the chains this process leads now (healthCheck.ts). */
  checkHealthNow(): Promise<HealthCheckRun>;
  /** Reads the wallets of makers with open balances on the chains this process leads now (walletReader.ts). */
  readWalletsNow(): Promise<WalletReadRun>;
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
        prices: services.prices,
        confirmations: chain.confirmations ?? config.indexerConfirmations,
        chunkBlocks: config.indexerChunkBlocks,
        reorgWindow: config.indexerReorgWindow,
        progressEveryMs: config.indexerProgressSeconds * 1000,
        rpcTimeoutMs: config.rpcLogsTimeoutMs,
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

  const syncNow = (syncOptions: SyncOptions = {}) => Promise.all(followers.map((f) => f.sync(syncOptions)));
  // Everything derived, now: after a rewind (orphaned rows) and when a caller asks.
  const refreshNow = async () =>
    refreshRollup(db, chains, { prices: await services.prices.usd(), everything: true });

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
        // Orphaned volume and strategies leave the roll-up now, not at the next scheduled refresh.
        if (result.rewound > 0) await refreshNow();
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
        const result = await refreshRollup(db, chains, {
          minIntervalMs: config.rollupRefreshMs * 0.8,
          prices: await services.prices.usd(),
        });
        recovered('rollup');
        if (result.refreshed) logger.debug({ ms: result.ms }, 'roll-up refreshed');
      } catch (error) {
        report('rollup', error);
      }
      try {
        // The resume window of GET /api/events: rows older or beyond it go.
        const pruned = await pruneCatalogueEvents(db, config.events);
        recovered('events prune');
        if (pruned > 0) logger.debug({ pruned }, 'catalogue events pruned');
      } catch (error) {
        report('events prune', error);
      }
    }
  };

  // The chains whose writer this process is (last sync): the health check reads only those.
  const led = new Set<string>();
  const health = startHealthCheck(services, {
    chains: () => [...led],
    background: options.background ?? true,
  });
  const wallets = createWalletReader(services, { chains: () => [...led] });
  const tracked = (result: SyncResult) => {
    if (result.led) led.add(result.chain);
    else led.delete(result.chain);
    // Stored logs (swaps above all) are when allowances and balances change: check health now.
    if (result.led && result.logs > 0) health.wake();
    return result;
  };
  const observed = (result: SyncResult) => {
    services.metrics?.indexerSynced(result);
    return tracked(result);
  };
  const loops: Promise<void>[] = [];
  if (options.background ?? true) {
    // The first pass indexes every led chain up to its head, then writes the roll-up at once.
    const firstPass = async () => {
      const started = performance.now();
      // A chain far behind (a backfill) is not waited for: past INDEXER_FIRST_PASS_SECONDS the roll-up
      // of what is indexed is written (the service is ready, freshnessSeconds says how old the data
      // is) and the follow loop goes on with the backfill.
      const until = started + config.indexerFirstPassSeconds * 1000;
      const results = await Promise.all(
        followers.map((f) =>
          f
            .sync({ until })
            .then(observed)
            .catch((error: unknown) => {
              report(f.chain.key, error);
              return null;
            }),
        ),
      );
      try {
        // The leaderboard and the list's earnings keys only when due (a start must not wait for them).
        await refreshRollup(db, chains, { prices: await services.prices.usd() });
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
      if (stopped) return;
      loops.push(...followers.map(followLoop), refreshLoop());
      wallets.start();
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
      await health.stop();
      await wallets.stop();
    },
    refreshNow,
    syncNow: (syncOptions?: SyncOptions) => syncNow(syncOptions).then((results) => results.map(tracked)),
    checkHealthNow: () => health.runNow(),
    readWalletsNow: () => wallets.runNow(),
  };
}
