import { getAddress } from 'viem';
import { describe, expect, it } from 'vitest';
import { checksummed } from '../../chain/checksum.js';

describe('checksummed', () => {
  it('agrees with viem getAddress on random addresses in any case, and on a cached one', () => {
    for (let i = 0; i < 2000; i++) {
      const hex = Array.from({ length: 40 }, () => '0123456789abcdef'[Math.floor(Math.random() * 16)]).join(
        '',
      );
      const lower = `0x${hex}`;
      expect(checksummed(lower)).toBe(getAddress(lower));
      expect(checksummed(lower.toUpperCase().replace('0X', '0x'))).toBe(getAddress(lower));
      expect(checksummed(lower)).toBe(getAddress(lower));
    }
  });

  it('refuses what is not an address, as getAddress does', () => {
    expect(() => checksummed('0x1234')).toThrow();
    expect(() => checksummed('0xzz00000000000000000000000000000000000000')).toThrow();
  });
});
