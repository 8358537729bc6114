import { ApiError } from '../../lib/errors.js';
import { parseAddressList } from '../../resolvers/pilot.js';
import { DemoBalancesDocument, PilotDocument } from '../generated/graphql.js';
import { type RestRoute, readBody } from '../route.js';
import { requireOperatorOrigin } from '../sameOrigin.js';

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

/** The test-network demo (SPEC §4.7, §4.8): operator pages only, tight buckets, open bodies. */
export const pilotRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/api/pilot',
    bucket: 'pilot',
    async handle(ctx) {
      requireOperatorOrigin(ctx.req, ctx.res, ctx.services.config);
      const { pilot } = await ctx.operations.run(PilotDocument, {}, ctx.graphql());
      const { cached, ...data } = pilot;
      const age = Math.max(0, Math.round((Date.now() - Date.parse(data.observedAt)) / 1000));
      return { body: readBody(ctx, data, { cached, freshnessSeconds: age }) };
    },
  },
  {
    method: 'GET',
    path: '/api/balances',
    bucket: 'balances',
    async handle(ctx) {
      requireOperatorOrigin(ctx.req, ctx.res, ctx.services.config);
      const addresses = parseAddressList(addressesParameter(ctx.req.query.addresses));
      const { demoBalances } = await ctx.operations.run(DemoBalancesDocument, { addresses }, ctx.graphql());
      return { body: readBody(ctx, demoBalances) };
    },
  },
];
