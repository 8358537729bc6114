/**
 * The position a rebalance replaces: its dock step (the one description of a dock, also the dock
 * path's), and the check that it can still be docked, read in the new position's coverage round trip.
 */
import { type Address, getAddress, type Hex } from 'viem';
import { dockCalldata } from '../../chain/calldata.js';
import type { Coverage } from '../../domain/coverage.js';
import type { ChainConfig } from '../../lib/config.js';
import { ApiError } from '../../lib/errors.js';
import type { StepSink } from './approvals.js';

export interface Replacing {
  hash: string;
  /** The app it was shipped to, and its tokens exactly as shipped (any other list cannot dock it). */
  app: Address;
  tokens: Address[];
}

export function notDockable(hash: string, why: string, verb = 'docked'): ApiError {
  return new ApiError('UNPROCESSABLE', `Position ${hash} cannot be ${verb}: ${why}`, {
    issues: [{ type: 'POSITION_NOT_ACTIVE', expected: 'shipped', actual: why }],
  });
}

export function dockStep(step: StepSink, chain: ChainConfig, position: Replacing): void {
  step(
    'dock',
    getAddress(chain.aqua),
    dockCalldata({ app: position.app, strategyHash: position.hash as Hex, tokens: position.tokens }),
    `Dock (close) the position ${position.hash} in Aqua on ${chain.name ?? chain.key}: its virtual balances go to zero and ` +
      'no taker can trade against it any more. No tokens move (they never left the wallet), and the same ' +
      'strategy can never be shipped again; approvals stay as they are.',
  );
}

/** Aqua's state of the replaced position, read live: it must still be active to be docked first. */
export function assertReplaceable(hash: string, state: Coverage['ownState']): void {
  if (state === 'docked') throw notDockable(hash, 'it is already docked on chain.', 'rebalanced');
  if (state !== 'active') throw notDockable(hash, 'it is not active on chain.', 'rebalanced');
}
