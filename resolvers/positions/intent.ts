/** The intent of POST /v1/positions checked and resolved: wallet, amounts, key environment, tokens. */
import { getAddress } from 'viem';
import type { ChainConfig, TokenConfig } from '../../lib/config.js';
import { ApiError, type ErrorIssue } from '../../lib/errors.js';
import type { GraphQLContext } from '../context.js';
import { parsePositionRequest } from './request.js';
import type { ApprovalMode, PreparePositionInput } from './types.js';

/**
 * The input checked by the one schema of its rules (request.ts), whoever calls: the REST route has
 * parsed it already (the same rules, so this passes), /graphql has not. GraphQL gives an absent
 * optional field as null, which the schema reads as absent.
 */
export function assertInput(input: PreparePositionInput): void {
  parsePositionRequest(
    Object.fromEntries(Object.entries(input).filter(([, value]) => value !== null && value !== undefined)),
  );
}

/** SPEC §5.5: a test key names only test networks, a live key only live ones. */
export function assertEnvironment(environment: 'test' | 'live', chain: ChainConfig): void {
  if (environment === 'test' && !chain.testnet) {
    throw new ApiError(
      'FORBIDDEN',
      `A test key may only prepare on test networks; "${chain.key}" is a live chain.`,
      {
        parameter: 'chain',
      },
    );
  }
  if (environment === 'live' && chain.testnet) {
    throw new ApiError(
      'FORBIDDEN',
      `A live key may not prepare on the test network "${chain.key}"; use a test key.`,
      {
        parameter: 'chain',
      },
    );
  }
}

function resolveTokens(
  ctx: GraphQLContext,
  chain: ChainConfig,
  input: PreparePositionInput,
): [TokenConfig, TokenConfig] {
  const supported = ctx.services.registry
    .depositTokens(chain.key)
    .map((t) => t.symbol)
    .join(', ');
  const issues: ErrorIssue[] = [];
  const found: (TokenConfig | undefined)[] = input.deposits.map((d) =>
    ctx.services.registry.depositToken(chain.key, d.symbol),
  );
  found.forEach((token, i) => {
    if (!token)
      issues.push({ type: 'UNSUPPORTED_TOKEN', expected: supported, actual: input.deposits[i]!.symbol });
  });
  if (issues.length > 0) {
    const first = found.findIndex((t) => !t);
    throw new ApiError(
      'UNPROCESSABLE',
      `Token "${input.deposits[first]!.symbol}" is not supported on chain "${chain.key}". Supported: ${supported}.`,
      { parameter: `deposits[${first}].symbol`, issues },
    );
  }
  const [a, b] = found as [TokenConfig, TokenConfig];
  if (a.address.toLowerCase() === b.address.toLowerCase()) {
    throw ApiError.invalid(
      'deposits[1].symbol',
      'deposits[1].symbol: the two deposits must be different tokens.',
    );
  }
  return [a, b];
}

/** The intent with tokens resolved and sorted (tokenA: the lower address) and its defaults applied. */
export interface ResolvedIntent {
  chain: ChainConfig;
  wallet: `0x${string}`;
  tokenA: TokenConfig;
  tokenB: TokenConfig;
  amountA: bigint;
  amountB: bigint;
  /** The first deposit's token address, lower case (a price is of the second deposit in the first). */
  firstAddress: string;
  makerFeeBps: number;
  includeApprovals: boolean;
  checkBalances: boolean;
  metadata: Record<string, string> | null;
  approval: ApprovalMode;
}

export function resolveIntent(
  ctx: GraphQLContext,
  chain: ChainConfig,
  input: PreparePositionInput,
): ResolvedIntent {
  const [first, second] = resolveTokens(ctx, chain, input);
  const amounts = new Map([
    [first.address.toLowerCase(), BigInt(input.deposits[0]!.amount)],
    [second.address.toLowerCase(), BigInt(input.deposits[1]!.amount)],
  ]);
  const [tokenA, tokenB] =
    first.address.toLowerCase() < second.address.toLowerCase() ? [first, second] : [second, first];
  return {
    chain,
    wallet: getAddress(input.wallet),
    tokenA,
    tokenB,
    amountA: amounts.get(tokenA.address.toLowerCase())!,
    amountB: amounts.get(tokenB.address.toLowerCase())!,
    firstAddress: first.address.toLowerCase(),
    makerFeeBps: input.makerFeeBps ?? 0,
    includeApprovals: input.includeApprovals ?? true,
    checkBalances: input.checkBalances ?? false,
    metadata: input.metadata ?? null,
    approval: input.approval ?? 'exact',
  };
}
