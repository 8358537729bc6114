import { type Address, getAddress, isAddress } from 'viem';
import { ApiError } from '../lib/errors.js';
import type { Services } from '../lib/services.js';
import type { Loaders } from '../loaders/index.js';
import {
  accountReads,
  demoChain,
  demoTokens,
  nativeAmount,
  type TokenAmount,
  tokenAmount,
  upstream,
} from './demo.js';

/**
 * The balances look-up of SPEC §4.8 (GET /api/balances, the `demoBalances` query): the address list's
 * validation and the native and demo-token balances of each address on the test network.
 */

export const MAX_BALANCE_ADDRESSES = 10;

export interface BalancesView {
  chain: string;
  chainId: number;
  name: string;
  accounts: { address: string; native: TokenAmount; tokens: TokenAmount[] }[];
}

/**
 * 1 to 10 addresses, each a valid EVM address (mixed case must carry a valid checksum); the culprit is
 * named as `addresses[i]` (0-based). Duplicates are allowed and read once; the result is checksummed.
 */
export function parseAddressList(list: readonly string[], parameter = 'addresses'): Address[] {
  if (list.length === 0 || list.length > MAX_BALANCE_ADDRESSES) {
    throw ApiError.invalid(
      parameter,
      `${parameter} takes 1 to ${MAX_BALANCE_ADDRESSES} comma-separated addresses; got ${list.length}.`,
    );
  }
  const seen = new Set<string>();
  const out: Address[] = [];
  list.forEach((raw, i) => {
    const value = raw.trim();
    if (!isAddress(value, { strict: true })) {
      const shown = value.length > 50 ? `${value.slice(0, 50)}…` : value;
      throw ApiError.invalid(
        `${parameter}[${i}]`,
        `${parameter}[${i}] (${JSON.stringify(shown)}) is not an EVM address: 0x and 40 hex characters, with a valid checksum when mixed-case.`,
      );
    }
    const address = getAddress(value);
    if (seen.has(address)) return;
    seen.add(address);
    out.push(address);
  });
  return out;
}

/** USDC, USDT and native balances of the addresses on the test network, in one multicall round trip. */
export async function readBalances(
  services: Services,
  loaders: Loaders,
  addresses: readonly string[],
): Promise<BalancesView> {
  const owners = parseAddressList(addresses);
  const chain = demoChain(services.registry);
  const tokens = demoTokens(chain, services.registry);
  const pending = owners.map((owner) => accountReads(loaders, chain, tokens, owner));
  try {
    const accounts = await Promise.all(
      owners.map(async (address, i) => {
        const reads = pending[i]!;
        const [native, ...balances] = await Promise.all([reads.native, ...reads.tokens]);
        return {
          address,
          native: nativeAmount(services, chain, native!),
          tokens: tokens.map((t, j) => tokenAmount(t, balances[j]!)),
        };
      }),
    );
    return { chain: chain.key, chainId: chain.chainId, name: chain.name ?? chain.key, accounts };
  } catch (error) {
    throw upstream(error, chain.key);
  }
}
