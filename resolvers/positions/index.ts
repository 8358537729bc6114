/**
 * Position preparation and tracking (SPEC §2.4–2.6, §3, §4.9, §4.10), by concern: `prepare` (with its
 * steps `intent`, `order`, `reads`, `approvals`, `preflight`), `idempotency`, `fees`, `status`.
 */

export type { HealthIssue, HealthToken, PositionHealth } from '../../domain/positionHealth.js';
export type { PositionAction } from './actions.js';
export { preparePositionDock } from './dock.js';
export { feeBreakdown, feePercent, MAX_MAKER_FEE_BPS, PROTOCOL_FEE_BPS } from './fees.js';
export { positionSalt } from './idempotency.js';
export { eachPosition, listPositions, positionFilters } from './list.js';
export { preparePosition } from './prepare.js';
export { rebalancePosition } from './rebalance.js';
export { POSITION_NOT_FOUND, positionStatus } from './status.js';
export { preparePositionApprovals } from './topUp.js';
export * from './types.js';
