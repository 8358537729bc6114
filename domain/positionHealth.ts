/**
 * Health of a shipped position: why is my position not filling. Live allowance (to Aqua)
 * and balance of the wallet for both tokens against what its strategies need (coverage.ts):
 *   - `stalled`: for a token, the wallet covers less than THIS strategy's own virtual balance of it, so a
 *     swap that draws on the uncovered part reverts now (`SafeTransferFromFailed`), although a quote
 *     succeeds; with nothing approved at all, every swap that pays out that token reverts;
 *   - `at_risk`: this strategy is covered, but not the sum over all the wallet's active strategies: the
 *     fills of the others use up the same allowance and balance, after which this one stalls;
 *   - `ok`: allowance and balance reach the sum for both tokens.
 * `issues[]` name each shortfall in the SPEC §7 item shape (expected: the sum needed; actual: found).
 */
import { type Address, getAddress } from 'viem';
import type { ChainConfig, TokenConfig } from '../lib/config.js';
import type { PositionStatusRow } from '../store/positions.js';
import { type Coverage, readCoverage, type TokenCoverage } from './coverage.js';
import type { ReadContext } from './readContext.js';

export type HealthStatus = 'ok' | 'at_risk' | 'stalled';

export interface HealthIssue {
  type: 'INSUFFICIENT_ALLOWANCE' | 'INSUFFICIENT_BALANCE';
  expected: string;
  actual: string;
  /** Aqua for an allowance; null for a balance. */
  spender: string | null;
  token: string;
}

export interface HealthToken {
  address: string;
  symbol: string | null;
  allowance: string;
  balance: string;
  /** Sum of the token's live virtual balances over the wallet's active strategies. */
  required: string;
  /** This position's own live virtual balance of the token. */
  requiredByPosition: string;
}

export interface PositionHealth {
  status: HealthStatus;
  spender: string;
  /** Active strategies of the wallet on this chain that hold one of the two tokens. */
  strategies: number;
  tokens: HealthToken[];
  issues: HealthIssue[];
}

/** The two tokens of a position: the registry's, or the address with unknown symbol (decimals 0). */
export function positionTokens(chain: ChainConfig, ctx: ReadContext, row: PositionStatusRow): TokenConfig[] {
  return [row.token_a, row.token_b].map(
    (address) =>
      ctx.services.registry.tokenByAddress(chain.key, address) ?? { symbol: address, address, decimals: 0 },
  );
}

const covered = (t: TokenCoverage, need: bigint) => t.allowance >= need && (t.balance ?? 0n) >= need;

export function healthOf(coverage: Coverage, aqua: Address): PositionHealth {
  const stalled = coverage.tokens.some((t) => !covered(t, t.own));
  const atRisk = coverage.tokens.some((t) => !covered(t, t.committed));
  const issues: HealthIssue[] = [];
  for (const t of coverage.tokens) {
    const token = getAddress(t.token.address);
    if (t.allowance < t.committed) {
      issues.push({
        type: 'INSUFFICIENT_ALLOWANCE',
        expected: t.committed.toString(),
        actual: t.allowance.toString(),
        spender: aqua,
        token,
      });
    }
    const balance = t.balance ?? 0n;
    if (balance < t.committed) {
      issues.push({
        type: 'INSUFFICIENT_BALANCE',
        expected: t.committed.toString(),
        actual: balance.toString(),
        spender: null,
        token,
      });
    }
  }
  return {
    status: stalled ? 'stalled' : atRisk ? 'at_risk' : 'ok',
    spender: aqua,
    strategies: coverage.strategies,
    tokens: coverage.tokens.map((t) => ({
      address: getAddress(t.token.address),
      symbol: t.token.symbol.startsWith('0x') ? null : t.token.symbol,
      allowance: t.allowance.toString(),
      balance: (t.balance ?? 0n).toString(),
      required: t.committed.toString(),
      requiredByPosition: t.own.toString(),
    })),
    issues,
  };
}

/** Health of an observed, active position: one multicall round trip. Null when the chain says docked. */
export async function positionHealth(
  ctx: ReadContext,
  chain: ChainConfig,
  row: PositionStatusRow,
): Promise<PositionHealth | null> {
  const coverage = await readCoverage(ctx, {
    chain,
    wallet: getAddress(row.wallet),
    tokens: positionTokens(chain, ctx, row),
    balances: true,
    own: { hash: row.strategy_hash, app: row.app ?? chain.router },
  });
  if (coverage.ownState === 'docked') return null;
  return healthOf(coverage, getAddress(chain.aqua));
}
