/**
 * GET /v1/positions/{positionId} (SPEC §2.6, §3, §4.10): the observed position (domain/positions.ts)
 * and, once shipped, its live `health` (health.ts). A read: it records nothing and queues nothing (the
 * indexer's health check observes health for position.health_changed, domain/positionEvents.ts).
 */

import { positionHealth } from '../../domain/positionHealth.js';
import { shapePosition } from '../../domain/positions.js';
import { isApiError } from '../../lib/errors.js';
import type { GraphQLContext } from '../context.js';
import { positionOfKey } from './access.js';
import { type PositionStatus, SIGNER_NOTE, TIMESTAMPS_MEANING } from './types.js';

export { POSITION_NOT_FOUND } from './access.js';

/**
 * The live health, or null while the chain cannot answer: the status is what the service observed and
 * stays readable (SPEC §4.10 lists no 503 for it); only the live part is missing then.
 */
async function healthIfReadable(
  ctx: GraphQLContext,
  chain: Parameters<typeof positionHealth>[1],
  row: Parameters<typeof positionHealth>[2],
): Promise<Awaited<ReturnType<typeof positionHealth>> | null> {
  try {
    return await positionHealth(ctx, chain, row);
  } catch (error) {
    if (!isApiError(error) || (error.code !== 'UPSTREAM_UNAVAILABLE' && error.code !== 'UPSTREAM_TIMEOUT'))
      throw error;
    ctx.services.logger.warn(
      { requestId: ctx.requestId, chain: row.chain_key, code: error.code },
      'position health not readable: answered without it',
    );
    return null;
  }
}

/** GET /v1/positions/{positionId}: what the service has observed of a position of the calling key. */
export async function positionStatus(ctx: GraphQLContext, positionId: string): Promise<PositionStatus> {
  const row = await positionOfKey(ctx, positionId);
  const observed = shapePosition(ctx.services.registry, row);
  const chain = ctx.services.registry.get(row.chain_key);
  const live = (observed.status === 'shipped' || observed.status === 'filled') && chain !== undefined;
  const health = live ? await healthIfReadable(ctx, chain, row) : null;
  return {
    ...observed,
    health,
    signer: SIGNER_NOTE,
    checkedAt: new Date().toISOString(),
    timestampsMeaning: TIMESTAMPS_MEANING,
  };
}
