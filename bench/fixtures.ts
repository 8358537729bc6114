/** Data the read benches serve, the same in each so their bodies compare (bench:extras, bench:reads). */
import type { ChainConfig } from '../lib/config.js';
import type { CatalogueRollup } from '../store/rollups.js';

/** A roll-up of a busy catalogue's size (3 chains, 10 pairs): a stats body over the 1 KiB threshold. */
export function busyCatalogueRollup(): CatalogueRollup {
  const now = new Date().toISOString();
  const chains = [
    ['base', 8453],
    ['arc', 5042],
    ['baseSepolia', 84532],
  ] as const;
  const symbols = ['USDC', 'USDT', 'EURC', 'DAI', 'WETH'];
  const pairs = symbols.flatMap((a, i) => symbols.slice(i + 1).map((b) => [a, b].sort().join('/')));
  const volume = { volume_1d_usd: 1_234_567.89, volume_7d_usd: 8_765_432.1, volume_30d_usd: 34_567_890.12 };
  return {
    totals: {
      strategies: 999_999,
      makers: 100_000,
      pairs: pairs.length,
      chains: 3,
      ...volume,
      last_activity: now,
    },
    chains: chains.map(([chain, chainId], i) => ({
      chain,
      chain_id: chainId,
      count: 333_333 + i,
      makers: 40_000 + i,
      pairs: pairs.length,
      swaps_30d: 3_000_000 + i,
      ...volume,
      last_activity: now,
    })),
    pairs: pairs.map((pair, i) => ({
      pair,
      count: 80_000 - i * 1000,
      chains: chains.map(([c]) => c),
      ...volume,
      last_activity: now,
    })),
  };
}

/** The pairs every chain of a generated catalogue holds (bench/generate.ts over the fixture tokens). */
export const GENERATED_PAIRS = [
  ['USDC', 'USDT'],
  ['EURC', 'USDC'],
  ['EURC', 'USDT'],
] as const;

/** The filtered list's paths over every (chain, pair) of a generated catalogue, each pair in both spellings. */
export function generatedListPaths(chains: readonly ChainConfig[]): string[] {
  return chains.flatMap((chain) =>
    GENERATED_PAIRS.flatMap((symbols) =>
      [symbols.join('/'), [...symbols].reverse().join('/')].map(
        (pair) => `/api/strategies?pair=${encodeURIComponent(pair)}&chain=${chain.key}`,
      ),
    ),
  );
}
