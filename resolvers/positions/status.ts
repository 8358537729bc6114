/**
 * GET /v1/positions/{positionId} (SPEC §2.6, §3, §4.10). Tracking is observation only: a prepared
 * position becomes `shipped`, `filled` and `docked` when the indexer sees its strategy hash in the
 * catalogue. A shipped position also reports its live `health` (health.ts).
 */
import { checksummed } from '../../chain/checksum.js';
import { isApiError } from '../../lib/errors.js';
import type { GraphQLContext } from '../../schema/context.js';
import type { PositionStatusRow } from '../../store/positions.js';
import { observeHealth } from '../webhooks/health.js';
import { observedState, positionOfKey } from './access.js';
import { positionHealth } from './health.js';
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

/** The observed part of a position, shaped from its row: the one shaping of GET /v1/positions/{id}, the list and the export. */
export type ObservedPosition = Omit<PositionStatus, 'health' | 'signer' | 'checkedAt' | 'timestampsMeaning'>;

export function shapePosition(
  registry: GraphQLContext['services']['registry'],
  row: PositionStatusRow,
): ObservedPosition {
  const status = observedState(row);
  const filled = row.observed && (row.first_volume_seen_at !== null || (row.volume_usd ?? 0) > 0);
  const tokenOf = (address: string, amount: string, prepared?: { symbol?: string; decimals?: number }) => ({
    symbol: prepared?.symbol ?? registry.tokenByAddress(row.chain_key, address)?.symbol ?? null,
    address: checksummed(address),
    amount,
    decimals: prepared?.decimals ?? registry.tokenByAddress(row.chain_key, address)?.decimals ?? null,
  });
  return {
    positionId: row.strategy_hash,
    strategyHash: row.strategy_hash,
    status,
    chain: row.chain_key,
    chainId: row.chain_id,
    wallet: checksummed(row.wallet),
    tokenA: tokenOf(row.token_a, row.amount_a, row.position?.tokenA),
    tokenB: tokenOf(row.token_b, row.amount_b, row.position?.tokenB),
    makerFeeBps: row.maker_fee_bps,
    protocolFeeBps: row.protocol_fee_bps,
    observedOnChain: row.observed,
    volumeUsd: row.observed ? (row.volume_usd ?? 0) : null,
    preparedAt: row.created_at,
    firstSeenOnChainAt: row.first_seen_at,
    firstSeenFilledAt: filled ? (row.first_volume_seen_at ?? null) : null,
    firstSeenDockedAt: status === 'docked' ? row.docked_seen_at : null,
  };
}

/** GET /v1/positions/{positionId}: what the service has observed of a position of the calling key. */
export async function positionStatus(ctx: GraphQLContext, positionId: string): Promise<PositionStatus> {
  const row = await positionOfKey(ctx, positionId);
  const observed = shapePosition(ctx.services.registry, row);
  const chain = ctx.services.registry.get(row.chain_key);
  const live = (observed.status === 'shipped' || observed.status === 'filled') && chain !== undefined;
  const health = live ? await healthIfReadable(ctx, chain, row) : null;
  if (health) await observeHealth(ctx, row, health);
  return {
    ...observed,
    health,
    signer: SIGNER_NOTE,
    checkedAt: new Date().toISOString(),
    timestampsMeaning: TIMESTAMPS_MEANING,
  };
}
