import { type Address, getAddress, maxUint256 } from 'viem';
import { approveCalldata, dockCalldata, shipCalldata, swapCalldata } from '../chain/calldata.js';
import { exactInTakerTraits } from '../chain/takerTraits.js';
import type { ChainConfig } from '../lib/config.js';
import {
  DEVNET_USD_PRICES,
  type DevnetChainSpec,
  type DevnetRoles,
  PILOT_SYMBOLS,
  rolesOf,
} from './chains.js';
import { deployAndMint } from './deploy.js';
import {
  buildStrategy,
  kindStrategies,
  type LiveStrategy,
  pick,
  type Random,
  randomStrategy,
  randomSwapAmount,
  seededRandom,
  showcaseStrategies,
  TOKEN_DECIMALS,
  units,
} from './strategies.js';
import { type DevnetRpc, devnetRpc, PipelinedWallet } from './wallet.js';

/**
 * The seed of one devnet chain: after the deploy (devnet/deploy.ts), makers ship, the taker swaps
 * against every seeded strategy, some strategies are docked; the result is what the activity bot
 * (devnet/bot.ts) carries on from. The chains themselves are defined in devnet/chains.ts.
 */

/** What the activity bot needs of a seeded chain. */
export interface SeededChain {
  spec: DevnetChainSpec;
  config: ChainConfig;
  rpc: DevnetRpc;
  roles: DevnetRoles;
  tokens: Record<string, Address>;
  /** Open strategies the devnet shipped (the pilot's included). */
  live: LiveStrategy[];
  pilotStrategy: LiveStrategy | undefined;
  random: Random;
  nextSalt(): bigint;
  /** The next block whose Aqua logs the bot reads (devnet/discover.ts). */
  scannedTo: bigint;
  /** Counts for the log line. */
  counts: { shipped: number; docked: number; swaps: number; transactions: number };
}

/**
 * Told each step of a seed as it completes: the deploy, each maker whose strategies are shipped, the
 * swaps, the docks (devnet/devnet.ts reports them, so a start that seeds is never seconds of silence).
 */
export type SeedProgress = (msg: string, fields: Record<string, unknown>) => void;

const PILOT_DEPTH = units(100_000);

const GAS = {
  approve: 100_000n,
  ship: 600_000n,
  dock: 300_000n,
  swap: 600_000n,
};

/**
 * Deploys the contracts of one chain and seeds it: makers ship, the taker swaps against every seeded
 * strategy, some strategies are docked. Four rounds of pipelined transactions (deploy+mint; approvals
 * and ships; swaps; docks): within a round every account sends without waiting, rounds wait for their
 * receipts because the next one depends on another account's transactions.
 */
export async function seedChain(
  spec: DevnetChainSpec,
  rpcUrl: string,
  progress?: SeedProgress,
): Promise<SeededChain> {
  const rpc = devnetRpc(rpcUrl);
  const accounts = (await rpc.request({ method: 'eth_accounts' })) as Address[];
  const roles = rolesOf(accounts);
  const random = seededRandom(spec.chainId);
  let saltCounter = BigInt(spec.chainId) << 32n;
  const nextSalt = () => ++saltCounter;
  const counts = { shipped: 0, docked: 0, swaps: 0, transactions: 0 };

  // Round 1: the deployer deploys everything and mints, nonces in sequence (devnet/deploy.ts).
  const deployed = await deployAndMint(rpc, spec, roles);
  const { aqua, router, multicall, tokens, priceFeeds } = deployed.contracts;
  counts.transactions += deployed.transactions;
  progress?.('devnet contracts deployed', { chain: spec.key, transactions: deployed.transactions });

  // Round 2: approvals (makers → Aqua, takers → router) and ships, every account in parallel.
  const makers = await Promise.all(roles.makers.map((m) => PipelinedWallet.open(rpc, m)));
  const taker = await PipelinedWallet.open(rpc, roles.taker);
  const seeded: LiveStrategy[] = [];
  /** A concentrated and a pegged pool of the stable pair (never docked by the seed). */
  const kinds: LiveStrategy[] = [];
  const ship = (wallet: PipelinedWallet, strategy: LiveStrategy) => {
    wallet.send({
      to: aqua,
      data: shipCalldata({
        app: router,
        strategy: strategy.strategy,
        tokens: strategy.tokens,
        amounts: strategy.amounts,
      }),
      gas: GAS.ship,
    });
  };
  makers.forEach((wallet, m) => {
    for (const s of spec.tokens)
      wallet.send({ to: tokens[s]!, data: approveCalldata(aqua, maxUint256), gas: GAS.approve });
    // Shipped before the pools, so the newest strategies of the chain stay the canonical ones.
    if (m === 0 && spec.showcase) {
      const showcase = showcaseStrategies({
        maker: wallet.address,
        symbols: spec.showcase,
        tokens: [tokens[spec.showcase[0]]!, tokens[spec.showcase[1]]!],
        amounts: [units(10_000), units(10_000)],
        feeReceiver: roles.feeReceiver,
        nextSalt,
      });
      ship(wallet, showcase.branches);
      ship(wallet, showcase.unreadable);
      counts.shipped += 2;
    }
    if (m === 0 && spec.pairs.some(([a, b]) => a === 'USDC' && b === 'USDT')) {
      const stable = BigInt(spec.chainId) << 40n;
      for (const strategy of kindStrategies({
        maker: wallet.address,
        symbols: ['USDC', 'USDT'],
        tokens: [tokens.USDC!, tokens.USDT!],
        amounts: [units(200_000), units(200_000)],
        feeReceiver: roles.feeReceiver,
        salts: [stable + 1n, stable + 2n],
      })) {
        ship(wallet, strategy);
        kinds.push(strategy);
        counts.shipped++;
      }
    }
    for (let i = 0; i < spec.poolsPerMaker; i++) {
      const symbols = spec.pairs[(m + i) % spec.pairs.length]!;
      const strategy = randomStrategy(random, {
        maker: wallet.address,
        symbols,
        tokens: [tokens[symbols[0]]!, tokens[symbols[1]]!],
        feeReceiver: roles.feeReceiver,
        salt: nextSalt(),
      });
      ship(wallet, strategy);
      seeded.push(strategy);
    }
  });
  for (const s of spec.tokens)
    taker.send({ to: tokens[s]!, data: approveCalldata(router, maxUint256), gas: GAS.approve });

  let pilotStrategy: LiveStrategy | undefined;
  const wallets = [...makers, taker];
  let pilotTaker: PipelinedWallet | undefined;
  if (spec.pilot) {
    const pilotMaker = await PipelinedWallet.open(rpc, roles.pilot.maker);
    pilotTaker = await PipelinedWallet.open(rpc, roles.pilot.taker);
    for (const s of PILOT_SYMBOLS) {
      pilotMaker.send({ to: tokens[s]!, data: approveCalldata(aqua, maxUint256), gas: GAS.approve });
      pilotTaker.send({ to: tokens[s]!, data: approveCalldata(router, maxUint256), gas: GAS.approve });
    }
    pilotStrategy = buildStrategy({
      maker: pilotMaker.address,
      symbols: PILOT_SYMBOLS,
      tokens: [tokens.USDC!, tokens.USDT!],
      amounts: [PILOT_DEPTH, PILOT_DEPTH],
      flatFee1e9: 0,
      feeReceiver: roles.feeReceiver,
      salt: nextSalt(),
      pilot: true,
    });
    ship(pilotMaker, pilotStrategy);
    wallets.push(pilotMaker, pilotTaker);
  }
  // Each maker is reported as its approvals and ships are mined (the others' still pending).
  let makersSeeded = 0;
  const settled = await Promise.all(
    wallets.map(async (wallet) => {
      const receipts = await wallet.settle();
      if (makers.includes(wallet))
        progress?.('devnet makers seeded', { chain: spec.key, done: ++makersSeeded, of: makers.length });
      return receipts;
    }),
  );
  counts.transactions += settled.flat().length;
  counts.shipped += seeded.length + (pilotStrategy ? 1 : 0);

  // Round 3: the taker swaps once against every seeded strategy, the pilot taker twice on the pilot.
  const takerTraits = exactInTakerTraits();
  const swap = (wallet: PipelinedWallet, strategy: LiveStrategy, inIndex: 0 | 1, amount: bigint) => {
    wallet.send({
      to: router,
      data: swapCalldata({
        order: strategy.order,
        tokenIn: strategy.tokens[inIndex],
        tokenOut: strategy.tokens[1 - inIndex]!,
        amount,
        takerTraits,
      }),
      gas: GAS.swap,
    });
    counts.swaps++;
  };
  for (const strategy of seeded) {
    const inIndex = random() < 0.5 ? 0 : 1;
    swap(taker, strategy, inIndex, randomSwapAmount(random, strategy.symbols[inIndex]));
  }
  for (const strategy of kinds) swap(taker, strategy, 0, units(250));
  if (pilotStrategy && pilotTaker) {
    swap(pilotTaker, pilotStrategy, 0, units(250));
    swap(pilotTaker, pilotStrategy, 1, units(120));
  }
  counts.transactions += (await Promise.all([taker.settle(), pilotTaker?.settle() ?? []])).flat().length;
  progress?.('devnet swaps seeded', { chain: spec.key, swaps: counts.swaps });

  // Round 4: some makers close a pool (after it traded, so docked pools have volume too).
  const toDock = new Set<LiveStrategy>();
  while (toDock.size < Math.min(spec.docked, seeded.length - 2)) toDock.add(pick(random, seeded));
  for (const strategy of toDock) {
    const wallet = makers.find((w) => w.address === strategy.maker)!;
    wallet.send({
      to: aqua,
      data: dockCalldata({ app: router, strategyHash: strategy.hash, tokens: strategy.tokens }),
      gas: GAS.dock,
    });
  }
  counts.transactions += (await Promise.all(makers.map((w) => w.settle()))).flat().length;
  counts.docked = toDock.size;
  progress?.('devnet chain seeded', { chain: spec.key, ...counts });

  const live = [...seeded.filter((s) => !toDock.has(s)), ...kinds];
  if (pilotStrategy) live.push(pilotStrategy);

  const config: ChainConfig = {
    key: spec.key,
    chainId: spec.chainId,
    name: spec.name,
    rpcUrl,
    aqua: getAddress(aqua),
    router: getAddress(router),
    multicall: getAddress(multicall),
    feeReceiver: roles.feeReceiver,
    testnet: spec.testnet,
    tokens: spec.tokens.map((symbol) => ({
      symbol,
      address: getAddress(tokens[symbol]!),
      decimals: TOKEN_DECIMALS,
      ...(priceFeeds[symbol]
        ? { usdFeed: getAddress(priceFeeds[symbol]) }
        : { usd: DEVNET_USD_PRICES[symbol]! }),
    })),
    startBlock: 0,
    // A local chain: nothing to wait for (its reorgs are the ones tests make).
    confirmations: 0,
    ...(spec.depositSymbols ? { depositSymbols: [...spec.depositSymbols] } : {}),
    ...(pilotStrategy
      ? {
          pilot: {
            maker: roles.pilot.maker,
            taker: roles.pilot.taker,
            feeWallet: roles.pilot.feeWallet,
            strategyHash: pilotStrategy.hash,
          },
        }
      : {}),
  };
  return { spec, config, rpc, roles, tokens, live, pilotStrategy, random, nextSalt, counts, scannedTo: 0n };
}
