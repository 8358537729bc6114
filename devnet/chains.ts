import { type Address, getAddress } from 'viem';

/**
 * The devnet's chains as it defines them (DEVNET_CHAINS: tokens, pairs, pools, the pilot) and the
 * roles it gives anvil's unlocked accounts. Deployed by devnet/deploy.ts, seeded by devnet/seed.ts.
 */

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
  /** A pair the first maker also ships the showcase programs on (devnet/strategies.ts); never traded. */
  showcase?: readonly [string, string];
}

/**
 * The USD prices of the devnet's tokens, what it sizes its pools with and what its manifest prices them
 * at: USDC and USDT at their peg (a fixed `usd`, as the presets give them), EURC through a price feed the
 * devnet deploys (DEVNET_FEED_SYMBOLS: `usdFeed`, read as a Chainlink feed is, so a test can move it).
 */
export const DEVNET_USD_PRICES: Readonly<Record<string, number>> = { USDC: 1, USDT: 1, EURC: 1.08 };
export const DEVNET_FEED_SYMBOLS: ReadonlySet<string> = new Set(['EURC']);

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
    showcase: ['USDC', 'EURC'],
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

/** The tokens of the pilot's wallets and strategy (test network only). */
export const PILOT_SYMBOLS = ['USDC', 'USDT'] as const;

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
