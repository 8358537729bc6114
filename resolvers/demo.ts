import { type Abi, type Address, getAddress } from 'viem';
import { erc20Abi, multicall3Abi } from '../chain/abi.js';
import { classifyRpcError } from '../chain/clients.js';
import type { ChainRegistry } from '../chain/registry.js';
import type { ChainConfig, TokenConfig } from '../lib/config.js';
import { ApiError } from '../lib/errors.js';
import type { Services } from '../lib/services.js';
import type { Loaders } from '../loaders/index.js';

/**
 * What the two demo helpers of SPEC §4.7 and §4.8 (the pilot, resolvers/pilot.ts, and the balances
 * look-up, resolvers/balances.ts) share: their test network, the demo tokens, amounts in base units, the
 * balance reads of one account and the mapping of an RPC fault.
 */

/** The tokens the demo reads balances of, when the test network lists them. */
const DEMO_SYMBOLS = ['USDC', 'USDT'] as const;

/** An amount of a token (or of the native currency: `address` null), in base units. */
export interface TokenAmount {
  symbol: string;
  address: string | null;
  decimals: number | null;
  amount: string;
}

/** The test network of the pilot: a testnet chain with `pilot` configured. */
export function pilotChain(
  registry: ChainRegistry,
): ChainConfig & { pilot: NonNullable<ChainConfig['pilot']> } {
  const chain = registry.list().find((c) => c.testnet && c.pilot);
  if (!chain?.pilot) {
    throw new ApiError('UPSTREAM_UNAVAILABLE', 'No test network with a pilot is configured on this service.');
  }
  return { ...chain, pilot: chain.pilot };
}

/** The test network of the balances look-up: the pilot's, else the first testnet chain. */
export function demoChain(registry: ChainRegistry): ChainConfig {
  const chains = registry.list().filter((c) => c.testnet);
  const chain = chains.find((c) => c.pilot) ?? chains[0];
  if (!chain) throw new ApiError('UPSTREAM_UNAVAILABLE', 'No test network is configured on this service.');
  return chain;
}

export function demoTokens(chain: ChainConfig, registry: ChainRegistry): TokenConfig[] {
  return DEMO_SYMBOLS.map((s) => registry.token(chain.key, s)).filter(
    (t): t is TokenConfig => t !== undefined,
  );
}

export function tokenAmount(token: TokenConfig, amount: bigint): TokenAmount {
  return {
    symbol: token.symbol,
    address: getAddress(token.address),
    decimals: token.decimals,
    amount: amount.toString(),
  };
}

export function nativeAmount(services: Services, chain: ChainConfig, amount: bigint): TokenAmount {
  const native = services.clients.chain(chain.key).nativeCurrency;
  return { symbol: native.symbol, address: null, decimals: native.decimals, amount: amount.toString() };
}

/** An RPC fault as the service's error; a revert inside a batch is the test network misbehaving. */
export function upstream(error: unknown, chainKey: string): ApiError {
  return (
    classifyRpcError(error, chainKey) ??
    new ApiError('UPSTREAM_UNAVAILABLE', `A contract of chain "${chainKey}" did not answer as expected.`, {
      cause: error,
    })
  );
}

/** The calls of one account: native (Multicall3 getEthBalance) and each token's balanceOf. */
export function accountReads(loaders: Loaders, chain: ChainConfig, tokens: TokenConfig[], owner: Address) {
  const read = (address: string, abi: Abi, functionName: string, args: readonly unknown[]) =>
    loaders.multicall.load({
      chain: chain.key,
      address: address as Address,
      abi,
      functionName,
      args,
    }) as Promise<bigint>;
  return {
    native: read(chain.multicall, multicall3Abi, 'getEthBalance', [owner]),
    tokens: tokens.map((t) => read(t.address, erc20Abi, 'balanceOf', [owner])),
  };
}
