/**
 * position.health_changed. Health is read live from the chain (allowances and balances of the wallet),
 * not from any event the indexer sees, so a change cannot be detected in the indexer's transaction
 * without RPC. It is detected where the service observes health: each GET /v1/positions/{id} that
 * reads one, and the indexer's background check of subscribed positions (indexer/healthCheck.ts),
 * compare it with the last status observed (position_health_seen) and, when it differs, record the new
 * one and queue the event in one transaction (`recordHealth`, the one way for both). The first
 * observation of a position records a baseline and queues nothing. Events are coalesced per position
 * and endpoint (WEBHOOK_HEALTH_COALESCE_MS, store/migrations/021_webhook_fairness.sql).
 */

import type { GraphQLContext } from '../../schema/context.js';
import type { Db } from '../../store/db.js';
import { enqueueHealthChanged, inTransaction, swapObservedHealth } from '../../store/webhooks.js';
import type { PositionHealth } from '../positions/health.js';

/** Records an observed health; true when it changed from a previous one and the event was queued. */
export async function recordHealth(
  db: Db,
  position: { chain_key: string; strategy_hash: string },
  health: PositionHealth,
  coalesceMs: number,
): Promise<boolean> {
  return inTransaction(db, async (client) => {
    const previous = await swapObservedHealth(client, position.strategy_hash, health);
    if (typeof previous !== 'string') return false;
    await enqueueHealthChanged(client, position.chain_key, position.strategy_hash, coalesceMs);
    return true;
  });
}

export async function observeHealth(
  ctx: GraphQLContext,
  position: { chain_key: string; strategy_hash: string },
  health: PositionHealth,
): Promise<void> {
  try {
    await recordHealth(ctx.services.db, position, health, ctx.services.config.webhooks.healthCoalesceMs);
  } catch (err) {
    // The read answers anyway: the status is what the caller asked for.
    ctx.services.logger.warn({ err, requestId: ctx.requestId }, 'position health not recorded');
  }
}
