/**
 * A new position as POST /v1/positions prepares it (SPEC §2.4, §2.5): the input, the unsigned
 * transactions (shared with the position's actions and a taker's swap), the fees, the preflight.
 */

import { walletCalls } from '../domain/walletCalls.js';
import {
  type FeeBreakdown,
  type HealthIssue as HealthIssueShape,
  type PositionToken as PositionTokenShape,
  PROTOCOL_FEE_BPS,
  type PreflightCheck as PreflightCheckShape,
  type PreflightIssue as PreflightIssueShape,
  type PreparedPosition as PreparedPositionShape,
  type PreparedTransaction as PreparedTransactionShape,
  preparePosition,
} from '../resolvers/positions/index.js';
import { builder } from './builder.js';
import { BundleSimulation, SIMULATION_DESCRIPTION, SimulationAvailability } from './bundleSimulation.js';
import { enumOf, PositionState, PreflightStatus, StepPurpose, WalletIssueType } from './enums.js';
import { PositionStrategy, PositionStrategyInput } from './positionStrategy.js';
import { as, fixed } from './valueFormats.js';
import { WalletCallBundle } from './walletCalls.js';

const DepositInput = builder.inputType('DepositInput', {
  description: 'One of the two tokens a new position deposits, with its amount.',
  fields: (t) => ({
    symbol: t.string({ required: true, description: 'Token symbol or address, as the chain lists it.' }),
    amount: t.string({ required: true, description: 'Integer string in base units.' }),
  }),
});

export const ApprovalMode = enumOf(
  'ApprovalMode',
  'How far a short allowance is raised: EXACT (what every open position of the wallet needs) or UNLIMITED (max uint256).',
  { exact: 'What every open position of the wallet needs.', unlimited: 'max uint256.' },
);

export const PreparePositionInput = builder.inputType('PreparePositionInput', {
  description: 'The body of POST /v1/positions (SPEC §2.4), already validated by the REST layer.',
  fields: (t) => ({
    chain: t.string({ required: true, description: 'Chain key (e.g. base) the position is prepared on.' }),
    wallet: t.string({ required: true, description: 'The address that will sign.' }),
    deposits: t.field({ type: [DepositInput], required: true, description: 'Exactly 2.' }),
    makerFeeBps: t.int({ required: false, defaultValue: 0, description: '0..2000000 on the 1e7 scale.' }),
    includeApprovals: t.boolean({
      required: false,
      defaultValue: true,
      description:
        'True: an approve step is added for a short allowance; false: a short allowance is reported in preflight.issues instead.',
    }),
    checkBalances: t.boolean({
      required: false,
      defaultValue: false,
      description: "True: the wallet's token balances are read and a shortfall is reported in preflight.",
    }),
    metadata: t.field({ type: 'JSON', required: false, description: 'A map of strings, echoed back.' }),
    approval: t.field({
      type: ApprovalMode,
      required: false,
      defaultValue: 'exact',
      description: 'How far an approve step raises a short allowance.',
    }),
    strategy: t.field({
      type: PositionStrategyInput,
      required: false,
      description: 'The curve (absent: xyc).',
    }),
    simulate: t.boolean({
      required: false,
      description:
        'True: the steps run in one eth_simulateV1 and the answer carries `simulation`; not part of what the Idempotency-Key compares.',
    }),
  }),
});

export const PreparedTransaction = builder
  .objectRef<PreparedTransactionShape>('PreparedTransaction')
  .implement({
    description: 'One unsigned transaction for the wallet to sign and send, in step order.',
    fields: (t) => ({
      step: t.exposeInt('step', {
        description: '1-based; execute in this order.',
        extensions: as('positive'),
      }),
      purpose: t.expose('purpose', { type: StepPurpose, description: 'What the step does.' }),
      to: t.exposeString('to', {
        description: 'The contract called: the token (approve), Aqua (ship, dock) or the router (swap).',
        extensions: as('address'),
      }),
      value: t.exposeString('value', {
        description: 'Native value in wei; almost always "0".',
        extensions: as('baseUnits'),
      }),
      data: t.exposeString('data', {
        description: 'Calldata: the payload to sign.',
        extensions: as('bytes'),
      }),
      description: t.exposeString('description', {
        description: 'What the step does, in a sentence for the signer.',
      }),
    }),
  });

const FeeBreakdownRef = builder.objectRef<FeeBreakdown>('FeeBreakdown').implement({
  description:
    'The fees embedded in the signed order data; the protocol fee is not a separate transfer and no parameter removes it.',
  fields: (t) => ({
    protocolFeeBps: t.exposeInt('protocolFeeBps', {
      description: 'Fixed: 5000 on the 1e7 scale (0.05%), charged on every swap input.',
      extensions: fixed(PROTOCOL_FEE_BPS),
    }),
    protocolFeePercent: t.exposeString('protocolFeePercent', {
      description: 'The protocol fee as exact percentage text ("0.05").',
      extensions: fixed('0.05'),
    }),
    makerFeeBps: t.exposeInt('makerFeeBps', {
      description:
        "The maker's own fee on the 1e7 scale (0..2000000), as supplied by the caller; it stays in the position.",
      extensions: as('count'),
    }),
    protocolFee1e7: t.exposeInt('protocolFee1e7', {
      description:
        'The protocol fee on the 1e7 scale (10000000 = 100%): the value of protocolFeeBps, under a name that does not read as basis points.',
      extensions: fixed(PROTOCOL_FEE_BPS),
    }),
    makerFee1e7: t.exposeInt('makerFee1e7', {
      description:
        'The maker fee on the 1e7 scale (10000000 = 100%; 30000 = 0.3%): the value of makerFeeBps, under a name that does not read as basis points.',
      extensions: as('count'),
    }),
    makerFeePercent: t.exposeString('makerFeePercent', {
      description: 'The maker fee as exact percentage text ("0.3"; "0" when none).',
    }),
    totalFeePercent: t.exposeString('totalFeePercent', {
      description: 'Protocol plus maker fee, as exact percentage text.',
    }),
    embeddedIn: t.exposeString('embeddedIn', {
      description: 'Where the fees live: always in the signed order data (instructions of the signed order).',
      extensions: fixed('signed_order_data'),
    }),
    removable: t.exposeBoolean('removable', {
      description: 'Always false: no parameter removes the protocol fee from the order.',
      extensions: fixed(false),
    }),
    explanation: t.exposeString('explanation', { description: 'The fees in plain words, for the signer.' }),
  }),
});

const PositionToken = builder.objectRef<PositionTokenShape>('PositionToken').implement({
  description: 'A token a prepared position deposits, as the chain lists it.',
  fields: (t) => ({
    symbol: t.exposeString('symbol', { description: 'Token symbol as the operator lists it.' }),
    address: t.exposeString('address', {
      description: 'Token contract address, checksummed.',
      extensions: as('address'),
    }),
    amount: t.exposeString('amount', {
      description: 'Deposit as an integer string in base units.',
      extensions: as('baseUnits'),
    }),
    decimals: t.exposeInt('decimals', {
      description: 'Token decimals (amount / 10^decimals is whole tokens).',
      extensions: as('count'),
    }),
  }),
});

const PreparedPositionDetail = builder
  .objectRef<PreparedPositionShape['position']>('PreparedPositionDetail')
  .implement({
    description: 'The position the transactions create: its two deposits, sorted by address.',
    fields: (t) => ({
      tokenA: t.field({ type: PositionToken, resolve: (p) => p.tokenA, description: 'The lower address.' }),
      tokenB: t.field({ type: PositionToken, resolve: (p) => p.tokenB, description: 'The higher address.' }),
      impliedRate: t.exposeFloat('impliedRate', {
        nullable: true,
        description: 'amountA / amountB in whole tokens; a sanity check, not used in the order.',
      }),
      programBytes: t.exposeInt('programBytes', {
        description: "Length of the order's SwapVM program in bytes.",
        extensions: as('count'),
      }),
      strategy: t.field({
        type: PositionStrategy,
        nullable: true,
        description:
          'The curve the order runs and its program, decoded; null only for a replay of a position prepared before kinds existed.',
        resolve: (p) => p.strategy ?? null,
      }),
    }),
  });

const PreflightCheck = builder.objectRef<PreflightCheckShape>('PreflightCheck').implement({
  description: 'One check run before the transactions were prepared.',
  fields: (t) => ({
    name: t.exposeString('name', {
      description:
        'wallet_valid, tokens_sorted, both_amounts_positive, fees_wiring, allowance_a/_b, balance_a/_b (when checkBalances), maker_fee_scale (only when makerFeeBps is above 0 but below 1000, 0.01%: likely basis points sent on the 1e7 scale).',
    }),
    ok: t.exposeBoolean('ok', { description: 'True when the check passed.' }),
    detail: t.exposeString('detail', {
      nullable: true,
      description: 'What was found, in words; null when nothing to add.',
    }),
  }),
});

/** A shortfall of the wallet, wherever one is reported (a preflight, a position's health). */
export const WalletIssue = builder
  .objectRef<PreflightIssueShape | HealthIssueShape>('WalletIssue')
  .implement({
    description:
      'A shortfall of the wallet the client fixes itself, in the SPEC §7 issues[] item shape (INSUFFICIENT_BALANCE, INSUFFICIENT_ALLOWANCE).',
    fields: (t) => ({
      type: t.expose('type', { type: WalletIssueType, description: 'Which shortfall.' }),
      expected: t.exposeString('expected', {
        description: 'Base units needed (by this position, or by all the open ones).',
        extensions: as('baseUnits'),
      }),
      actual: t.exposeString('actual', { description: 'Base units found.', extensions: as('baseUnits') }),
      spender: t.string({
        nullable: true,
        description:
          'The spender to approve (Aqua) for an allowance shortfall; null for a balance shortfall.',
        extensions: as('address'),
        resolve: (i) => i.spender ?? null,
      }),
      token: t.exposeString('token', { description: 'The token contract address concerned.' }),
    }),
  });

const Preflight = builder.objectRef<PreparedPositionShape['preflight']>('Preflight').implement({
  description: 'What was checked before preparing, and what the client must fix itself.',
  fields: (t) => ({
    status: t.expose('status', {
      type: PreflightStatus,
      description: 'READY, or REVIEW when a check failed.',
    }),
    checks: t.field({
      type: [PreflightCheck],
      resolve: (p) => p.checks,
      description: 'Every check, in run order.',
    }),
    issues: t.field({
      type: [WalletIssue],
      resolve: (p) => p.issues,
      description: 'Client-fixable problems; empty when none.',
    }),
    simulation: t.field({
      type: SimulationAvailability,
      nullable: true,
      resolve: (p) => p.simulation ?? null,
      description: 'With `simulate` only: whether the bundle was simulated (absent otherwise).',
    }),
  }),
});

export const PreparedPosition = builder.objectRef<PreparedPositionShape>('PreparedPosition').implement({
  description: 'Unsigned transactions that create a position (SPEC §2.5). Nothing is signed or broadcast.',
  fields: (t) => ({
    status: t.expose('status', {
      type: PositionState,
      description: 'Always PREPARED: nothing is on chain yet.',
    }),
    chain: t.exposeString('chain', { description: 'Chain key.' }),
    chainId: t.exposeInt('chainId', { description: 'EVM chain id the transactions are for.' }),
    wallet: t.exposeString('wallet', {
      description: 'The signing wallet, checksummed: the address that must sign.',
      extensions: as('address'),
    }),
    strategyHash: t.exposeString('strategyHash', {
      description: 'Hash of the order the ship step registers; also the positionId.',
      extensions: as('hash32'),
    }),
    transactions: t.field({
      type: [PreparedTransaction],
      resolve: (p) => p.transactions,
      description: 'The steps to sign and send, in order (approvals first, then ship).',
    }),
    calls: t.field({
      type: WalletCallBundle,
      description: 'The same steps as one EIP-5792 `wallet_sendCalls` bundle.',
      resolve: (p) => walletCalls(p.chainId, p.wallet, p.transactions),
    }),
    fee: t.field({ type: FeeBreakdownRef, resolve: (p) => p.fee, description: 'The fees the order embeds.' }),
    position: t.field({
      type: PreparedPositionDetail,
      resolve: (p) => p.position,
      description: 'The deposits and order the transactions create.',
    }),
    preflight: t.field({ type: Preflight, resolve: (p) => p.preflight, description: 'Checks and issues.' }),
    idempotent: t.exposeBoolean('idempotent', {
      description: 'True when the call carried an Idempotency-Key, so a repeat returns this same answer.',
    }),
    metadata: t.field({
      type: 'JSON',
      nullable: true,
      resolve: (p) => p.metadata,
      description: 'The map of strings given with the request, echoed back; null when none.',
      extensions: as('stringMap'),
    }),
    preparedAt: t.field({
      type: 'DateTime',
      resolve: (p) => p.preparedAt,
      description: 'When the transactions were prepared (the first call for a replay).',
    }),
    replayed: t.exposeBoolean('replayed', {
      description: 'True when this is the stored answer of an earlier call with the same Idempotency-Key.',
    }),
    simulation: t.field({
      type: BundleSimulation,
      nullable: true,
      resolve: (p) => p.simulation ?? null,
      description: SIMULATION_DESCRIPTION,
    }),
    replaces: t.string({
      nullable: true,
      resolve: (p) => p.replaces ?? null,
      description:
        'A rebalance: the position this one replaces, docked by the first step of the same bundle; null otherwise.',
      extensions: as('hash32'),
    }),
  }),
});

builder.mutationField('preparePosition', (t) =>
  t.field({
    type: PreparedPosition,
    description:
      'Prepares the unsigned transactions of a new position for the calling API key (POST /v1/positions). ' +
      'Uses the Idempotency-Key of the context when given.',
    args: {
      input: t.arg({
        type: PreparePositionInput,
        required: true,
        description: 'Chain, wallet, deposits and fees.',
      }),
    },
    resolve: (_root, { input }, ctx) =>
      preparePosition(ctx, {
        ...input,
        metadata: (input.metadata ?? null) as Record<string, string> | null,
      }),
  }),
);
