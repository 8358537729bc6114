/** Live ERC-20 reads through the request's multicall loader, and how their figures are shown. */
import { type Abi, type Address, formatUnits } from 'viem';
import { erc20Abi } from '../chain/abi.js';
import { classifyRpcError } from '../chain/clients.js';
import type { ChainConfig, TokenConfig } from '../lib/config.js';
import { ApiError } from '../lib/errors.js';
import type { ReadContext } from './readContext.js';

/** One token of a new position with what the chain says of the wallet for it. */
export interface Side {
  token: TokenConfig;
  amount: bigint;
  allowance: bigint;
  balance: bigint | undefined;
  /** What the wallet's active strategies already hold of the token (their live virtual balances). */
  committed: bigint;
  suffix: 'a' | 'b';
}

export function human(amount: bigint, token: TokenConfig): string {
  return `${formatUnits(amount, token.decimals)} ${token.symbol}`;
}

export function upstream(error: unknown, chainKey: string): ApiError {
  return (
    classifyRpcError(error, chainKey) ??
    new ApiError(
      'UPSTREAM_UNAVAILABLE',
      `A token contract of chain "${chainKey}" did not answer as expected.`,
      {
        cause: error,
      },
    )
  );
}

/** A view call of an ERC-20, batched by the request's multicall loader. */
export function erc20Read(
  ctx: ReadContext,
  chain: ChainConfig,
  token: TokenConfig,
  functionName: 'allowance' | 'balanceOf',
  args: readonly Address[],
): Promise<bigint> {
  return ctx.loaders.multicall.load({
    chain: chain.key,
    address: token.address as Address,
    abi: erc20Abi as Abi,
    functionName,
    args,
  }) as Promise<bigint>;
}
