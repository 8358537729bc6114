import {
  type Address,
  encodeDeployData,
  encodeFunctionData,
  getAddress,
  getContractAddress,
  maxUint256,
} from 'viem';
import { erc20Abi } from '../chain/abi.js';
import { approveCalldata, dockCalldata, shipCalldata, swapCalldata } from '../chain/calldata.js';
import { exactInTakerTraits } from '../chain/takerTraits.js';
import type { ChainConfig } from '../lib/config.js';
import { artifacts } from './artifacts.js';
import {
  buildStrategy,
  type LiveStrategy,
  pick,
  type Random,
  randomStrategy,
  randomSwapAmount,
  seededRandom,
  TOKEN_DECIMALS,
  units,
} from './strategies.js';
import { type DevnetRpc, devnetRpc, PipelinedWallet } from './wallet.js';

/** One devnet chain as the devnet defines it (the manifest adds addresses and the RPC URL). */
export interface DevnetChainSpec {
  key: string;
  chainId: number;
  name: string;
  testnet: boolean;
  /** SPEC §2.4's deposit symbols, when fewer than the tokens listed. */
  depositSymbols?: readonly string[];
  /** Port offset from the devnet's base port. */
  portOffset: number;
  /** TestTokens deployed (and listed in the manifest), in this order. */
  tokens: readonly string[];
  /** Pairs the makers ship. */
  pairs: readonly (readonly [string, string])[];
  /** Pools per maker at start; the first `docked` of all seeded pools are docked after their first swap. */
  poolsPerMaker: number;
  docked: number;
  /** The demo wallets and their USDC/USDT strategy (test network only). */
  pilot: boolean;
}

const ALL_PAIRS = [
  ['USDC', 'USDT'],
  ['USDC', 'EURC'],
  ['USDT', 'EURC'],
] as const;

/**
 * SPEC lists arc's deposit symbols as USDC and EURC. The devnet still deploys USDT on arc so that
 * every chain has the USDC/USDT pair the quote path simulates; arc's manifest therefore lists USDT
 * among its tokens, and `depositSymbols` keeps prepare to SPEC's USDC and EURC.
 */
export const DEVNET_CHAINS: readonly DevnetChainSpec[] = [
  {
    key: 'base',
    chainId: 8453,
    name: 'Base',
    testnet: false,
    portOffset: 0,
    tokens: ['USDC', 'USDT', 'EURC'],
    pairs: ALL_PAIRS,
    poolsPerMaker: 3,
    docked: 2,
    pilot: false,
  },
  {
    key: 'arc',
    chainId: 5042,
    name: 'Arc',
    testnet: false,
    portOffset: 1,
    tokens: ['USDC', 'USDT', 'EURC'],
    depositSymbols: ['USDC', 'EURC'],
    pairs: ALL_PAIRS,
    poolsPerMaker: 3,
    docked: 2,
    pilot: false,
  },
  {
    key: 'baseSepolia',
    chainId: 84532,
    name: 'Base Sepolia',
    testnet: true,
    portOffset: 2,
    tokens: ['USDC', 'USDT'],
    pairs: [['USDC', 'USDT']],
    poolsPerMaker: 2,
    docked: 1,
    pilot: true,
  },
];

const TOKEN_NAMES: Record<string, string> = { USDC: 'USD Coin', USDT: 'Tether USD', EURC: 'Euro Coin' };
/** Tokens deployed with USDT's approval rule (an allowance that is not zero is only ever set to zero). */
const ZERO_FIRST_APPROVALS = new Set(['USDT']);

/**
 * Roles among anvil's ten unlocked default accounts (anvil signs; no key is held here). The protocol
 * fee receiver and the three pilot wallets are distinct accounts.
 */
export interface DevnetRoles {
  deployer: Address;
  makers: Address[];
  taker: Address;
  feeReceiver: Address;
  pilot: { maker: Address; taker: Address; feeWallet: Address };
}

export function rolesOf(accounts: readonly Address[]): DevnetRoles {
  if (accounts.length < 9) throw new Error(`anvil exposes ${accounts.length} accounts; the devnet needs 9`);
  const a = accounts.map((x) => getAddress(x));
  return {
    deployer: a[0]!,
    makers: [a[1]!, a[2]!, a[3]!],
    taker: a[4]!,
    feeReceiver: a[5]!,
    pilot: { maker: a[6]!, taker: a[7]!, feeWallet: a[8]! },
  };
}

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

const MAKER_MINT = units(50_000_000);
const TAKER_MINT = units(50_000_000);
const PILOT_MINT = units(1_000_000);
const PILOT_DEPTH = units(100_000);

const GAS = {
  deploy: 3_000_000n,
  mint: 150_000n,
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
export async function seedChain(spec: DevnetChainSpec, rpcUrl: string): Promise<SeededChain> {
  const rpc = devnetRpc(rpcUrl);
  const accounts = (await rpc.request({ method: 'eth_accounts' })) as Address[];
  const roles = rolesOf(accounts);
  const random = seededRandom(spec.chainId);
  let saltCounter = BigInt(spec.chainId) << 32n;
  const nextSalt = () => ++saltCounter;
  const counts = { shipped: 0, docked: 0, swaps: 0, transactions: 0 };

  // Round 1: the deployer deploys everything and mints, nonces in sequence.
  const deployer = await PipelinedWallet.open(rpc, roles.deployer);
  const nextAddress = () => getContractAddress({ from: deployer.address, nonce: BigInt(deployer.nextNonce) });
  const tokens: Record<string, Address> = {};
  for (const symbol of spec.tokens) {
    tokens[symbol] = nextAddress();
    deployer.send({
      data: encodeDeployData({
        abi: artifacts.TestToken.abi,
        bytecode: artifacts.TestToken.bytecode,
        args: [TOKEN_NAMES[symbol] ?? symbol, symbol, ZERO_FIRST_APPROVALS.has(symbol)],
      }),
      gas: GAS.deploy,
    });
  }
  const aqua = nextAddress();
  deployer.send({ data: artifacts.Aqua.bytecode, gas: GAS.deploy });
  const router = nextAddress();
  deployer.send({
    data: encodeDeployData({
      abi: artifacts.AquaSwapVMRouter.abi,
      bytecode: artifacts.AquaSwapVMRouter.bytecode,
      args: [aqua],
    }),
    gas: GAS.deploy,
  });
  const multicall = nextAddress();
  deployer.send({ data: artifacts.Multicall3.bytecode, gas: GAS.deploy });

  const pilotSymbols = ['USDC', 'USDT'] as const;
  const mints: [Address, string, bigint][] = [];
  for (const maker of roles.makers) for (const s of spec.tokens) mints.push([maker, s, MAKER_MINT]);
  for (const s of spec.tokens) mints.push([roles.taker, s, TAKER_MINT]);
  if (spec.pilot) {
    for (const s of pilotSymbols) {
      mints.push([roles.pilot.maker, s, PILOT_MINT]);
      mints.push([roles.pilot.taker, s, PILOT_MINT]);
    }
  }
  for (const [to, symbol, amount] of mints) {
    deployer.send({
      to: tokens[symbol]!,
      data: encodeFunctionData({ abi: erc20Abi, functionName: 'mint', args: [to, amount] }),
      gas: GAS.mint,
    });
  }
  const deployed = await deployer.settle();
  counts.transactions += deployed.length;

  // Round 2: approvals (makers → Aqua, takers → router) and ships, every account in parallel.
  const makers = await Promise.all(roles.makers.map((m) => PipelinedWallet.open(rpc, m)));
  const taker = await PipelinedWallet.open(rpc, roles.taker);
  const seeded: LiveStrategy[] = [];
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
    for (const s of pilotSymbols) {
      pilotMaker.send({ to: tokens[s]!, data: approveCalldata(aqua, maxUint256), gas: GAS.approve });
      pilotTaker.send({ to: tokens[s]!, data: approveCalldata(router, maxUint256), gas: GAS.approve });
    }
    pilotStrategy = buildStrategy({
      maker: pilotMaker.address,
      symbols: pilotSymbols,
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
  counts.transactions += (await Promise.all(wallets.map((w) => w.settle()))).flat().length;
  counts.shipped = seeded.length + (pilotStrategy ? 1 : 0);

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
  if (pilotStrategy && pilotTaker) {
    swap(pilotTaker, pilotStrategy, 0, units(250));
    swap(pilotTaker, pilotStrategy, 1, units(120));
  }
  counts.transactions += (await Promise.all([taker.settle(), pilotTaker?.settle() ?? []])).flat().length;

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

  const live = seeded.filter((s) => !toDock.has(s));
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
    })),
    startBlock: 0,
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
