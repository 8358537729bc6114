/**
 * POST /v1/positions/{positionId}/approvals: the approve steps that restore the wallet's
 * coverage for the position's two tokens (coverage.ts), with the reset rule, or none when covered. A
 * position not yet seen on chain counts its prepared amounts (it will need them once shipped); a docked
 * one counts only the wallet's other open positions.
 */
import { getAddress, maxUint256 } from 'viem';
import { human } from '../../domain/chainReads.js';
import { readCoverage } from '../../domain/coverage.js';
import { positionTokens } from '../../domain/positionHealth.js';
import { observedState } from '../../domain/positions.js';
import type { GraphQLContext } from '../context.js';
import { positionOfKey } from './access.js';
import { actionOf, type PositionAction } from './actions.js';
import { approveSteps, stepList } from './approvals.js';
import { simulatedAction } from './simulated.js';
import type { ApprovalMode } from './types.js';

export async function preparePositionApprovals(
  ctx: GraphQLContext,
  positionId: string,
  approval: ApprovalMode,
  simulate = false,
): Promise<PositionAction> {
  const row = await positionOfKey(ctx, positionId);
  const chain = ctx.services.registry.require(row.chain_key, 'chain');
  const state = observedState(row);
  const wallet = getAddress(row.wallet);
  const aqua = getAddress(chain.aqua);
  const tokens = positionTokens(chain, ctx, row);
  const coverage = await readCoverage(ctx, {
    chain,
    wallet,
    tokens,
    balances: false,
    ...(state === 'docked' ? {} : { own: { hash: row.strategy_hash, app: row.app ?? chain.router } }),
  });
  const { transactions, step } = stepList();
  coverage.tokens.forEach((t, i) => {
    // Not on chain yet (tokensCount 0): the amounts it will ship with.
    const pending = coverage.ownState === 'unknown' ? BigInt(i === 0 ? row.amount_a : row.amount_b) : 0n;
    const needed = t.committed + pending;
    approveSteps(step, {
      token: t.token,
      spender: aqua,
      spenderName: 'Aqua',
      allowance: t.allowance,
      needed,
      target: approval === 'unlimited' ? maxUint256 : needed,
      why:
        `One allowance serves every open position of this wallet: together they hold ${human(needed, t.token)}, ` +
        'and each swap uses part of the allowance up. Tokens stay in the wallet; Aqua moves them only when a taker trades.',
    });
  });
  return simulatedAction(ctx, chain, tokens, actionOf(row, wallet, transactions), simulate);
}
