/** The live chains: the registry's configuration with the store's counts and checkpoints. */
import type { ChainConfig } from '../../lib/config.js';
import { isApiError } from '../../lib/errors.js';
import { type CheckpointRow, readCheckpoints } from '../../store/catalogue.js';
import type { ChainRollup } from '../../store/rollups.js';
import type { GraphQLContext } from '../context.js';

export interface ChainView {
  config: ChainConfig;
  /** False when the store could not answer: the registry part is still served, the counts are null. */
  storeAvailable: boolean;
  rollup: ChainRollup | null;
  rollupUpdatedAt: Date | null;
  /** When the roll-up's data is complete up to (store/rollups.ts `dataAsOf`). */
  dataAsOf: Date | null;
  checkpoint: CheckpointRow | null;
}

/**
 * The live chains: every chain of the registry, with its counts from the roll-up and its checkpoint.
 * The chain list itself is configuration, so it is served even when the store is unreachable.
 */
export async function listChains(ctx: GraphQLContext): Promise<ChainView[]> {
  let storeAvailable = true;
  const [rollup, checkpoints] = await Promise.all([
    ctx.loaders.rollup.load('catalogue'),
    readCheckpoints(ctx.services.db),
  ]).catch((error: unknown) => {
    if (!isApiError(error) || error.code !== 'UPSTREAM_UNAVAILABLE') throw error;
    storeAvailable = false;
    return [null, [] as CheckpointRow[]] as const;
  });
  const byChain = new Map((rollup?.payload.chains ?? []).map((c) => [c.chain, c]));
  const checkpointOf = new Map(checkpoints.map((c) => [c.chain_key, c]));
  return ctx.services.registry.list().map((config) => ({
    config,
    storeAvailable,
    rollup: byChain.get(config.key) ?? null,
    rollupUpdatedAt: rollup?.refreshedAt ?? null,
    dataAsOf: rollup?.dataAsOf ?? null,
    checkpoint: checkpointOf.get(config.key) ?? null,
  }));
}
