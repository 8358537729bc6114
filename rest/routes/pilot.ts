import { z } from 'zod';
import { balancesBody, pilotBody } from '../../contract/schemas/demo.js';
import { ApiError } from '../../lib/errors.js';
import { MAX_BALANCE_ADDRESSES, parseAddressList } from '../../resolvers/balances.js';
import { DemoBalancesDocument, PilotDocument } from '../generated/graphql.js';
import { operationRoute } from '../operationRoute.js';
import { type RestRoute, type RouteContext, readBody } from '../route.js';
import { requireOperatorOrigin } from '../sameOrigin.js';

/** The documented form of `addresses` (addressesParameter and parseAddressList decide). */
const ADDRESS = '\\s*0x[0-9a-fA-F]{40}\\s*';
const addressesDoc = z
  .string()
  .regex(new RegExp(`^${ADDRESS}(?:,${ADDRESS}){0,${MAX_BALANCE_ADDRESSES - 1}}$`))
  .meta({
    examples: ['0x70997970C51812dc3A010C7d01b50e0d17dc79C8,0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC'],
  });

/** The test-network demo (SPEC §4.7, §4.8): operator pages only, tight buckets, open bodies. */
const operatorOnly = (ctx: RouteContext) => requireOperatorOrigin(ctx.req, ctx.res, ctx.services.config);

const demoHeaders = { 'Cache-Control': {}, Vary: {}, 'Access-Control-Allow-Origin': {} };

/** `addresses`: one comma-separated string (a repeated parameter is read as one list). */
function addressesParameter(value: unknown): string[] {
  if (value === undefined)
    throw ApiError.invalid('addresses', 'addresses is required: 1 to 10 comma-separated addresses.');
  const parts = Array.isArray(value) ? value : [value];
  if (!parts.every((p): p is string => typeof p === 'string')) {
    throw ApiError.invalid('addresses', 'addresses must be a comma-separated list of addresses.');
  }
  const joined = parts.join(',');
  return joined.trim() === '' ? [] : joined.split(',');
}

export const pilotRoutes: RestRoute[] = [
  operationRoute({
    method: 'GET',
    path: '/api/pilot',
    bucket: 'pilot',
    doc: {
      operationId: 'getPilot',
      response: pilotBody,
      responseHeaders: demoHeaders,
    },
    guard: operatorOnly,
    operation: PilotDocument,
    variables: () => ({}),
    answer: (ctx, { pilot }) => {
      const { cached, ...data } = pilot;
      const age = Math.max(0, Math.round((Date.now() - Date.parse(data.observedAt)) / 1000));
      return { body: readBody(ctx, data, { cached, freshnessSeconds: age }) };
    },
  }),
  operationRoute({
    method: 'GET',
    path: '/api/balances',
    bucket: 'balances',
    doc: {
      operationId: 'getDemoBalances',
      descriptionValues: { MAX_BALANCE_ADDRESSES },
      query: z.object({ addresses: addressesDoc }),
      response: balancesBody,
      responseHeaders: demoHeaders,
    },
    guard: operatorOnly,
    operation: DemoBalancesDocument,
    variables: (ctx) => ({ addresses: parseAddressList(addressesParameter(ctx.req.query.addresses)) }),
    answer: (ctx, { demoBalances }) => ({ body: readBody(ctx, demoBalances) }),
  }),
];
