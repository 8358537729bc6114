/**
 * GET /v1/positions/{positionId} (SPEC §2.6, §3, §4.10). Tracking is observation only: a prepared
 * position becomes `shipped` and `filled` when the indexer sees its strategy hash in the catalogue.
 */
import { getAddress } from 'viem';
import { ApiError } from '../../lib/errors.js';
import type { GraphQLContext } from '../../schema/context.js';
import { findPositionStatus } from '../../store/positions.js';
import { UNAUTHORIZED_MESSAGE } from '../apiKeys.js';
import { type PositionStatus, SIGNER_NOTE, TIMESTAMPS_MEANING } from './types.js';

const POSITION_ID = /^0x[0-9a-f]{64}$/;

/** The 404 of GET /v1/positions/{id}: one message whether the position is missing or another key's. */
export const POSITION_NOT_FOUND = 'No position with this id was prepared by this key.';

/** GET /v1/positions/{positionId}: what the service has observed of a position of the calling key. */
export async function positionStatus(ctx: GraphQLContext, positionId: string): Promise<PositionStatus> {
  const key = ctx.apiKey;
  if (!key) throw new ApiError('UNAUTHORIZED', UNAUTHORIZED_MESSAGE);
  const id = positionId.toLowerCase();
  if (!POSITION_ID.test(id)) {
    throw ApiError.invalid('positionId', 'positionId must match ^0x[0-9a-fA-F]{64}$.');
  }
  const row = await findPositionStatus(ctx.services.db, key.keyId, id);
  if (!row) throw ApiError.notFound(POSITION_NOT_FOUND);
  const filled = row.observed && (row.first_volume_seen_at !== null || (row.volume_usd ?? 0) > 0);
  const tokenOf = (address: string, amount: string, prepared?: { symbol?: string; decimals?: number }) => ({
    symbol: prepared?.symbol ?? ctx.services.registry.tokenByAddress(row.chain_key, address)?.symbol ?? null,
    address: getAddress(address),
    amount,
    decimals:
      prepared?.decimals ?? ctx.services.registry.tokenByAddress(row.chain_key, address)?.decimals ?? null,
  });
  return {
    positionId: row.strategy_hash,
    strategyHash: row.strategy_hash,
    status: filled ? 'filled' : row.observed ? 'shipped' : 'prepared',
    chain: row.chain_key,
    chainId: row.chain_id,
    wallet: getAddress(row.wallet),
    tokenA: tokenOf(row.token_a, row.amount_a, row.position?.tokenA),
    tokenB: tokenOf(row.token_b, row.amount_b, row.position?.tokenB),
    makerFeeBps: row.maker_fee_bps,
    protocolFeeBps: row.protocol_fee_bps,
    observedOnChain: row.observed,
    volumeUsd: row.observed ? (row.volume_usd ?? 0) : null,
    preparedAt: row.created_at,
    firstSeenOnChainAt: row.first_seen_at,
    firstSeenFilledAt: filled ? (row.first_volume_seen_at ?? null) : null,
    signer: SIGNER_NOTE,
    checkedAt: new Date().toISOString(),
    timestampsMeaning: TIMESTAMPS_MEANING,
  };
}
