import {
  type FeeBreakdown,
  type HealthIssue as HealthIssueShape,
  type HealthToken as HealthTokenShape,
  type PositionAction as PositionActionShape,
  type PositionHealth as PositionHealthShape,
  type PositionStatus as PositionStatusShape,
  type PositionToken as PositionTokenShape,
  type PreflightCheck as PreflightCheckShape,
  type PreflightIssue as PreflightIssueShape,
  type PreparedPosition as PreparedPositionShape,
  type PreparedTransaction as PreparedTransactionShape,
  positionStatus,
  preparePosition,
  preparePositionApprovals,
  preparePositionDock,
} from '../resolvers/positions/index.js';
import { builder } from './builder.js';

const DepositInput = builder.inputType('DepositInput', {
  fields: (t) => ({
    symbol: t.string({ required: true, description: 'Token symbol or address, as the chain lists it.' }),
    amount: t.string({ required: true, description: 'Integer string in base units.' }),
  }),
});

export const ApprovalMode = builder.enumType('ApprovalMode', {
  description:
    'How far a short allowance is raised: `exact` (what every open position of the wallet needs) or `unlimited` (max uint256).',
  values: ['exact', 'unlimited'] as const,
});

const PreparePositionInput = builder.inputType('PreparePositionInput', {
  description: 'The body of POST /v1/positions (SPEC §2.4), already validated by the REST layer.',
  fields: (t) => ({
    chain: t.string({ required: true }),
    wallet: t.string({ required: true, description: 'The address that will sign.' }),
    deposits: t.field({ type: [DepositInput], required: true, description: 'Exactly 2.' }),
    makerFeeBps: t.int({ required: false, defaultValue: 0, description: '0..2000000 on the 1e7 scale.' }),
    includeApprovals: t.boolean({ required: false, defaultValue: true }),
    checkBalances: t.boolean({ required: false, defaultValue: false }),
    metadata: t.field({ type: 'JSON', required: false, description: 'A map of strings, echoed back.' }),
    approval: t.field({ type: ApprovalMode, required: false, defaultValue: 'exact' }),
  }),
});

export const PreparedTransaction = builder
  .objectRef<PreparedTransactionShape>('PreparedTransaction')
  .implement({
    description: 'One unsigned transaction for the wallet to sign and send, in step order.',
    fields: (t) => ({
      step: t.exposeInt('step', { description: '1-based; execute in this order.' }),
      purpose: t.exposeString('purpose', { description: '`approve`, `ship`, `swap` or `dock`.' }),
      to: t.exposeString('to'),
      value: t.exposeString('value', { description: 'Native value in wei.' }),
      data: t.exposeString('data', { description: 'Calldata: the payload to sign.' }),
      description: t.exposeString('description'),
    }),
  });

const FeeBreakdownRef = builder.objectRef<FeeBreakdown>('FeeBreakdown').implement({
  description: 'The fees embedded in the signed order data (SPEC §2.5).',
  fields: (t) => ({
    protocolFeeBps: t.exposeInt('protocolFeeBps'),
    protocolFeePercent: t.exposeString('protocolFeePercent'),
    makerFeeBps: t.exposeInt('makerFeeBps'),
    makerFeePercent: t.exposeString('makerFeePercent'),
    totalFeePercent: t.exposeString('totalFeePercent'),
    embeddedIn: t.exposeString('embeddedIn'),
    removable: t.exposeBoolean('removable'),
    explanation: t.exposeString('explanation'),
  }),
});

const PositionToken = builder.objectRef<PositionTokenShape>('PositionToken').implement({
  fields: (t) => ({
    symbol: t.exposeString('symbol'),
    address: t.exposeString('address'),
    amount: t.exposeString('amount', { description: 'Base units.' }),
    decimals: t.exposeInt('decimals'),
  }),
});

const PreparedPositionDetail = builder
  .objectRef<PreparedPositionShape['position']>('PreparedPositionDetail')
  .implement({
    fields: (t) => ({
      tokenA: t.field({ type: PositionToken, resolve: (p) => p.tokenA, description: 'The lower address.' }),
      tokenB: t.field({ type: PositionToken, resolve: (p) => p.tokenB }),
      impliedRate: t.exposeFloat('impliedRate', {
        nullable: true,
        description: 'amountA / amountB in whole tokens; a sanity check, not used in the order.',
      }),
      programBytes: t.exposeInt('programBytes'),
    }),
  });

const PreflightCheck = builder.objectRef<PreflightCheckShape>('PreflightCheck').implement({
  fields: (t) => ({
    name: t.exposeString('name'),
    ok: t.exposeBoolean('ok'),
    detail: t.exposeString('detail', { nullable: true }),
  }),
});

const PreflightIssue = builder.objectRef<PreflightIssueShape>('PreflightIssue').implement({
  description:
    'A client-fixable problem the transactions do not solve (INSUFFICIENT_BALANCE, INSUFFICIENT_ALLOWANCE).',
  fields: (t) => ({
    type: t.exposeString('type'),
    expected: t.exposeString('expected', { description: 'Base units needed.' }),
    actual: t.exposeString('actual', { description: 'Base units found.' }),
    spender: t.string({ nullable: true, resolve: (i) => i.spender ?? null }),
    token: t.exposeString('token'),
  }),
});

const Preflight = builder.objectRef<PreparedPositionShape['preflight']>('Preflight').implement({
  fields: (t) => ({
    status: t.exposeString('status', { description: '`ready`, or `review` when a check failed.' }),
    checks: t.field({ type: [PreflightCheck], resolve: (p) => p.checks }),
    issues: t.field({ type: [PreflightIssue], resolve: (p) => p.issues }),
  }),
});

const PreparedPosition = builder.objectRef<PreparedPositionShape>('PreparedPosition').implement({
  description: 'Unsigned transactions that create a position (SPEC §2.5). Nothing is signed or broadcast.',
  fields: (t) => ({
    status: t.exposeString('status'),
    chain: t.exposeString('chain'),
    chainId: t.exposeInt('chainId'),
    wallet: t.exposeString('wallet'),
    strategyHash: t.exposeString('strategyHash'),
    transactions: t.field({ type: [PreparedTransaction], resolve: (p) => p.transactions }),
    fee: t.field({ type: FeeBreakdownRef, resolve: (p) => p.fee }),
    position: t.field({ type: PreparedPositionDetail, resolve: (p) => p.position }),
    preflight: t.field({ type: Preflight, resolve: (p) => p.preflight }),
    idempotent: t.exposeBoolean('idempotent'),
    metadata: t.field({ type: 'JSON', nullable: true, resolve: (p) => p.metadata }),
    preparedAt: t.field({ type: 'DateTime', resolve: (p) => p.preparedAt }),
    replayed: t.exposeBoolean('replayed', {
      description: 'True when this is the stored answer of an earlier call with the same Idempotency-Key.',
    }),
  }),
});

export const StatusToken = builder.objectRef<PositionStatusShape['tokenA']>('PositionStatusToken').implement({
  fields: (t) => ({
    symbol: t.exposeString('symbol', { nullable: true }),
    address: t.exposeString('address'),
    amount: t.exposeString('amount'),
    decimals: t.exposeInt('decimals', { nullable: true }),
  }),
});

const HealthIssue = builder.objectRef<HealthIssueShape>('PositionHealthIssue').implement({
  description: 'A shortfall of the wallet, in the SPEC §7 issues[] item shape.',
  fields: (t) => ({
    type: t.exposeString('type', { description: '`INSUFFICIENT_ALLOWANCE` or `INSUFFICIENT_BALANCE`.' }),
    expected: t.exposeString('expected', { description: 'Base units the open positions need.' }),
    actual: t.exposeString('actual', { description: 'Base units found.' }),
    spender: t.exposeString('spender', { nullable: true }),
    token: t.exposeString('token'),
  }),
});

const HealthToken = builder.objectRef<HealthTokenShape>('PositionHealthToken').implement({
  fields: (t) => ({
    address: t.exposeString('address'),
    symbol: t.exposeString('symbol', { nullable: true }),
    allowance: t.exposeString('allowance', { description: "The wallet's allowance to Aqua." }),
    balance: t.exposeString('balance', { description: "The wallet's balance." }),
    required: t.exposeString('required', {
      description: "Sum of the token's live virtual balances over the wallet's active strategies.",
    }),
    requiredByPosition: t.exposeString('requiredByPosition', {
      description: "This position's own live virtual balance of the token.",
    }),
  }),
});

const PositionHealth = builder.objectRef<PositionHealthShape>('PositionHealth').implement({
  description:
    "Live coverage of a shipped position: `stalled` (the wallet covers less than this strategy's own virtual balance of a token: a swap drawing on it reverts now), `at_risk` (this strategy is covered, not all of the wallet's), `ok`.",
  fields: (t) => ({
    status: t.exposeString('status'),
    spender: t.exposeString('spender'),
    strategies: t.exposeInt('strategies'),
    tokens: t.field({ type: [HealthToken], resolve: (h) => h.tokens }),
    issues: t.field({ type: [HealthIssue], resolve: (h) => h.issues }),
  }),
});

const PositionAction = builder.objectRef<PositionActionShape>('PositionAction').implement({
  description:
    "Unsigned transactions for a position's wallet (top-up approvals, dock). Nothing is signed or broadcast.",
  fields: (t) => ({
    positionId: t.exposeString('positionId'),
    strategyHash: t.exposeString('strategyHash'),
    chain: t.exposeString('chain'),
    chainId: t.exposeInt('chainId'),
    wallet: t.exposeString('wallet'),
    transactions: t.field({ type: [PreparedTransaction], resolve: (p) => p.transactions }),
    preparedAt: t.field({ type: 'DateTime', resolve: (p) => p.preparedAt }),
  }),
});

const PositionStatus = builder.objectRef<PositionStatusShape>('PositionStatus').implement({
  description: 'What the service has observed of a position it prepared (SPEC §2.6). Never cached.',
  fields: (t) => ({
    positionId: t.exposeString('positionId'),
    strategyHash: t.exposeString('strategyHash'),
    status: t.exposeString('status', { description: '`prepared`, `shipped`, `filled` or `docked`.' }),
    chain: t.exposeString('chain'),
    chainId: t.exposeInt('chainId'),
    wallet: t.exposeString('wallet'),
    tokenA: t.field({ type: StatusToken, resolve: (p) => p.tokenA }),
    tokenB: t.field({ type: StatusToken, resolve: (p) => p.tokenB }),
    makerFeeBps: t.exposeInt('makerFeeBps', { nullable: true }),
    protocolFeeBps: t.exposeInt('protocolFeeBps'),
    observedOnChain: t.exposeBoolean('observedOnChain'),
    volumeUsd: t.exposeFloat('volumeUsd', { nullable: true }),
    preparedAt: t.field({ type: 'DateTime', resolve: (p) => p.preparedAt }),
    firstSeenOnChainAt: t.field({ type: 'DateTime', nullable: true, resolve: (p) => p.firstSeenOnChainAt }),
    firstSeenFilledAt: t.field({ type: 'DateTime', nullable: true, resolve: (p) => p.firstSeenFilledAt }),
    firstSeenDockedAt: t.field({ type: 'DateTime', nullable: true, resolve: (p) => p.firstSeenDockedAt }),
    health: t.field({ type: PositionHealth, nullable: true, resolve: (p) => p.health }),
    signer: t.exposeString('signer'),
    checkedAt: t.field({ type: 'DateTime', resolve: (p) => p.checkedAt }),
    timestampsMeaning: t.exposeString('timestampsMeaning'),
  }),
});

builder.mutationField('preparePosition', (t) =>
  t.field({
    type: PreparedPosition,
    description:
      'Prepares the unsigned transactions of a new position for the calling API key (POST /v1/positions). ' +
      'Uses the Idempotency-Key of the context when given.',
    args: { input: t.arg({ type: PreparePositionInput, required: true }) },
    resolve: (_root, { input }, ctx) =>
      preparePosition(ctx, {
        ...input,
        metadata: (input.metadata ?? null) as Record<string, string> | null,
      }),
  }),
);

builder.queryField('position', (t) =>
  t.field({
    type: PositionStatus,
    description: 'A position prepared by the calling API key (GET /v1/positions/{positionId}).',
    args: { positionId: t.arg.string({ required: true }) },
    resolve: (_root, { positionId }, ctx) => positionStatus(ctx, positionId),
  }),
);

builder.mutationField('preparePositionApprovals', (t) =>
  t.field({
    type: PositionAction,
    description:
      "The approve steps that restore the wallet's coverage for a position of the calling key, or none (POST /v1/positions/{positionId}/approvals).",
    args: {
      positionId: t.arg.string({ required: true }),
      approval: t.arg({ type: ApprovalMode, required: false, defaultValue: 'exact' }),
    },
    resolve: (_root, { positionId, approval }, ctx) =>
      preparePositionApprovals(ctx, positionId, approval ?? 'exact'),
  }),
);

builder.mutationField('preparePositionDock', (t) =>
  t.field({
    type: PositionAction,
    description:
      'The unsigned dock of an active position of the calling key (POST /v1/positions/{positionId}/dock).',
    args: { positionId: t.arg.string({ required: true }) },
    resolve: (_root, { positionId }, ctx) => preparePositionDock(ctx, positionId),
  }),
);
