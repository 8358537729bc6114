/** The shapes of the position resolvers (SPEC §2.4–2.6) and the fixed texts they answer with. */
import type { Hex } from 'viem';
import type { PositionHealth } from '../../domain/positionHealth.js';
import type { ObservedPosition } from '../../domain/positions.js';
import type { ErrorIssue } from '../../lib/errors.js';
import type { BundleSimulation, SimulationAvailability } from '../bundleSimulation.js';
import type { PositionStrategy, StrategyInput } from './strategy.js';

export const PREPARE_NOTE =
  'Nothing has been signed or broadcast. These are unsigned transactions for the wallet named in data.wallet to sign and send itself, in step order; nothing is reserved, locked or expiring.';
export const SIGNER_NOTE =
  'The client signs and broadcasts. The service prepared unsigned transactions only; it never signed, broadcast or held funds.';
export const TIMESTAMPS_MEANING =
  'firstSeen* timestamps record when the service first observed a state in the live catalogue, not when it happened on chain.';

export interface PreparePositionInput {
  chain: string;
  wallet: string;
  deposits: readonly { symbol: string; amount: string }[];
  makerFeeBps?: number | null;
  includeApprovals?: boolean | null;
  checkBalances?: boolean | null;
  metadata?: Record<string, string> | null;
  /** `exact` (default): approve what every active strategy of the wallet plus this one needs; `unlimited`: max uint256. */
  approval?: ApprovalMode | null;
  /** The curve: absent is xyc. */
  strategy?: StrategyInput | null;
  /** Run the bundle in one eth_simulateV1 and report it (never part of the Idempotency-Key's body). */
  simulate?: boolean | null;
}

export const APPROVAL_MODES = ['exact', 'unlimited'] as const;
export type ApprovalMode = (typeof APPROVAL_MODES)[number];

export interface PreparedTransaction {
  step: number;
  purpose: 'approve' | 'ship' | 'swap' | 'dock';
  to: string;
  value: string;
  data: string;
  description: string;
}

export interface FeeBreakdown {
  protocolFeeBps: number;
  protocolFeePercent: string;
  makerFeeBps: number;
  protocolFee1e7: number;
  makerFee1e7: number;
  makerFeePercent: string;
  totalFeePercent: string;
  embeddedIn: 'signed_order_data';
  removable: false;
  explanation: string;
}

export interface PositionToken {
  symbol: string;
  address: string;
  amount: string;
  decimals: number;
}

export interface PreflightCheck {
  name: string;
  ok: boolean;
  detail: string | null;
}

/** A client-fixable problem the transactions alone do not solve (the shape of SPEC §7 `issues[]`). */
export interface PreflightIssue extends ErrorIssue {
  type: 'INSUFFICIENT_BALANCE' | 'INSUFFICIENT_ALLOWANCE';
  expected: string;
  actual: string;
  token: string;
}

/** The stored payload: the response `data` without metadata, plus when it was prepared. */
export interface PreparedPayload {
  status: 'prepared';
  chain: string;
  chainId: number;
  wallet: string;
  strategyHash: string;
  transactions: PreparedTransaction[];
  fee: FeeBreakdown;
  position: {
    tokenA: PositionToken;
    tokenB: PositionToken;
    impliedRate: number | null;
    programBytes: number;
    /** The curve and the program built (absent from payloads stored before kinds existed). */
    strategy?: PositionStrategy & { program: Hex };
  };
  preflight: { status: 'ready' | 'review'; checks: PreflightCheck[]; issues: PreflightIssue[] };
  idempotent: boolean;
  preparedAt: string;
  /** A rebalance: the position it replaces, docked by the bundle's first step. */
  replaces?: string;
}

export interface PreparedPosition extends PreparedPayload {
  metadata: Record<string, string> | null;
  /** True when this answer is the stored payload of an earlier call with the same Idempotency-Key. */
  replayed: boolean;
  /** With `simulate` only (never stored): whether the bundle ran, beside the stored checks. */
  preflight: PreparedPayload['preflight'] & { simulation?: SimulationAvailability };
  simulation?: BundleSimulation | null;
}

/** GET /v1/positions/{positionId}: the observed position (domain/positions.ts) and its live part. */
export interface PositionStatus extends ObservedPosition {
  /** Live coverage of a shipped position; null before it ships and once docked. */
  health: PositionHealth | null;
  signer: string;
  checkedAt: string;
  timestampsMeaning: string;
}
