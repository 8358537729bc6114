/** What bench/backfill.ts gives bench/servers/chainStub.ts: the chain to serve. */
import type { Hex } from 'viem';

export interface StubManifest {
  chainId: number;
  aqua: string;
  router: string;
  tokens: [string, string];
  taker: string;
  /** Strategies in ship order: maker, hash, the shipped bytes. */
  strategies: { maker: string; hash: string; strategy: Hex }[];
  swapBlocks: number;
  swapsPerBlock: number;
  endAgeSeconds: number;
}

export const SHIPS_PER_BLOCK = 5;
