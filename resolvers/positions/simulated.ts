/** `simulate` on a position's prepared answers: what their bundle watches, and the answer with it. */
import { getAddress } from 'viem';
import type { ChainConfig, TokenConfig } from '../../lib/config.js';
import { type BundleWatch, type Simulated, simulateTransactions } from '../bundleSimulation.js';
import type { GraphQLContext } from '../context.js';
import type { PositionAction } from './actions.js';
import type { PreparedPayload, PreparedPosition } from './types.js';

/** A position's steps move its two tokens and the wallet's allowances to Aqua. */
export function positionWatch(
  chain: ChainConfig,
  tokens: readonly { address: string; symbol: string | null }[],
): BundleWatch {
  return { tokens, spenders: [{ address: getAddress(chain.aqua), name: 'Aqua' }] };
}

export function simulatePayload(
  ctx: GraphQLContext,
  chain: ChainConfig,
  payload: Pick<PreparedPayload, 'wallet' | 'transactions' | 'position'>,
): Promise<Simulated> {
  const { tokenA, tokenB } = payload.position;
  return simulateTransactions(ctx, {
    chain,
    wallet: payload.wallet,
    transactions: payload.transactions,
    watch: positionWatch(chain, [tokenA, tokenB]),
  });
}

/** A position action's answer (approvals, dock) with its bundle simulated when asked. */
export async function simulatedAction(
  ctx: GraphQLContext,
  chain: ChainConfig,
  tokens: readonly TokenConfig[],
  action: PositionAction,
  simulate: boolean,
): Promise<PositionAction> {
  if (!simulate) return action;
  const { preflight, simulation } = await simulateTransactions(ctx, {
    chain,
    wallet: action.wallet,
    transactions: action.transactions,
    // A token the chain does not list is named by its address alone.
    watch: positionWatch(
      chain,
      tokens.map((t) => ({ address: t.address, symbol: t.symbol === t.address ? null : t.symbol })),
    ),
  });
  return { ...action, preflight, simulation };
}

/** The answer with the simulation beside its stored checks (the stored payload is never changed). */
export function withSimulated(prepared: PreparedPosition, simulated: Simulated | null): PreparedPosition {
  if (!simulated) return prepared;
  return {
    ...prepared,
    preflight: { ...prepared.preflight, ...simulated.preflight },
    simulation: simulated.simulation,
  };
}

/** A stored answer (a replay) simulated as it stands now, when asked. */
export async function simulatedReplay(
  ctx: GraphQLContext,
  chain: ChainConfig,
  prepared: PreparedPosition,
  simulate: boolean | null | undefined,
): Promise<PreparedPosition> {
  return simulate ? withSimulated(prepared, await simulatePayload(ctx, chain, prepared)) : prepared;
}
