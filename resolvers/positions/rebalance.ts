/**
 * POST /v1/positions/{positionId}/rebalance. A strategy is immutable on Aqua: moving a position is a dock
 * of the old strategy and a ship of a new one. One bundle, in that order: the dock, the approvals the
 * new position needs once the old one no longer holds balances, and the ship; the new position records
 * the one it replaces. The intent is the body of POST /v1/positions, on the old position's chain and
 * wallet.
 */
import { getAddress } from 'viem';
import { observedState } from '../../domain/positions.js';
import { ApiError } from '../../lib/errors.js';
import type { GraphQLContext } from '../context.js';
import { positionOfKey } from './access.js';
import { preparePosition } from './prepare.js';
import { notDockable } from './replacing.js';
import type { PreparedPosition, PreparePositionInput } from './types.js';

const mismatch = (parameter: string, expected: string, actual: string) =>
  new ApiError(
    'UNPROCESSABLE',
    `${parameter}: a rebalance stays on the ${parameter} of the position it replaces (${expected}); open a position elsewhere with POST /v1/positions.`,
    { parameter, issues: [{ type: 'REBALANCE_MISMATCH', expected, actual }] },
  );

export async function rebalancePosition(
  ctx: GraphQLContext,
  positionId: string,
  input: PreparePositionInput,
): Promise<PreparedPosition> {
  const row = await positionOfKey(ctx, positionId);
  const hash = row.strategy_hash;
  const state = observedState(row);
  if (state === 'prepared')
    throw notDockable(hash, 'it has not been seen on chain yet (not shipped).', 'rebalanced');
  if (state === 'docked') throw notDockable(hash, 'it is already docked.', 'rebalanced');
  if (input.chain.toLowerCase() !== row.chain_key.toLowerCase())
    throw mismatch('chain', row.chain_key, input.chain);
  if (input.wallet.toLowerCase() !== row.wallet.toLowerCase()) {
    throw mismatch('wallet', getAddress(row.wallet), input.wallet);
  }
  const chain = ctx.services.registry.require(row.chain_key, 'chain');
  return preparePosition(ctx, input, {
    hash,
    app: getAddress(row.app ?? chain.router),
    tokens: (row.shipped_tokens ?? []).map((t) => getAddress(t.address)),
  });
}
