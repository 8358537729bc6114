import type { Logger } from 'pino';
import type { Address } from 'viem';
import { dockCalldata, shipCalldata, swapCalldata } from '../chain/calldata.js';
import { exactInTakerTraits } from '../chain/takerTraits.js';
import { discoverStrategies } from './discover.js';
import type { SeededChain } from './seed.js';
import {
  type LiveStrategy,
  pick,
  randomStrategy,
  randomSwapAmount,
  seededRandom,
  units,
} from './strategies.js';
import { sendAndWait } from './wallet.js';

/** Share of ticks that ship a new strategy, and that dock one, so the catalogue moves. */
const SHIP_SHARE = 0.08;
const DOCK_SHARE = 0.05;
/** The bot keeps between MIN and MAX open non-pilot strategies per chain. */
const MIN_LIVE = 4;
const MAX_LIVE = 16;
/** Ticks a newcomer's strategy is tried first before it only joins the random picks. */
const NEWCOMER_ATTEMPTS = 20;
/** A newcomer's pool is swapped with at most this share of its shipped tokenIn amount. */
const NEWCOMER_SHARE = 20n;

export interface ActivityBot {
  stop(): Promise<void>;
}

/**
 * Every `activityMs` (0: never), on every chain: the bot first reads Aqua's new logs (devnet/discover.ts), so it
 * knows every active strategy on the router with listed tokens, the ones shipped through the API by
 * other wallets included. Then the taker swaps against the oldest newcomer not yet swapped (so a new
 * position fills within a tick or two; retried while its maker has not approved Aqua yet) and against a
 * random live strategy; sometimes a devnet maker ships a new one or docks one of its own (never another
 * wallet's); on the pilot chain the pilot taker also swaps against the pilot strategy, so a recent block
 * window always holds pilot swaps. Failures are skipped (debug log); a chain whose previous tick is
 * still running skips the tick.
 */
export function startActivityBot(
  chains: readonly SeededChain[],
  activityMs: number,
  logger: Logger,
): ActivityBot {
  // 0: a devnet without activity (the tests that need a still chain).
  if (activityMs <= 0) return { stop: async () => {} };
  const takerTraits = exactInTakerTraits();
  const random = seededRandom(Date.now() % 2 ** 32);
  const running = new Map<string, Promise<void>>();
  /** Per chain: newcomers' strategy hashes (in discovery order) → failed swap attempts. */
  const newcomers = new Map<string, Map<string, number>>(chains.map((c) => [c.spec.key, new Map()]));
  let stopped = false;
  /** The devnet's own makers' strategies: the only ones it ships, docks and sizes freely. */
  const isOwn = (chain: SeededChain, s: LiveStrategy) => !s.pilot && chain.roles.makers.includes(s.maker);

  const attempt = async (chain: SeededChain, what: string, action: () => Promise<unknown>) => {
    try {
      await action();
    } catch (error) {
      logger.debug({ chain: chain.spec.key, what, err: error }, 'devnet activity skipped');
    }
  };

  const swapAmount = (chain: SeededChain, strategy: LiveStrategy, inIndex: 0 | 1) => {
    const amount = randomSwapAmount(random, strategy.symbols[inIndex]);
    if (isOwn(chain, strategy) || strategy.pilot) return amount;
    // Another wallet's pool may be small: take a small share of it.
    const share = strategy.amounts[inIndex] / NEWCOMER_SHARE;
    if (share === 0n) return 1n;
    return share < amount ? share : amount;
  };

  const swap = (chain: SeededChain, from: Address, strategy: LiveStrategy, amount?: bigint) => {
    const inIndex = random() < 0.5 ? 0 : 1;
    const data = swapCalldata({
      order: strategy.order,
      tokenIn: strategy.tokens[inIndex],
      tokenOut: strategy.tokens[1 - inIndex]!,
      amount: amount ?? swapAmount(chain, strategy, inIndex),
      takerTraits,
    });
    return sendAndWait(chain.rpc, from, chain.config.router as Address, data).then(() => {
      chain.counts.swaps++;
    });
  };

  const tick = async (chain: SeededChain) => {
    const aqua = chain.config.aqua as Address;
    const router = chain.config.router as Address;
    const waiting = newcomers.get(chain.spec.key)!;
    await attempt(chain, 'discover', async () => {
      for (const s of await discoverStrategies(chain))
        if (!isOwn(chain, s) && !s.pilot) waiting.set(s.hash, 0);
    });
    const open = chain.live.filter((s) => isOwn(chain, s));
    const roll = random();
    if (roll < SHIP_SHARE && open.length < MAX_LIVE) {
      const symbols = pick(random, chain.spec.pairs);
      const strategy = randomStrategy(random, {
        maker: pick(random, chain.roles.makers),
        symbols,
        tokens: [chain.tokens[symbols[0]]!, chain.tokens[symbols[1]]!],
        feeReceiver: chain.roles.feeReceiver,
        salt: chain.nextSalt(),
      });
      await attempt(chain, 'ship', async () => {
        await sendAndWait(
          chain.rpc,
          strategy.maker,
          aqua,
          shipCalldata({
            app: router,
            strategy: strategy.strategy,
            tokens: strategy.tokens,
            amounts: strategy.amounts,
          }),
        );
        chain.live.push(strategy);
        chain.counts.shipped++;
        logger.debug({ chain: chain.spec.key, strategyHash: strategy.hash }, 'devnet shipped a strategy');
      });
    } else if (roll < SHIP_SHARE + DOCK_SHARE && open.length > MIN_LIVE) {
      const strategy = pick(random, open);
      await attempt(chain, 'dock', async () => {
        await sendAndWait(
          chain.rpc,
          strategy.maker,
          aqua,
          dockCalldata({ app: router, strategyHash: strategy.hash, tokens: strategy.tokens }),
        );
        // The tick's swap runs after this, so it never aims at the docked strategy.
        chain.live.splice(chain.live.indexOf(strategy), 1);
        chain.counts.docked++;
        logger.debug({ chain: chain.spec.key, strategyHash: strategy.hash }, 'devnet docked a strategy');
      });
    }
    const jobs: Promise<void>[] = [];
    const newcomer = nextNewcomer(chain, waiting);
    const target = chain.live.filter((s) => !s.pilot && s !== newcomer);
    // The taker's swaps run one after the other (one account, one nonce sequence).
    jobs.push(
      (async () => {
        if (newcomer) await attempt(chain, 'newcomer swap', () => swapNewcomer(chain, waiting, newcomer));
        if (target.length > 0)
          await attempt(chain, 'swap', () => swap(chain, chain.roles.taker, pick(random, target)));
      })(),
    );
    if (chain.pilotStrategy) {
      const pilot = chain.pilotStrategy;
      const amount = units(20 + 180 * random());
      jobs.push(attempt(chain, 'pilot swap', () => swap(chain, chain.roles.pilot.taker, pilot, amount)));
    }
    await Promise.all(jobs);
  };

  const swapNewcomer = async (chain: SeededChain, waiting: Map<string, number>, newcomer: LiveStrategy) => {
    try {
      await swap(chain, chain.roles.taker, newcomer);
      waiting.delete(newcomer.hash);
      logger.debug({ chain: chain.spec.key, strategyHash: newcomer.hash }, 'devnet swapped a newcomer');
    } catch (error) {
      const failures = (waiting.get(newcomer.hash) ?? 0) + 1;
      if (failures >= NEWCOMER_ATTEMPTS) waiting.delete(newcomer.hash);
      else waiting.set(newcomer.hash, failures);
      throw error;
    }
  };

  /** The first newcomer still live; newcomers docked meanwhile are forgotten. */
  const nextNewcomer = (chain: SeededChain, waiting: Map<string, number>): LiveStrategy | undefined => {
    for (const hash of waiting.keys()) {
      const strategy = chain.live.find((s) => s.hash === hash);
      if (strategy) return strategy;
      waiting.delete(hash);
    }
    return undefined;
  };

  const timer = setInterval(() => {
    if (stopped) return;
    for (const chain of chains) {
      if (running.has(chain.spec.key)) continue;
      const job = tick(chain).finally(() => running.delete(chain.spec.key));
      running.set(chain.spec.key, job);
    }
  }, activityMs);

  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await Promise.allSettled([...running.values()]);
    },
  };
}
