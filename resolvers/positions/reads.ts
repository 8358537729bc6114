/** The live reads of a prepare: allowances to Aqua (and balances) of both tokens, one multicall. */
import { type Abi, type Address, formatUnits } from 'viem';
import { erc20Abi } from '../../chain/abi.js';
import { classifyRpcError } from '../../chain/clients.js';
import type { ChainConfig, TokenConfig } from '../../lib/config.js';
import { ApiError } from '../../lib/errors.js';
import type { GraphQLContext } from '../../schema/context.js';

/** One token of a new position with what the chain says of the wallet for it. */
export interface Side {
  token: TokenConfig;
  amount: bigint;
  allowance: bigint;
  balance: bigint | undefined;
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
  ctx: GraphQLContext,
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

/** Allowances (and balances) of both tokens: one multicall, one RPC round trip. */
export async function readSides(
  ctx: GraphQLContext,
  params: {
    chain: ChainConfig;
    wallet: Address;
    aqua: Address;
    tokens: readonly [TokenConfig, TokenConfig];
    amounts: readonly [bigint, bigint];
    checkBalances: boolean;
  },
): Promise<[Side, Side]> {
  const { chain, wallet, aqua, tokens, amounts } = params;
  try {
    const reads = tokens.map((t) => erc20Read(ctx, chain, t, 'allowance', [wallet, aqua]));
    if (params.checkBalances)
      reads.push(...tokens.map((t) => erc20Read(ctx, chain, t, 'balanceOf', [wallet])));
    const values = await Promise.all(reads);
    const side = (i: 0 | 1): Side => ({
      token: tokens[i],
      amount: amounts[i],
      allowance: values[i]!,
      balance: params.checkBalances ? values[2 + i] : undefined,
      suffix: i === 0 ? 'a' : 'b',
    });
    return [side(0), side(1)];
  } catch (error) {
    throw upstream(error, chain.key);
  }
}
