import { z } from 'zod';
import { positionRequestSchema } from '../../resolvers/positions/request.js';
import {
  BundleSimulationFieldsFragmentDoc,
  PositionActionFieldsFragmentDoc,
  PositionStatusDocument,
  PreparedTransactionFieldsFragmentDoc,
  PreparePositionDocument,
  RebalancePositionDocument,
} from '../../rest/generated/graphql.js';
import { fragmentSchema, operationSchema } from '../openapi/fromSelection.js';
import { address, component, dateTime, meta, readBody } from './common.js';

/**
 * POST /v1/positions (request SPEC §2.4: `positionRequestSchema`, the one the route parses with;
 * response SPEC §2.5) and GET /v1/positions/{positionId}.
 */

// Inline in the operation, not a component: generated clients (openapi-typescript) keep a field with a
// default optional only inside a requestBody; as a component it would be demanded.
export const positionRequest = positionRequestSchema;

/** rest/operations/PreparedTransactionFields.graphql; SPEC keeps `description` optional. */
export const preparedTransaction = component(
  'PreparedTransaction',
  fragmentSchema(PreparedTransactionFieldsFragmentDoc, { optional: ['description'] }),
);

/** rest/operations/BundleSimulationFields.graphql: the answer of `simulate` on every prepared path. */
export const bundleSimulation = component(
  'BundleSimulation',
  fragmentSchema(BundleSimulationFieldsFragmentDoc),
);

/** rest/operations/PreparePosition.graphql: the fee, a component; SPEC §2.5 keeps the words optional. */
const feeBreakdown = component(
  'FeeBreakdown',
  operationSchema(PreparePositionDocument, ['preparePosition', 'fee'], {
    optional: ['makerFeeBps', 'makerFeePercent', 'totalFeePercent', 'embeddedIn', 'explanation'],
  }),
);

/**
 * rest/operations/PreparePosition.graphql: the two times go to `meta`. SPEC §2.5 fixes the status and
 * the fee's constants, and keeps the members after the identity optional; metadata is echoed only when
 * given.
 */
/** What both a prepare and a rebalance answer publish of PreparedPositionFields. */
const preparedOptions = {
  omit: ['preparedAt', 'replayed'],
  replace: {
    status: z.literal('prepared'),
    transactions: z.array(preparedTransaction).min(1),
    fee: feeBreakdown,
  },
  // Echoed only when given: the route drops a null metadata rather than publishing it; likewise the
  // simulation's members without `simulate`.
  present: ['metadata', 'preflight.simulation', 'simulation'],
  optional: [
    'chainId',
    'position',
    'preflight',
    'preflight.checks.detail',
    'preflight.issues',
    'preflight.simulation',
    'idempotent',
    'metadata',
    'simulation',
  ],
  fragments: { BundleSimulationFields: bundleSimulation },
};

export const preparedPosition = component(
  'PreparedPosition',
  operationSchema(PreparePositionDocument, ['preparePosition'], preparedOptions),
);

/** rest/operations/RebalancePosition.graphql: a prepared position that names the one it replaces. */
export const rebalancedPosition = component(
  'RebalancedPosition',
  operationSchema(RebalancePositionDocument, ['rebalancePosition'], preparedOptions),
);

export const prepareMeta = component(
  'PrepareMeta',
  meta.extend({
    preparedAt: dateTime,
    note: z.string().meta({ description: 'States that nothing has been signed or broadcast.' }),
    replayed: z.boolean().optional().meta({
      description: 'True when this is the stored answer of an earlier call with the same Idempotency-Key.',
    }),
  }),
);

export const preparedBody = component('PrepareResponse', readBody(preparedPosition, prepareMeta));
export const rebalancedBody = component('RebalanceResponse', readBody(rebalancedPosition, prepareMeta));

/**
 * rest/operations/PositionStatus.graphql: the live health, a component of its own. Its issues publish
 * the token as an address; the prepared position's preflight issues (same graph type) never did.
 */
export const positionHealth = component(
  'PositionHealth',
  operationSchema(PositionStatusDocument, ['position', 'health'], { replace: { 'issues.token': address } }),
);

/**
 * rest/operations/PositionStatus.graphql: the reading's time and the meaning of the timestamps go to
 * `meta`. SPEC §2.6 keeps every member but the identity and the status optional.
 */
export const positionStatus = component(
  'PositionStatus',
  operationSchema(PositionStatusDocument, ['position'], {
    omit: ['checkedAt', 'timestampsMeaning'],
    optional: [
      'chain',
      'chainId',
      'wallet',
      'tokenA',
      'tokenB',
      'makerFeeBps',
      'protocolFeeBps',
      'observedOnChain',
      'volumeUsd',
      'preparedAt',
      'firstSeenOnChainAt',
      'firstSeenFilledAt',
      'firstSeenDockedAt',
      'signer',
    ],
    replace: { health: positionHealth.nullable().optional() },
  }),
);

export const statusMeta = component(
  'PositionStatusMeta',
  meta.extend({
    checkedAt: dateTime,
    timestampsMeaning: z.string(),
  }),
);

export const positionStatusBody = component('PositionStatusResponse', readBody(positionStatus, statusMeta));

/** rest/operations/PositionActionFields.graphql: `preparedAt` goes to `meta`. */
export const positionAction = component(
  'PositionAction',
  fragmentSchema(PositionActionFieldsFragmentDoc, {
    omit: ['preparedAt'],
    // With `simulate` only: the route drops them when null.
    present: ['preflight', 'simulation'],
    optional: ['preflight', 'simulation'],
    fragments: { PreparedTransactionFields: preparedTransaction, BundleSimulationFields: bundleSimulation },
  }),
);

export const positionActionBody = component('PositionActionResponse', readBody(positionAction, prepareMeta));
