/** A position of the calling key, or the one 404 that does not tell another key's from a missing one. */
import { ApiError } from '../../lib/errors.js';
import { findPositionStatus, type PositionStatusRow } from '../../store/positions.js';
import { UNAUTHORIZED_MESSAGE } from '../apiKeys.js';
import type { GraphQLContext } from '../context.js';

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
  if (!row) throw ApiError.notFound(POSITION_NOT_FOUND, 'positionId');
  return row;
}
