/**
 * EIP-55 checksummed addresses for the paths that shape many rows at once (lists, exports, webhook
 * payloads): viem's `getAddress` hashes with its pure-JavaScript keccak, and an export of 100,000
 * positions of distinct wallets spent a third of its CPU there (its LRU of 8,192 misses every time).
 * Same result as `getAddress` for a well-formed address; the hash is chain/keccak.ts's WebAssembly one.
 */
import { createKeccak } from 'hash-wasm';
import { getAddress } from 'viem';

const hasher = await createKeccak(256);
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** Addresses kept once checksummed; the whole map is dropped when full (cheaper than an LRU's bookkeeping). */
const KEPT = 10_000;
const kept = new Map<string, string>();

/** The EIP-55 form of `address` (any case); anything but 20 bytes of hex is refused as `getAddress` does. */
export function checksummed(address: string): string {
  const known = kept.get(address);
  if (known !== undefined) return known;
  if (!ADDRESS.test(address)) return getAddress(address);
  const lower = address.slice(2).toLowerCase();
  hasher.init();
  hasher.update(lower);
  const hash = hasher.digest('hex');
  let out = '0x';
  for (let i = 0; i < 40; i++) {
    const c = lower[i]!;
    out += c > '9' && Number.parseInt(hash[i]!, 16) >= 8 ? c.toUpperCase() : c;
  }
  if (kept.size >= KEPT) kept.clear();
  kept.set(address, out);
  return out;
}
