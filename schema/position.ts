/**
 * A prepared position once the service tracks it: its status and live health (GET
 * /v1/positions/{positionId}) and the maker's actions on it (approvals, dock).
 */

import { walletCalls } from '../domain/walletCalls.js';
import {
  type HealthToken as HealthTokenShape,
  type PositionAction as PositionActionShape,
  type PositionHealth as PositionHealthShape,
  type PositionStatus as PositionStatusShape,
  positionStatus,
  preparePositionApprovals,
  preparePositionDock,
} from '../resolvers/positions/index.js';
import { builder } from './builder.js';
import { BundleSimulation, SIMULATION_DESCRIPTION, SimulationPreflight } from './bundleSimulation.js';
import { PositionHealthStatus } from './enums.js';
import { ObservedPositionRef } from './observedPosition.js';
import { ApprovalMode, PreparedTransaction, WalletIssue } from './preparedPosition.js';
import { as } from './valueFormats.js';
import { WalletCallBundle } from './walletCalls.js';

const HealthToken = builder.objectRef<HealthTokenShape>('PositionHealthToken').implement({
  description:
    'One token of a position: what the wallet holds and allows against what its strategies need, base units.',
  fields: (t) => ({
    address: t.exposeString('address', {
      description: 'Token contract address, checksummed.',
      extensions: as('address'),
    }),
    symbol: t.exposeString('symbol', { nullable: true, description: 'Token symbol; null when not listed.' }),
    allowance: t.exposeString('allowance', {
      description: "The wallet's allowance to Aqua.",
      extensions: as('baseUnits'),
    }),
    balance: t.exposeString('balance', { description: "The wallet's balance.", extensions: as('baseUnits') }),
    required: t.exposeString('required', {
      description: "Sum of the token's live virtual balances over the wallet's active strategies.",
      extensions: as('baseUnits'),
    }),
    requiredByPosition: t.exposeString('requiredByPosition', {
      description: "This position's own live virtual balance of the token.",
      extensions: as('baseUnits'),
    }),
  }),
});

const PositionHealth = builder.objectRef<PositionHealthShape>('PositionHealth').implement({
  description:
    'Live coverage of a shipped position (read from the chain at each call, one multicall). Null before it is seen on chain, once docked, and while its chain cannot be read (the rest of the status is still answered).',
  fields: (t) => ({
    status: t.expose('status', {
      type: PositionHealthStatus,
      description:
        "Whether the wallet's allowance to Aqua and balance reach, for both tokens, the sum of the live virtual balances of all its active strategies on the chain (ok); only this position's own virtual balances (at_risk: fills of the wallet's other positions use up the same allowance, after which this one stalls); or not even those (stalled: a swap drawing on the uncovered part reverts now, SafeTransferFromFailed, although a quote succeeds). POST /v1/positions/{positionId}/approvals prepares the fix.",
    }),
    spender: t.exposeString('spender', {
      description: 'Aqua: the spender every position of the wallet draws on.',
      extensions: as('address'),
    }),
    strategies: t.exposeInt('strategies', {
      description: "Active strategies of the wallet on this chain holding one of the position's tokens.",
      extensions: as('count'),
    }),
    tokens: t.field({
      type: [HealthToken],
      resolve: (h) => h.tokens,
      description: 'Both tokens of the position.',
    }),
    issues: t.field({
      type: [WalletIssue],
      resolve: (h) => h.issues,
      description:
        'Shortfalls of the wallet, in the shape of the items of the error envelope issues[]; empty when status is ok.',
    }),
  }),
});

const PositionAction = builder.objectRef<PositionActionShape>('PositionAction').implement({
  description:
    "Unsigned transactions for a position's wallet (top-up approvals, dock). Nothing is signed or broadcast.",
  fields: (t) => ({
    positionId: t.exposeString('positionId', {
      description: 'The position acted on (its strategy hash).',
      extensions: as('hash32'),
    }),
    strategyHash: t.exposeString('strategyHash', {
      description: "The position's strategy hash.",
      extensions: as('hash32'),
    }),
    chain: t.exposeString('chain', { description: 'Chain key.' }),
    chainId: t.exposeInt('chainId', { description: 'EVM chain id the transactions are for.' }),
    wallet: t.exposeString('wallet', {
      description: "The position's wallet, checksummed: the one that must sign.",
      extensions: as('address'),
    }),
    transactions: t.field({
      type: [PreparedTransaction],
      resolve: (p) => p.transactions,
      description: 'The steps to sign and send, in order; empty when nothing is needed.',
    }),
    calls: t.field({
      type: WalletCallBundle,
      nullable: true,
      description: 'The same steps as one EIP-5792 `wallet_sendCalls` bundle; null when there is no step.',
      // A wallet refuses wallet_sendCalls with no calls: nothing to send is no bundle.
      resolve: (p) => (p.transactions.length === 0 ? null : walletCalls(p.chainId, p.wallet, p.transactions)),
    }),
    preparedAt: t.field({ type: 'DateTime', resolve: (p) => p.preparedAt, description: 'When prepared.' }),
    preflight: t.field({
      type: SimulationPreflight,
      nullable: true,
      resolve: (p) => p.preflight ?? null,
      description: 'With `simulate` only (absent otherwise): whether the bundle was simulated.',
    }),
    simulation: t.field({
      type: BundleSimulation,
      nullable: true,
      resolve: (p) => p.simulation ?? null,
      description: SIMULATION_DESCRIPTION,
    }),
  }),
});

const PositionStatus = builder.objectRef<PositionStatusShape>('PositionStatus').implement({
  description: 'What the service has observed of a position it prepared (SPEC §2.6). Never cached.',
  interfaces: [ObservedPositionRef],
  fields: (t) => ({
    health: t.field({
      type: PositionHealth,
      nullable: true,
      resolve: (p) => p.health,
      description:
        'Live wallet coverage while shipped or filled; null before it ships, once docked, or when the chain cannot answer.',
    }),
    signer: t.exposeString('signer', {
      description: 'Who signs: always the client; the service never signs or holds funds.',
    }),
    checkedAt: t.field({
      type: 'DateTime',
      resolve: (p) => p.checkedAt,
      description: 'When this answer was computed (now: never cached).',
    }),
    timestampsMeaning: t.exposeString('timestampsMeaning', {
      description: 'A reminder that firstSeen* times are when the service observed a state, not chain times.',
    }),
  }),
});

builder.queryField('position', (t) =>
  t.field({
    type: PositionStatus,
    description: 'A position prepared by the calling API key (GET /v1/positions/{positionId}).',
    args: {
      positionId: t.arg.string({ required: true, description: 'The position id (its strategy hash).' }),
    },
    resolve: (_root, { positionId }, ctx) => positionStatus(ctx, positionId),
  }),
);

const SIMULATE_ARG = {
  required: false,
  description: 'True: the steps run in one eth_simulateV1 and the answer carries `simulation`.',
} as const;

builder.mutationField('preparePositionApprovals', (t) =>
  t.field({
    type: PositionAction,
    description:
      "The approve steps that restore the wallet's coverage for a position of the calling key, or none (POST /v1/positions/{positionId}/approvals).",
    args: {
      positionId: t.arg.string({ required: true, description: 'The position id (its strategy hash).' }),
      approval: t.arg({
        type: ApprovalMode,
        required: false,
        defaultValue: 'exact',
        description: 'How far each approve raises the allowance.',
      }),
      simulate: t.arg.boolean(SIMULATE_ARG),
    },
    resolve: (_root, { positionId, approval, simulate }, ctx) =>
      preparePositionApprovals(ctx, positionId, approval ?? 'exact', simulate ?? false),
  }),
);

builder.mutationField('preparePositionDock', (t) =>
  t.field({
    type: PositionAction,
    description:
      'The unsigned dock of an active position of the calling key (POST /v1/positions/{positionId}/dock).',
    args: {
      positionId: t.arg.string({ required: true, description: 'The position id (its strategy hash).' }),
      simulate: t.arg.boolean(SIMULATE_ARG),
    },
    resolve: (_root, { positionId, simulate }, ctx) =>
      preparePositionDock(ctx, positionId, simulate ?? false),
  }),
);
