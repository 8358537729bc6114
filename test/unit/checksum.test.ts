import fc from 'fast-check';
import { getAddress } from 'viem';
import { describe, expect, it } from 'vitest';
import { checksummed } from '../../chain/checksum.js';
import { seeds } from '../helpers/seeds.js';

describe('checksummed', () => {
  it.each(seeds())(
    'agrees with viem getAddress on addresses in any case, and on a cached one (seed %i)',
    (seed) => {
      fc.assert(
        fc.property(fc.uint8Array({ minLength: 20, maxLength: 20 }), (bytes) => {
          const lower = `0x${Buffer.from(bytes).toString('hex')}`;
          expect(checksummed(lower)).toBe(getAddress(lower));
          expect(checksummed(lower.toUpperCase().replace('0X', '0x'))).toBe(getAddress(lower));
          expect(checksummed(lower)).toBe(getAddress(lower));
        }),
        { seed, numRuns: 1000 },
      );
    },
  );

  it('refuses what is not an address, as getAddress does', () => {
    expect(() => checksummed('0x1234')).toThrow();
    expect(() => checksummed('0xzz00000000000000000000000000000000000000')).toThrow();
  });
});
