/**
 * The background health check (position.health_changed without a client's read). A maker's allowance
 * and balance are used up by swaps (and changed by the maker's own transactions), which no catalogue
 * event names, so health has to be read from the chain. The indexer process re-reads the health of the
 * positions whose key has an endpoint subscribed to position.health_changed:
 *   - right after a follower stored logs (a swap, ship or dock: the likely moments of a change), and
 *   - every HEALTH_CHECK_MS otherwise (approvals, transfers and top-ups leave no catalogue log).
 * It lives in the indexer process rather than on a graphile-worker cron because the indexer knows
 * when swaps were stored and which chains it leads (one checker per chain across replicas, like the
 * writer), and a cron has a one-minute granularity.
 *
 * Bounded: one wallet at a time (one multicall round trip each, the GET path's health code), at most
 * HEALTH_CHECK_MAX_WALLETS per run: first the wallets whose strategies the indexer saw shipped, swapped
 * or docked since the last run (catalogue_events), then the least recently checked (logged when the cap
 * cuts a run).
 * A wallet whose read or write fails is logged and comes first again at the next run.
 */

import { recordHealth } from '../domain/positionEvents.js';
import { positionHealth } from '../domain/positionHealth.js';
import type { Services } from '../lib/services.js';
import { createLoaders } from '../loaders/index.js';
import { createMulticallLoader } from '../loaders/multicall.js';
import {
  makersSince,
  subscribedPositionsOf,
  subscribedWallets,
  type WalletRef,
} from '../store/healthCheck.js';

/** The window collecting one wallet's reads into one multicall (its positions' catalogue reads come first). */
const BATCH_WINDOW_MS = 25;

export interface HealthCheckRun {
  wallets: number;
  checked: number;
  failed: number;
  changed: number;
  capped: boolean;
  /** The wallets read by this run, as `chain:wallet` (lower case), in order. */
  read: string[];
}

export interface HealthCheck {
  /** Runs as soon as the current run (if any) ends. */
  wake(): void;
  /** One run now (tests and the loop). */
  runNow(): Promise<HealthCheckRun>;
  stop(): Promise<void>;
}

export function startHealthCheck(
  services: Services,
  options: { chains: () => readonly string[]; background: boolean },
): HealthCheck {
  const { config, db, registry } = services;
  const logger = services.logger.child({ component: 'health-check' });
  const lastChecked = new Map<string, number>();
  const keyOf = (w: WalletRef) => `${w.chain_key}:${w.wallet.toLowerCase()}`;
  let failingSince: string | null = null;
  /** The last catalogue event seen by a run (null: none yet; the first run checks by age only). */
  let lastEventId: string | null = null;

  const checkWallet = async (ref: WalletRef): Promise<number> => {
    const chain = registry.get(ref.chain_key);
    if (!chain) return 0;
    const rows = await subscribedPositionsOf(db, ref);
    // One context for the wallet: the reads of all its positions (allowances, balances and virtual
    // balances, shared ones once) go out as one multicall, collected over a short window.
    const ctx = {
      services,
      loaders: {
        ...createLoaders(services),
        multicall: createMulticallLoader(services, { windowMs: BATCH_WINDOW_MS }),
      },
    };
    const healths = await Promise.all(rows.map((row) => positionHealth(ctx, chain, row)));
    let changed = 0;
    for (const [i, health] of healths.entries()) {
      if (health && (await recordHealth(db, rows[i]!, health, config.webhooks.healthCoalesceMs)))
        changed += 1;
    }
    return changed;
  };

  const runNow = async (): Promise<HealthCheckRun> => {
    const chains = options.chains();
    const run: HealthCheckRun = { wallets: 0, checked: 0, failed: 0, changed: 0, capped: false, read: [] };
    if (chains.length === 0) return run;
    const wallets = await subscribedWallets(db, chains);
    run.wallets = wallets.length;
    const present = new Set(wallets.map(keyOf));
    for (const key of lastChecked.keys()) if (!present.has(key)) lastChecked.delete(key);
    // The makers of what was indexed since the last run (swaps above all) first, then the least recently checked.
    const since = await makersSince(db, chains, lastEventId);
    const touched = new Set(since.makers.map(keyOf));
    const rank = (w: WalletRef) => (touched.has(keyOf(w)) ? -1 : (lastChecked.get(keyOf(w)) ?? 0));
    wallets.sort((a, b) => rank(a) - rank(b));
    const cap = config.healthCheckMaxWallets;
    if (wallets.length > cap) {
      run.capped = true;
      logger.info({ wallets: wallets.length, cap }, 'health check capped: the rest at the next run');
    }
    let firstError: string | null = null;
    for (const ref of wallets.slice(0, cap)) {
      try {
        run.changed += await checkWallet(ref);
        run.checked += 1;
        run.read.push(keyOf(ref));
        lastChecked.set(keyOf(ref), Date.now());
        touched.delete(keyOf(ref));
      } catch (error) {
        run.failed += 1;
        firstError ??= error instanceof Error ? error.message.split('\n')[0]! : String(error);
      }
    }
    // Repeated failures (a chain down) are logged when they start and when they end, not per run.
    if (firstError !== null && failingSince !== firstError)
      logger.warn(
        { failed: run.failed, err: firstError },
        'health check failed for some wallets; retrying next run',
      );
    else if (firstError === null && failingSince !== null) logger.info('health check recovered');
    failingSince = firstError;
    // Touched wallets the cap or a failure left unchecked stay first: they rank as never checked (0) now.
    for (const key of touched) lastChecked.delete(key);
    lastEventId = since.lastId;
    if (run.changed > 0)
      logger.debug({ checked: run.checked, changed: run.changed }, 'health changes queued');
    return run;
  };

  let stopped = false;
  let pending = false;
  let wakeNow: (() => void) | null = null;
  const loop = async () => {
    while (!stopped) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, config.healthCheckMs);
        function done() {
          clearTimeout(timer);
          wakeNow = null;
          resolve();
        }
        wakeNow = done;
        if (pending || stopped) done();
      });
      pending = false;
      if (stopped) break;
      try {
        await runNow();
      } catch (error) {
        logger.warn(
          { err: error instanceof Error ? error.message : String(error) },
          'health check run failed',
        );
      }
    }
  };
  const running = options.background ? loop() : Promise.resolve();

  return {
    wake() {
      pending = true;
      wakeNow?.();
    },
    runNow,
    async stop() {
      stopped = true;
      wakeNow?.();
      await running;
    },
  };
}
