import { PREPARE_NOTE } from '../../resolvers/positions.js';
import { PositionStatusDocument, PreparePositionDocument } from '../generated/graphql.js';
import { parseIdempotencyKey, parsePositionId, parsePositionRequest } from '../positionRequest.js';
import { type RestRoute, readBody } from '../route.js';

/**
 * POST /v1/positions (SPEC §4.9) and GET /v1/positions/{positionId} (SPEC §4.10). Key, scope, origin
 * and the per-key bucket are checked by rest/app.ts; here the header and body are validated (400
 * naming the field) before the persisted operation runs. Chain, key environment and token support
 * are decided by the resolver (422 / 403), still before any SQL or RPC.
 */
const TOKEN_FIELDS = ['symbol', 'address', 'amount', 'decimals'] as const;

/** The fields in the documented order: the persisted manifest stores selections sorted by name. */
function pick<T extends object, K extends keyof T>(value: T, keys: readonly K[]): Pick<T, K> {
  const out = {} as Pick<T, K>;
  for (const key of keys) out[key] = value[key];
  return out;
}

export const positionRoutes: RestRoute[] = [
  {
    method: 'POST',
    path: '/v1/positions',
    bucket: 'prepare',
    auth: { scope: 'prepare' },
    body: true,
    async handle(ctx) {
      const idempotencyKey = parseIdempotencyKey(ctx.req.headers['idempotency-key']);
      const request = parsePositionRequest(ctx.req.body);
      const result = await ctx.operations.run(
        PreparePositionDocument,
        { input: request },
        ctx.graphql({ idempotencyKey }),
      );
      const p = result.preparePosition;
      // SPEC §2.5 field order (the persisted document's selection order is not kept by its manifest).
      const data = {
        status: p.status,
        chain: p.chain,
        chainId: p.chainId,
        wallet: p.wallet,
        strategyHash: p.strategyHash,
        transactions: p.transactions.map((t) =>
          pick(t, ['step', 'purpose', 'to', 'value', 'data', 'description']),
        ),
        fee: pick(p.fee, [
          'protocolFeeBps',
          'protocolFeePercent',
          'makerFeeBps',
          'makerFeePercent',
          'totalFeePercent',
          'embeddedIn',
          'removable',
          'explanation',
        ]),
        position: {
          tokenA: pick(p.position.tokenA, TOKEN_FIELDS),
          tokenB: pick(p.position.tokenB, TOKEN_FIELDS),
          impliedRate: p.position.impliedRate,
          programBytes: p.position.programBytes,
        },
        preflight: {
          status: p.preflight.status,
          checks: p.preflight.checks.map((c) => pick(c, ['name', 'ok', 'detail'])),
          issues: p.preflight.issues.map((i) => pick(i, ['type', 'expected', 'actual', 'spender', 'token'])),
        },
        idempotent: p.idempotent,
        ...(p.metadata === null || p.metadata === undefined ? {} : { metadata: p.metadata }),
      };
      const { preparedAt, replayed } = p;
      return { body: readBody(ctx, data, { preparedAt, note: PREPARE_NOTE, replayed }) };
    },
  },
  {
    method: 'GET',
    path: '/v1/positions/:positionId',
    bucket: 'positions',
    auth: { scope: null },
    async handle(ctx) {
      const positionId = parsePositionId(ctx.req.params.positionId);
      const result = await ctx.operations.run(PositionStatusDocument, { positionId }, ctx.graphql());
      const { checkedAt, timestampsMeaning, ...rest } = result.position;
      const status = {
        positionId: rest.positionId,
        strategyHash: rest.strategyHash,
        status: rest.status,
        chain: rest.chain,
        chainId: rest.chainId,
        wallet: rest.wallet,
        tokenA: pick(rest.tokenA, TOKEN_FIELDS),
        tokenB: pick(rest.tokenB, TOKEN_FIELDS),
        makerFeeBps: rest.makerFeeBps,
        protocolFeeBps: rest.protocolFeeBps,
        observedOnChain: rest.observedOnChain,
        volumeUsd: rest.volumeUsd,
        preparedAt: rest.preparedAt,
        firstSeenOnChainAt: rest.firstSeenOnChainAt,
        firstSeenFilledAt: rest.firstSeenFilledAt,
        signer: rest.signer,
      };
      return {
        body: readBody(ctx, status, { checkedAt, timestampsMeaning }),
        headers: { 'Cache-Control': 'no-store' },
      };
    },
  },
];
