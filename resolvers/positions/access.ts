/** A position of the calling key, or the one 404 that does not tell another key's from a missing one. */
import { ApiError } from '../../lib/errors.js';
import type { GraphQLContext } from '../../schema/context.js';
import { findPositionStatus, type PositionStatusRow } from '../../store/positions.js';
import { UNAUTHORIZED_MESSAGE } from '../apiKeys.js';

const POSITION_ID = /^0x[0-9a-f]{64}$/;

/** The 404 of GET /v1/positions/{id}: one message whether the position is missing or another key's. */
export const POSITION_NOT_FOUND = 'No position with this id was prepared by this key.';

export async function positionOfKey(ctx: GraphQLContext, positionId: string): Promise<PositionStatusRow> {
  const key = ctx.apiKey;
  if (!key) throw new ApiError('UNAUTHORIZED', UNAUTHORIZED_MESSAGE);
  const id = positionId.toLowerCase();
  if (!POSITION_ID.test(id)) {
    throw ApiError.invalid('positionId', 'positionId must match ^0x[0-9a-fA-F]{64}$.');
  }
  const row = await findPositionStatus(ctx.services.db, key.keyId, id);
  if (!row) throw ApiError.notFound(POSITION_NOT_FOUND);
  return row;
}

/** The lifecycle state the catalogue shows (SPEC §3, plus `docked`, additive per SPEC §9). */
export function observedState(row: PositionStatusRow): 'prepared' | 'shipped' | 'filled' | 'docked' {
  if (!row.observed) return 'prepared';
  if (row.strategy_status === 'docked') return 'docked';
  const filled = row.first_volume_seen_at !== null || (row.volume_usd ?? 0) > 0;
  return filled ? 'filled' : 'shipped';
}
