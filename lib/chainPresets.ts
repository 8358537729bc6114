/**
 * Known deployments per chain key, so a chains file entry may be only `{ "key": "base", "rpcUrls": [...] }`.
 * Every field here can be overridden by the entry. Sources: Aqua and router as 1inch publishes them
 * (the same addresses on every chain where 1inch deployed them), chain ids and Multicall3 as viem's
 * chain definitions give them (VIEM_CHAIN_FACTS; test/unit/presets.test.ts checks them against
 * viem/chains), tokens from their issuers' lists (Circle for USDC, the Superchain token list for Base's USDT).
 *
 * What is not known for sure is left out, never guessed: no Aqua deployment block (the indexer then
 * starts from block 0 unless `startBlock` is given), no USDT on Arc or Base Sepolia, no EURC, and no
 * protocol fee receiver (an operator's choice, not a chain fact: the entry must give `feeReceiver`).
 */

export interface PresetToken {
  symbol: string;
  address: string;
  decimals: number;
  /** Fixed USD price: the dollar stablecoins' peg. A token without one is priced only by the chains file. */
  usd?: number;
}

export interface ChainPreset {
  chainId: number;
  name: string;
  aqua: string;
  router: string;
  multicall: string;
  testnet: boolean;
  tokens: PresetToken[];
  /** Symbols POST /v1/positions accepts (SPEC §2.4), when fewer than the tokens listed. */
  depositSymbols?: string[];
}

/** PROTOCOL.md: Aqua (AquaRouter) and AquaSwapVMRouter, deployed at the same address on every chain. */
export const DEPLOYED_AQUA = '0x1111113ccf1426a8e30e2bff5e005d929bf6a90a';
export const DEPLOYED_ROUTER = '0x111111338c5091e8440b67b168bae16a668ac0de';

/**
 * The chain id and Multicall3 address of each preset chain, as viem's definitions (`viem/chains`) have
 * them. Written here instead of imported: importing `viem/chains` for three of its chains loads all of
 * its ~700 definitions, about 23 MB of the service's resident memory.
 */
export const VIEM_CHAIN_FACTS = {
  base: { id: 8453, multicall3: '0xca11bde05977b3631167028862be2a173976ca11' },
  arc: { id: 5042, multicall3: '0xcA11bde05977b3631167028862bE2a173976CA11' },
  baseSepolia: { id: 84532, multicall3: '0xca11bde05977b3631167028862be2a173976ca11' },
} as const;
const { base, arc, baseSepolia } = VIEM_CHAIN_FACTS;

export const CHAIN_PRESETS: Readonly<Record<string, ChainPreset>> = {
  base: {
    chainId: base.id,
    name: 'Base',
    aqua: DEPLOYED_AQUA,
    router: DEPLOYED_ROUTER,
    multicall: base.multicall3,
    testnet: false,
    tokens: [
      { symbol: 'USDC', address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', decimals: 6, usd: 1 },
      { symbol: 'USDT', address: '0xfde4C96c8593536E31F229EA8f37b2ADa2699bb2', decimals: 6, usd: 1 },
    ],
  },
  arc: {
    chainId: arc.id,
    name: 'Arc',
    aqua: DEPLOYED_AQUA,
    router: DEPLOYED_ROUTER,
    multicall: arc.multicall3,
    testnet: false,
    // Arc's USDC ERC-20 interface over the native balance (6 decimals; the native unit has 18).
    tokens: [{ symbol: 'USDC', address: '0x3600000000000000000000000000000000000000', decimals: 6, usd: 1 }],
    depositSymbols: ['USDC', 'EURC'],
  },
  baseSepolia: {
    chainId: baseSepolia.id,
    name: 'Base Sepolia',
    aqua: DEPLOYED_AQUA,
    router: DEPLOYED_ROUTER,
    multicall: baseSepolia.multicall3,
    testnet: true,
    tokens: [{ symbol: 'USDC', address: '0x036CbD53842c5426634e7929541eC2318f3dCF7e', decimals: 6, usd: 1 }],
  },
};

export function presetOf(key: string): ChainPreset | undefined {
  return Object.hasOwn(CHAIN_PRESETS, key) ? CHAIN_PRESETS[key] : undefined;
}
