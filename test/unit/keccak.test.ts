import { bytesToHex, keccak256 as viemKeccak256 } from 'viem';
import { describe, expect, it } from 'vitest';
import { keccak256 } from '../../chain/keccak.js';
import { seededRandom } from '../../devnet/strategies.js';
import { seeds } from '../helpers/seeds.js';

/** `size` bytes drawn from `random`: the inputs a seed names, so a failure replays (TEST_SEED). */
const bytesOf = (random: () => number, size: number) =>
  Uint8Array.from({ length: size }, () => Math.floor(random() * 256));

describe('keccak256 (hash-wasm)', () => {
  it.each(seeds())(
    'gives the digest viem gives, around every block boundary (136 bytes) and at a strategy size (seed %i)',
    (seed) => {
      const random = seededRandom(seed);
      const sizes = [0, 1, 31, 32, 135, 136, 137, 271, 272, 273, 704, 4096];
      for (const size of sizes) {
        const bytes = bytesOf(random, size);
        const hex = bytesToHex(bytes);
        expect(keccak256(hex), `${size} bytes as hex`).toBe(viemKeccak256(hex));
        expect(keccak256(bytes), `${size} bytes as a byte array`).toBe(viemKeccak256(bytes));
      }
    },
  );

  it.each(seeds())('hashes upper-case hex as the same bytes (seed %i)', (seed) => {
    const hex = bytesToHex(bytesOf(seededRandom(seed), 64));
    expect(keccak256(hex.toUpperCase().replace('0X', '0x') as `0x${string}`)).toBe(viemKeccak256(hex));
  });

  it.each(seeds())('keeps no state between two hashes (one hasher serves the process; seed %i)', (seed) => {
    const random = seededRandom(seed);
    const a = bytesToHex(bytesOf(random, 200));
    const b = bytesToHex(bytesOf(random, 10));
    const first = keccak256(a);
    keccak256(b);
    expect(keccak256(a)).toBe(first);
  });

  it('refuses what is not whole bytes of hex instead of hashing a prefix of it', () => {
    for (const bad of ['0xabc', '0xzz', 'abcd', '0x12 34', '0x1234g0']) {
      expect(() => keccak256(bad as `0x${string}`), bad).toThrow(/not hex bytes/);
    }
  });
});
