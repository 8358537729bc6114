import { z } from 'zod';
import { PROTOCOL_FEE_BPS } from '../../resolvers/positions/index.js';
import { positionRequestSchema } from '../../resolvers/positions/request.js';
import {
  PositionActionFieldsFragmentDoc,
  PositionStatusDocument,
  PreparedTransactionFieldsFragmentDoc,
  PreparePositionDocument,
} from '../generated/graphql.js';
import { fragmentSchema, operationSchema } from '../openapi/fromSelection.js';
import { address, baseUnits, component, dateTime, meta, readBody } from './common.js';

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

const feeBreakdown = component(
  'FeeBreakdown',
  z
    .object({
      protocolFeeBps: z
        .literal(PROTOCOL_FEE_BPS)
        .meta({ description: 'Fixed: 5000 on the 1e7 scale (0.05%).' }),
      protocolFeePercent: z.literal('0.05'),
      makerFeeBps: z.int().min(0).optional().meta({ description: 'As supplied by the caller.' }),
      makerFeePercent: z.string().optional(),
      totalFeePercent: z
        .string()
        .optional()
        .meta({ description: 'Protocol plus maker fee, as percentage text.' }),
      embeddedIn: z.literal('signed_order_data').optional(),
      removable: z.literal(false),
      explanation: z.string().optional(),
    })
    .meta({
      description:
        'The fees embedded in the signed order data; the protocol fee is not a separate transfer and no parameter removes it.',
    }),
);

/**
 * rest/operations/PreparePosition.graphql: the two times go to `meta`. SPEC §2.5 fixes the status and
 * the fee's constants, and keeps the members after the identity optional; metadata is echoed only when
 * given.
 */
export const preparedPosition = component(
  'PreparedPosition',
  operationSchema(PreparePositionDocument, ['preparePosition'], {
    omit: ['preparedAt', 'replayed'],
    replace: {
      status: z.literal('prepared'),
      transactions: z.array(preparedTransaction).min(1),
      fee: feeBreakdown,
      metadata: z
        .record(z.string(), z.string())
        .optional()
        .meta({ description: 'The request metadata, echoed.' }),
    },
    optional: [
      'chainId',
      'position',
      'preflight',
      'preflight.checks.detail',
      'preflight.issues',
      'idempotent',
    ],
  }),
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

const healthIssue = z
  .object({
    type: z.enum(['INSUFFICIENT_ALLOWANCE', 'INSUFFICIENT_BALANCE']),
    expected: baseUnits.meta({ description: "What the wallet's open positions need of the token." }),
    actual: baseUnits.meta({ description: 'What the wallet has (allowance to Aqua, or balance).' }),
    spender: address.nullable().meta({ description: 'Aqua for an allowance; null for a balance.' }),
    token: address,
  })
  .meta({ description: 'A shortfall, in the shape of the items of the error envelope issues[].' });

export const positionHealth = component(
  'PositionHealth',
  z
    .object({
      status: z.enum(['ok', 'at_risk', 'stalled']).meta({
        description:
          "ok: the wallet's allowance to Aqua and balance reach, for both tokens, the sum of the live virtual balances of all its active strategies on the chain. at_risk: they cover this position's own virtual balances but not that sum: fills of the wallet's other positions use up the same allowance, after which this one stalls. stalled: they are below this position's own virtual balance of a token: a swap drawing on the uncovered part reverts now (SafeTransferFromFailed) although a quote succeeds. POST /v1/positions/{positionId}/approvals prepares the fix.",
      }),
      spender: address.meta({ description: 'Aqua: the spender every position of the wallet draws on.' }),
      strategies: z.int().min(0).meta({
        description: "Active strategies of the wallet on this chain holding one of the position's tokens.",
      }),
      tokens: z.array(
        z.object({
          address,
          symbol: z.string().nullable(),
          allowance: baseUnits.meta({ description: "The wallet's allowance to Aqua." }),
          balance: baseUnits.meta({ description: "The wallet's balance." }),
          required: baseUnits.meta({
            description: "Sum of the token's live virtual balances over the wallet's active strategies.",
          }),
          requiredByPosition: baseUnits.meta({
            description: "This position's own live virtual balance of the token.",
          }),
        }),
      ),
      issues: z.array(healthIssue),
    })
    .meta({
      description:
        'Live coverage of a shipped position (read from the chain at each call, one multicall). Null before it is seen on chain, once docked, and while its chain cannot be read (the rest of the status is still answered).',
    }),
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
    fragments: { PreparedTransactionFields: preparedTransaction },
  }),
);

export const positionActionBody = component('PositionActionResponse', readBody(positionAction, prepareMeta));
