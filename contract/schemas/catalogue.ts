import { z } from 'zod';
import { STRATEGY_SORTS } from '../../resolvers/catalogue/params.js';
import {
  ChainsDocument,
  PairStatsFieldsFragmentDoc,
  StatsDocument,
  StrategyDetailDocument,
  StrategyListFieldsFragmentDoc,
  TokenPriceFieldsFragmentDoc,
} from '../../rest/generated/graphql.js';
import { fragmentSchema, operationSchema } from '../openapi/fromSelection.js';
import { address, component, componentName, meta, pageSchema, readBody } from './common.js';
import { decodedStrategy } from './program.js';

/**
 * Bodies of the catalogue's read paths (rest/routes/catalogue.ts): /api/stats,
 * /api/chains, /api/strategies and /api/strategy-detail (open bodies of SPEC §2.8: their objects
 * allow additional properties; the fields below are the ones this version sends).
 */

const pairStats = component('PairStats', fragmentSchema(PairStatsFieldsFragmentDoc));
const tokenPrice = component('TokenPrice', fragmentSchema(TokenPriceFieldsFragmentDoc));

/** rest/operations/Stats.graphql: the roll-up's two times go to `meta`, not to the body. */
export const stats = component(
  'Stats',
  operationSchema(StatsDocument, ['stats'], {
    omit: ['rollupUpdatedAt', 'dataAsOf'],
    fragments: { PairStatsFields: pairStats },
  }),
);

/** rest/operations/Chains.graphql: the route turns the tokens into a map by symbol; the times go to `meta`. */
export const chain = component(
  'Chain',
  operationSchema(ChainsDocument, ['chains'], {
    omit: ['rollupUpdatedAt', 'dataAsOf'],
    replace: {
      tokens: z
        .record(
          z.string(),
          z.object({
            address,
            decimals: z.int().min(0),
            price: tokenPrice.nullable().meta({
              description:
                'Its USD price and its source; null when nothing prices it (it then counts 0 USD, never 1).',
            }),
          }),
        )
        .meta({ description: 'Symbol → token. Live: never hardcode it.' }),
    },
  }),
);

/**
 * A strategy as the lists show it: rest/operations/StrategyListFields.graphql, the fields the detail
 * opens with (StrategyFields.graphql), then its state (which the detail gives later, by its liquidity).
 */
export const strategy = component('Strategy', fragmentSchema(StrategyListFieldsFragmentDoc));

/** The detail: rest/operations/StrategyDetail.graphql, with the decoding the route adds after the bytes. */
export const strategyDetail = component(
  'StrategyDetail',
  operationSchema(StrategyDetailDocument, ['strategy'], {
    present: ['firstSeenAt'],
    after: { strategy: { decoded: decodedStrategy } },
  }),
);

const page = pageSchema(
  'Pass as `cursor` (with the same `sort`) for the next page; null on the last page.',
).extend({ sort: z.enum(STRATEGY_SORTS) });

export const statsBody = component('StatsResponse', readBody(stats));
export const chainsBody = component(
  'ChainsResponse',
  z.looseObject({ data: z.looseObject({ chains: z.array(chain) }), meta }),
);
export const strategyDetailBody = component(
  'StrategyDetailResponse',
  z.looseObject({ data: strategyDetail, meta }),
);

/** The five shapes of /api/strategies, each a component a generated client names, told apart by `resource`. */
const listResource = component(
  'StrategyListResource',
  z.looseObject({
    resource: z.literal('list'),
    filters: z.object({ chain: z.string().nullable(), pair: z.string().nullable() }),
    strategies: z.array(strategy),
    page,
  }),
);
const searchResource = component(
  'StrategySearchResource',
  z.looseObject({
    resource: z.literal('search'),
    query: z
      .object({
        q: z.string(),
        chains: z.array(z.string()),
        symbols: z.array(z.string()),
        unmatched: z.array(z.string()).meta({ description: 'Words that name no chain and no token.' }),
      })
      .meta({ description: 'How the search text was read.' }),
    strategies: z.array(strategy),
    page,
  }),
);
const detailResource = component(
  'StrategyDetailResource',
  z.looseObject({ resource: z.literal('detail'), strategy: strategyDetail }),
);
const chainsResource = component(
  'ChainsResource',
  z.looseObject({ resource: z.literal('chains'), chains: z.array(chain) }),
);
const statsResource = component('StatsResource', z.looseObject({ resource: z.literal('stats'), stats }));
const RESOURCE_SHAPES = [
  listResource,
  searchResource,
  detailResource,
  chainsResource,
  statsResource,
] as const;

export const strategiesBody = component(
  'StrategiesResponse',
  z.looseObject({
    data: z.discriminatedUnion('resource', [...RESOURCE_SHAPES]).meta({
      description: 'One shape per `resource`, named by `data.resource`.',
      discriminator: {
        propertyName: 'resource',
        mapping: Object.fromEntries(
          RESOURCE_SHAPES.map((shape) => [
            shape.shape.resource.value,
            `#/components/schemas/${componentName(shape)}`,
          ]),
        ),
      },
    }),
    meta,
  }),
);
