import type { Logger } from 'pino';
import type { Address } from 'viem';
import { dockCalldata, shipCalldata, swapCalldata } from '../chain/calldata.js';
import { exactInTakerTraits } from '../chain/takerTraits.js';
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

export interface ActivityBot {
  stop(): Promise<void>;
}

/**
 * Every `activityMs`, on every chain: the taker swaps a modest amount against a random live strategy;
 * sometimes a maker ships a new one or docks one; on the pilot chain the pilot taker also swaps against
 * the pilot strategy, so a recent block window always holds pilot swaps. Failures are skipped (debug
 * log); a chain whose previous tick is still running skips the tick.
 */
export function startActivityBot(
  chains: readonly SeededChain[],
  activityMs: number,
  logger: Logger,
): ActivityBot {
  const takerTraits = exactInTakerTraits();
  const random = seededRandom(Date.now() % 2 ** 32);
  const running = new Map<string, Promise<void>>();
  let stopped = false;

  const attempt = async (chain: SeededChain, what: string, action: () => Promise<unknown>) => {
    try {
      await action();
    } catch (error) {
      logger.debug({ chain: chain.spec.key, what, err: error }, 'devnet activity skipped');
    }
  };

  const swap = (chain: SeededChain, from: Address, strategy: LiveStrategy, amount?: bigint) => {
    const inIndex = random() < 0.5 ? 0 : 1;
    const data = swapCalldata({
      order: strategy.order,
      tokenIn: strategy.tokens[inIndex],
      tokenOut: strategy.tokens[1 - inIndex]!,
      amount: amount ?? randomSwapAmount(random, strategy.symbols[inIndex]),
      takerTraits,
    });
    return sendAndWait(chain.rpc, from, chain.config.router as Address, data).then(() => {
      chain.counts.swaps++;
    });
  };

  const tick = async (chain: SeededChain) => {
    const aqua = chain.config.aqua as Address;
    const router = chain.config.router as Address;
    const open = chain.live.filter((s) => !s.pilot);
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
    const target = chain.live.filter((s) => !s.pilot);
    if (target.length > 0) {
      jobs.push(attempt(chain, 'swap', () => swap(chain, chain.roles.taker, pick(random, target))));
    }
    if (chain.pilotStrategy) {
      const pilot = chain.pilotStrategy;
      const amount = units(20 + 180 * random());
      jobs.push(attempt(chain, 'pilot swap', () => swap(chain, chain.roles.pilot.taker, pilot, amount)));
    }
    await Promise.all(jobs);
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
