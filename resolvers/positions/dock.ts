/**
 * POST /v1/positions/{positionId}/dock: the unsigned `dock(app, strategyHash, tokens)` of
 * a position of this key observed active, tokens exactly as shipped (PROTOCOL.md: any other list
 * reverts with DockingShouldCloseAllTokens). The catalogue may lag the chain by the indexer's poll, so
 * Aqua's tokensCount is read live (one RPC round trip): a dock already mined is a 422 too.
 */
import { type Abi, type Address, getAddress, type Hex } from 'viem';
import { aquaAbi } from '../../chain/abi.js';
import { DOCKED_TOKENS_COUNT } from '../../chain/simulate.js';
import { upstream } from '../../domain/chainReads.js';
import { positionTokens } from '../../domain/positionHealth.js';
import { observedState } from '../../domain/positions.js';
import type { GraphQLContext } from '../context.js';
import { positionOfKey } from './access.js';
import { actionOf, type PositionAction } from './actions.js';
import { stepList } from './approvals.js';
import { dockStep, notDockable } from './replacing.js';
import { simulatedAction } from './simulated.js';

const unprocessable = (hash: string, why: string) => notDockable(hash, why);

async function tokensCount(
  ctx: GraphQLContext,
  chainKey: string,
  args: readonly [Address, Address, Hex, Address],
) {
  const chain = ctx.services.registry.require(chainKey, 'chain');
  try {
    const [, count] = (await ctx.loaders.multicall.load({
      chain: chain.key,
      address: chain.aqua as Address,
      abi: aquaAbi as Abi,
      functionName: 'rawBalances',
      args,
    })) as readonly [bigint, number];
    return count;
  } catch (error) {
    throw upstream(error, chain.key);
  }
}

export async function preparePositionDock(
  ctx: GraphQLContext,
  positionId: string,
  simulate = false,
): Promise<PositionAction> {
  const row = await positionOfKey(ctx, positionId);
  const hash = row.strategy_hash;
  const state = observedState(row);
  if (state === 'prepared') throw unprocessable(hash, 'it has not been seen on chain yet (not shipped).');
  if (state === 'docked') throw unprocessable(hash, 'it is already docked.');
  const chain = ctx.services.registry.require(row.chain_key, 'chain');
  const tokens = (row.shipped_tokens ?? []).map((t) => getAddress(t.address));
  const app = getAddress(row.app ?? chain.router);
  const wallet = getAddress(row.wallet);
  const count = await tokensCount(ctx, chain.key, [
    wallet,
    app,
    hash as Hex,
    tokens[0] ?? getAddress(row.token_a),
  ]);
  if (count === DOCKED_TOKENS_COUNT) throw unprocessable(hash, 'it is already docked on chain.');
  if (count === 0) throw unprocessable(hash, `it is not active on chain for app ${app}.`);
  const { transactions, step } = stepList();
  dockStep(step, chain, { hash, app, tokens });
  return simulatedAction(
    ctx,
    chain,
    positionTokens(chain, ctx, row),
    actionOf(row, wallet, transactions),
    simulate,
  );
}
