/**
 * The preset chains' ids and Multicall3 addresses are written in chain/presets.ts (importing viem/chains
 * would load all of its definitions into the service): they must stay what viem's definitions say.
 */
import { arc, base, baseSepolia } from 'viem/chains';
import { describe, expect, it } from 'vitest';
import { CHAIN_PRESETS, VIEM_CHAIN_FACTS } from '../../lib/chainPresets.js';

describe('chain presets', () => {
  it.each([
    ['base', base],
    ['arc', arc],
    ['baseSepolia', baseSepolia],
  ] as const)('%s: the chain id and Multicall3 of viem/chains', (key, chain) => {
    expect(VIEM_CHAIN_FACTS[key]).toEqual({ id: chain.id, multicall3: chain.contracts.multicall3.address });
    expect(CHAIN_PRESETS[key]).toMatchObject({
      chainId: chain.id,
      multicall: chain.contracts.multicall3.address,
    });
  });
});
