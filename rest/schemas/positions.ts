import { z } from 'zod';
import { PROTOCOL_FEE_BPS } from '../../resolvers/positions/index.js';
import { positionRequestSchema } from '../../resolvers/positions/request.js';
import { address, baseUnits, component, dateTime, hash32, meta, readBody } from './common.js';

/**
 * POST /v1/positions (request SPEC §2.4: `positionRequestSchema`, the one the route parses with;
 * response SPEC §2.5) and GET /v1/positions/{positionId}.
 */

// Inline in the operation, not a component: generated clients (openapi-typescript) keep a field with a
// default optional only inside a requestBody; as a component it would be demanded.
export const positionRequest = positionRequestSchema;

export const preparedTransaction = component(
  'PreparedTransaction',
  z
    .object({
      step: z.int().min(1).meta({ description: '1-based; execute in this order.' }),
      purpose: z.enum(['approve', 'ship', 'swap', 'dock']),
      to: address.meta({ description: 'Target contract.' }),
      value: baseUnits.meta({ description: 'Native value in wei; almost always "0".' }),
      data: z
        .string()
        .regex(/^0x[0-9a-fA-F]*$/)
        .meta({ description: 'Calldata: the payload to sign.' }),
      description: z.string().optional().meta({ description: 'Plain language, for a human approver.' }),
    })
    .meta({ description: 'One unsigned transaction for the wallet to sign and send, in step order.' }),
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

const positionToken = z.object({ symbol: z.string(), address, amount: baseUnits, decimals: z.int().min(0) });

export const preparedPosition = component(
  'PreparedPosition',
  z
    .object({
      status: z.literal('prepared'),
      chain: z.string(),
      chainId: z.int().optional(),
      wallet: address.meta({ description: 'The address that must sign, echoed back.' }),
      strategyHash: hash32.meta({
        description: "keccak256 of the order to be signed: the position's identity (its positionId).",
      }),
      transactions: z.array(preparedTransaction).min(1),
      fee: feeBreakdown,
      position: z
        .object({
          tokenA: positionToken.meta({ description: 'The token with the lower address.' }),
          tokenB: positionToken,
          impliedRate: z.number().nullable().meta({
            description: 'amountA / amountB in whole tokens; a sanity check, not used in the order.',
          }),
          programBytes: z
            .int()
            .min(0)
            .meta({ description: 'Size of the strategy program that carries the fee.' }),
        })
        .optional(),
      preflight: z
        .object({
          status: z.enum(['ready', 'review']).meta({ description: '`review`: at least one check failed.' }),
          checks: z.array(
            z.object({
              name: z.string().meta({
                description:
                  'wallet_valid, tokens_sorted, both_amounts_positive, fees_wiring; balance_a and balance_b with checkBalances.',
              }),
              ok: z.boolean(),
              detail: z.string().nullable().optional(),
            }),
          ),
          issues: z
            .array(
              z.object({
                type: z.enum(['INSUFFICIENT_BALANCE', 'INSUFFICIENT_ALLOWANCE']),
                expected: baseUnits,
                actual: baseUnits,
                spender: address.nullable(),
                token: z.string(),
              }),
            )
            .optional()
            .meta({ description: 'Client-fixable problems the transactions alone do not solve.' }),
        })
        .optional(),
      idempotent: z.boolean().optional().meta({ description: 'True when an Idempotency-Key was supplied.' }),
      metadata: z
        .record(z.string(), z.string())
        .optional()
        .meta({ description: 'The request metadata, echoed.' }),
    })
    .meta({ description: 'The ordered, UNSIGNED transactions that create a position.' }),
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

const statusToken = z.object({
  symbol: z.string().nullable(),
  address,
  amount: baseUnits,
  decimals: z.int().min(0).nullable(),
});

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

export const positionStatus = component(
  'PositionStatus',
  z
    .object({
      positionId: hash32.meta({ description: 'Same value as strategyHash.' }),
      strategyHash: hash32,
      status: z.enum(['prepared', 'shipped', 'filled', 'docked']).meta({
        description:
          'prepared: nothing seen on chain yet; shipped: the strategy is in the live catalogue; filled: it has settled volume; docked: its maker closed it (a value added later: handle values you do not know).',
      }),
      chain: z.string().optional(),
      chainId: z.int().optional(),
      wallet: address.optional(),
      tokenA: statusToken.optional(),
      tokenB: statusToken.optional(),
      makerFeeBps: z.int().min(0).nullable().optional(),
      protocolFeeBps: z.int().min(0).optional(),
      observedOnChain: z.boolean().optional(),
      volumeUsd: z.number().nullable().optional(),
      preparedAt: dateTime.optional(),
      firstSeenOnChainAt: dateTime.nullable().optional(),
      firstSeenFilledAt: dateTime.nullable().optional(),
      firstSeenDockedAt: dateTime.nullable().optional().meta({
        description: 'When the service first observed the position docked; null otherwise.',
      }),
      health: positionHealth.nullable().optional(),
      signer: z.string().optional(),
    })
    .meta({
      description:
        'What the service has observed of a position the calling key prepared. `firstSeen*` record when the service observed a state, not when it happened.',
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

export const positionAction = component(
  'PositionAction',
  z
    .object({
      positionId: hash32,
      strategyHash: hash32,
      chain: z.string(),
      chainId: z.int(),
      wallet: address.meta({ description: "The position's wallet: the one that must sign." }),
      transactions: z.array(preparedTransaction),
    })
    .meta({ description: "Unsigned transactions for the position's wallet, in step order." }),
);

export const positionActionBody = component('PositionActionResponse', readBody(positionAction, prepareMeta));
