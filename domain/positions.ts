/**
 * A position as the service has observed it, shaped from its stored row: the one shaping of
 * GET /v1/positions/{id}, the position list, the export and every webhook payload. Tracking is
 * observation only: a prepared position becomes `shipped`, `filled` and `docked` when the indexer sees
 * its strategy hash in the catalogue.
 */
import { checksummed } from '../chain/checksum.js';
import type { ChainRegistry } from '../chain/registry.js';
import type { PositionStatusRow } from '../store/positions.js';

export type ObservedState = 'prepared' | 'shipped' | 'filled' | 'docked';

export interface ObservedToken {
  symbol: string | null;
  address: string;
  amount: string;
  decimals: number | null;
}

export interface ObservedPosition {
  positionId: string;
  strategyHash: string;
  status: ObservedState;
  chain: string;
  chainId: number;
  wallet: string;
  tokenA: ObservedToken;
  tokenB: ObservedToken;
  makerFeeBps: number | null;
  protocolFeeBps: number;
  observedOnChain: boolean;
  volumeUsd: number | null;
  preparedAt: Date;
  firstSeenOnChainAt: Date | null;
  firstSeenFilledAt: Date | null;
  /** When the service first observed the position docked (closed by its maker). */
  firstSeenDockedAt: Date | null;
  /** The position this one replaces (prepared by a rebalance of it); null otherwise. */
  replaces: string | null;
}

/** A position as the list, the export and webhook payloads carry it: with the integrator's metadata. */
export type ListedPosition = ObservedPosition & { metadata: Record<string, string> | null };

/** The lifecycle state the catalogue shows (`docked` is additive to the documented three). */
export function observedState(row: PositionStatusRow): ObservedState {
  if (!row.observed) return 'prepared';
  if (row.strategy_status === 'docked') return 'docked';
  const filled = row.first_volume_seen_at !== null || (row.volume_usd ?? 0) > 0;
  return filled ? 'filled' : 'shipped';
}

export function shapePosition(registry: ChainRegistry, row: PositionStatusRow): ObservedPosition {
  const status = observedState(row);
  const filled = row.observed && (row.first_volume_seen_at !== null || (row.volume_usd ?? 0) > 0);
  const tokenOf = (
    address: string,
    amount: string,
    prepared?: { symbol?: string; decimals?: number },
  ): ObservedToken => ({
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
    replaces: row.replaces,
  };
}
