/**
 * The wallet reader: what makers' strategies can really pay out. A swap pulls its output from the
 * maker's wallet, so a strategy's virtual balance is only worth what the wallet holds and lets Aqua take;
 * neither changes by a catalogue event (a maker's own transfers and approvals do not name Aqua), so the
 * wallets are read: bounded periodic multicalls, not every Transfer/Approval of every token.
 *
 * Every WALLET_READ_MS (and once at start), per chain this process leads: up to WALLET_READ_MAX_WALLETS
 * makers with open balances (never read first, then those that swapped since their last read, then the
 * least recently read), `balanceOf` and `allowance(maker, aqua)` of each token of their open strategies,
 * PAIRS_PER_CALL (maker, token) pairs per multicall. The pullable sums of the chain are computed again after each
 * run. A wallet's read is at most ceil(makers / WALLET_READ_MAX_WALLETS) × WALLET_READ_MS old.
 */
import type { Address } from 'viem';
import { erc20Abi } from '../chain/abi.js';
import type { Services } from '../lib/services.js';
import { recordWalletReads, type WalletRead, walletsToRead } from '../store/makerWallets.js';

/** (maker, token) pairs per multicall: two reads each, one eth_call of about 40 kB of calldata. */
const PAIRS_PER_CALL = 200;

export interface WalletReadRun {
  /** Wallets read per chain. */
  read: Record<string, number>;
  failed: number;
}

export interface WalletReader {
  /** One run now (tests, and the loop). */
  runNow(): Promise<WalletReadRun>;
  /** Runs now, then every WALLET_READ_MS until stopped. */
  start(): void;
  stop(): Promise<void>;
}

export function createWalletReader(
  services: Services,
  options: { chains: () => readonly string[] },
): WalletReader {
  const { config, db, registry, clients } = services;
  const logger = services.logger.child({ component: 'wallet-reader' });
  let failing: string | null = null;

  const readChain = async (chainKey: string): Promise<number> => {
    let firstBatchError: unknown;
    const chain = registry.get(chainKey);
    if (!chain) return 0;
    const wallets = await walletsToRead(db, chainKey, config.walletReadMaxWallets);
    const pairs = wallets.flatMap((w) => w.tokens.map((token) => ({ maker: w.maker, token })));
    const reads: WalletRead[] = [];
    const readAt = new Date();
    let failed = 0;
    // Batches of (maker, token) pairs, not of wallets: a maker of many tokens cannot swell one eth_call
    // past a node's limits, and a batch that fails leaves the others' reads in (its wallets come first
    // again next run).
    for (let i = 0; i < pairs.length; i += PAIRS_PER_CALL) {
      const batch = pairs.slice(i, i + PAIRS_PER_CALL);
      try {
        const answers = await clients.get(chainKey).multicall({
          allowFailure: true,
          batchSize: 0,
          contracts: batch.flatMap(({ maker, token }) => [
            {
              address: token as Address,
              abi: erc20Abi,
              functionName: 'balanceOf',
              args: [maker as Address],
            } as const,
            {
              address: token as Address,
              abi: erc20Abi,
              functionName: 'allowance',
              args: [maker as Address, chain.aqua as Address],
            } as const,
          ]),
        });
        batch.forEach((p, j) => {
          const balance = answers[2 * j];
          const allowance = answers[2 * j + 1];
          // A token that does not answer (not an ERC-20 there) pays nothing out.
          reads.push({
            ...p,
            balance: balance?.status === 'success' ? (balance.result as bigint) : 0n,
            allowance: allowance?.status === 'success' ? (allowance.result as bigint) : 0n,
          });
        });
      } catch (error) {
        failed += 1;
        if (failed === 1) firstBatchError = error;
      }
    }
    await recordWalletReads(db, chainKey, reads, readAt);
    if (failed > 0) throw firstBatchError;
    return wallets.length;
  };

  const runNow = async (): Promise<WalletReadRun> => {
    const run: WalletReadRun = { read: {}, failed: 0 };
    let firstError: string | null = null;
    for (const chainKey of options.chains()) {
      try {
        run.read[chainKey] = await readChain(chainKey);
      } catch (error) {
        run.failed += 1;
        firstError ??= error instanceof Error ? error.message.split('\n')[0]! : String(error);
      }
    }
    // Repeated failures (a chain down) are logged when they start and when they end, not per run.
    if (firstError !== null && firstError !== failing)
      logger.warn({ err: firstError }, 'wallet reads failed; retrying next run');
    else if (firstError === null && failing !== null) logger.info('wallet reads recovered');
    failing = firstError;
    return run;
  };

  let stopped = false;
  let wake: (() => void) | null = null;
  const loop = async () => {
    while (!stopped) {
      await runNow().catch(() => {});
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, config.walletReadMs);
        function done() {
          clearTimeout(timer);
          wake = null;
          resolve();
        }
        wake = done;
        if (stopped) done();
      });
    }
  };
  let running: Promise<void> = Promise.resolve();
  return {
    runNow,
    start() {
      if (!stopped) running = loop();
    },
    async stop() {
      stopped = true;
      wake?.();
      await running;
    },
  };
}
