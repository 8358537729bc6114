import { z } from 'zod';
import {
  chainsBody,
  statsBody,
  strategiesBody,
  strategyDetailBody,
} from '../../contract/schemas/catalogue.js';
import { ApiError } from '../../lib/errors.js';
import { listStrategies, type StrategyConnection } from '../../resolvers/catalogue/list.js';
import { DEFAULT_LIMIT, MAX_LIMIT, PROGRAM_KINDS, STRATEGY_SORTS } from '../../resolvers/catalogue/params.js';
import { searchStrategies } from '../../resolvers/catalogue/search.js';
import { summarise } from '../../resolvers/catalogue/summary.js';
import { nextCursorOf } from '../../resolvers/connection.js';
import type { GraphQLContext } from '../../resolvers/context.js';
import {
  chainKey,
  oneOf,
  pageCursor,
  pageLimit,
  queryOf,
  strategyHash,
  strategyHashParam,
} from '../parameters.js';
import { queryText } from '../queryValues.js';
import { responseCacheFor, serialisedReadBody } from '../responseCache.js';
import { queryParam, type RestRoute, type RouteContext, type RouteResult, readBody } from '../route.js';
import { chainsData, STATS_KEY, statsData, strategyDetail, strategyDetailData } from './catalogueData.js';

/**
 * The catalogue's read paths (SPEC §4.1–4.3, §4.5): /api/stats, /api/chains, /api/strategies and
 * /api/strategy-detail. Each runs a persisted operation (rest/operations) and shapes its result; every
 * body is `{ data, meta }`. Their parameters, bodies, caching and limits are described once, in
 * docs/api/catalogue.md and the operations' selections over the schema (the published OpenAPI document).
 */

export const RESOURCES = ['list', 'search', 'detail', 'chains', 'stats'] as const;
type Resource = (typeof RESOURCES)[number];

const parameters = {
  resource: oneOf('resource', RESOURCES),
  q: queryText('q', 100),
  pair: queryText('pair', 65).regex(
    /^[^/]+\/[^/]+$/,
    'pair must be two token symbols separated by "/", e.g. USDC/USDT.',
  ),
  chain: chainKey(),
  limit: pageLimit(MAX_LIMIT),
  cursor: pageCursor(),
  sort: oneOf('sort', STRATEGY_SORTS),
  kind: oneOf('kind', PROGRAM_KINDS),
  hash: strategyHash(),
};

type Name = keyof typeof parameters;
type Value<K extends Name> = z.infer<(typeof parameters)[K]>;

/** Which parameters each resource takes; `resource` itself is always allowed. */
const ACCEPTS: Record<Resource, readonly Name[]> = {
  list: ['chain', 'pair', 'kind', 'limit', 'cursor', 'sort'],
  search: ['q', 'limit', 'cursor', 'sort'],
  detail: ['hash', 'chain'],
  chains: [],
  stats: [],
};

function param<K extends Name>(ctx: RouteContext, name: K, required = false): Value<K> | undefined {
  return queryParam(ctx, parameters, name, required);
}

// ---------------------------------------------------------------------------------------------------
// Stats (cached: catalogueData.ts)

const statsRoute: RestRoute = {
  method: 'GET',
  path: '/api/stats',
  bucket: 'stats',
  doc: {
    operationId: 'getStats',
    response: statsBody,
  },
  async handle(ctx) {
    // The hit path: a map lookup and one concatenation (bench/stats.ts holds it to express's speed).
    const local = responseCacheFor(ctx.services).peek(STATS_KEY);
    if (local)
      return {
        body: serialisedReadBody(ctx, local.data, { rollupAt: local.rollupAt, cached: true }),
        cachedData: local.data,
      };
    const { data, rollupAt, cached } = await statsData(ctx);
    return { body: serialisedReadBody(ctx, data, { rollupAt, cached }), cachedData: data };
  },
};

// ---------------------------------------------------------------------------------------------------
// Chains (cached: catalogueData.ts)

const chainsRoute: RestRoute = {
  method: 'GET',
  path: '/api/chains',
  bucket: 'chains',
  doc: {
    operationId: 'getChains',
    response: chainsBody,
  },
  async handle(ctx) {
    const { data, rollupAt, cached } = await chainsData(ctx);
    return { body: serialisedReadBody(ctx, data, { rollupAt, cached }), cachedData: data };
  },
};

// ---------------------------------------------------------------------------------------------------
// Strategies

/**
 * The body of a page of strategies: `data` { resource, <what selected it>, strategies, page }. The
 * strategies are serialised once from the store's rendered entries (resolvers/catalogue/summary.ts
 * `summarise`) and spliced in, not re-encoded. The two lists are the one REST read not run as a
 * persisted operation: the graph serves these pages as typed connections, walking ~30 fields per
 * strategy, where the REST body is the entries the store already rendered.
 */
type Paging = { limit?: number; cursor?: string; sort?: (typeof STRATEGY_SORTS)[number] };

/** The paging parameters of the list and the search, as given. */
const pagingOf = (ctx: RouteContext): Paging => ({
  limit: param(ctx, 'limit'),
  cursor: param(ctx, 'cursor'),
  sort: param(ctx, 'sort'),
});

async function pageBody(
  ctx: RouteContext,
  resource: 'list' | 'search',
  [name, selection]: [string, unknown],
  connection: StrategyConnection,
  graph: GraphQLContext,
  paging: Paging,
): Promise<Pick<RouteResult, 'body' | 'identity'>> {
  const summaries = await summarise(
    graph,
    connection.edges.map((e) => e.node),
  );
  const page = {
    limit: paging.limit ?? DEFAULT_LIMIT,
    nextCursor: nextCursorOf(connection.pageInfo),
    sort: paging.sort ?? 'recent',
  };
  const chosen = JSON.stringify(selection);
  const paged = JSON.stringify(page);
  const data = `{"resource":"${resource}","${name}":${chosen},"strategies":${summaries.json.text},"page":${paged}}`;
  return {
    body: serialisedReadBody(ctx, data, { rollupAt: null, cached: false }),
    // What `data` is made of, in order (the entries by their digests): the ETag hashes this, not ~16 KB.
    identity: `${resource}\n${name}\n${chosen}\n${paged}\n${summaries.identity}`,
  };
}

const strategiesRoute: RestRoute = {
  method: 'GET',
  path: '/api/strategies',
  bucket: 'strategies',
  doc: {
    operationId: 'getStrategies',
    descriptionValues: { MAX_LIMIT, DEFAULT_LIMIT },
    query: z.object({
      resource: parameters.resource.default('list'),
      q: parameters.q.optional().meta({ examples: ['usdc base'] }),
      pair: parameters.pair.optional().meta({ examples: ['USDC/USDT'] }),
      chain: parameters.chain.optional(),
      kind: parameters.kind.optional(),
      limit: parameters.limit.optional(),
      cursor: parameters.cursor.optional(),
      sort: parameters.sort.default('recent'),
      hash: parameters.hash.optional(),
    }),
    response: strategiesBody,
  },
  async handle(ctx): Promise<RouteResult> {
    const resource = param(ctx, 'resource') ?? 'list';
    const accepted = ACCEPTS[resource];
    for (const name of Object.keys(parameters) as Name[]) {
      if (name === 'resource' || accepted.includes(name)) continue;
      if ((ctx.req.query as Record<string, unknown>)[name] !== undefined) {
        const users = RESOURCES.filter((r) => ACCEPTS[r].includes(name)).join(' or ');
        throw ApiError.invalid(
          name,
          `${name} is not a parameter of resource=${resource} (it is used with resource=${users}).`,
        );
      }
    }
    switch (resource) {
      case 'list': {
        const chain = param(ctx, 'chain');
        const pair = param(ctx, 'pair');
        const kind = param(ctx, 'kind');
        const paging = pagingOf(ctx);
        const graph = ctx.graphql();
        const connection = await listStrategies(graph, { chain, pair, kind, ...paging }, 'summaries');
        // The filter applied: the chain's own key, whatever case it was asked in.
        const applied = chain === undefined ? null : ctx.services.registry.require(chain, 'chain').key;
        const filters = { chain: applied, pair: pair ?? null };
        return pageBody(ctx, 'list', ['filters', filters], connection, graph, paging);
      }
      case 'search': {
        const paging = pagingOf(ctx);
        const graph = ctx.graphql();
        const search = await searchStrategies(graph, { q: param(ctx, 'q', true)!, ...paging }, 'summaries');
        return pageBody(ctx, 'search', ['query', search.query], search, graph, paging);
      }
      case 'detail': {
        const strategy = await strategyDetail(ctx, param(ctx, 'hash', true)!, param(ctx, 'chain'));
        return { body: readBody(ctx, { resource, strategy }) };
      }
      case 'chains': {
        const { data, rollupAt, cached } = await chainsData(ctx);
        return {
          body: serialisedReadBody(ctx, `{"resource":"chains",${data.slice(1)}`, { rollupAt, cached }),
        };
      }
      case 'stats': {
        const stats = await statsData(ctx);
        return {
          body: serialisedReadBody(ctx, `{"resource":"stats","stats":${stats.data}}`, {
            rollupAt: stats.rollupAt,
            cached: stats.cached,
          }),
        };
      }
    }
  },
};

const detailQuery = z.object({ hash: strategyHashParam(), chain: chainKey().optional() });

const strategyDetailRoute: RestRoute = {
  method: 'GET',
  path: '/api/strategy-detail',
  bucket: 'strategy-detail',
  doc: {
    operationId: 'getStrategyDetail',
    query: detailQuery,
    response: strategyDetailBody,
  },
  async handle(ctx) {
    const { hash, chain } = queryOf(ctx, detailQuery);
    const { data, cached } = await strategyDetailData(ctx, hash, chain);
    return { body: serialisedReadBody(ctx, data, { rollupAt: null, cached }), cachedData: data };
  },
};

export const catalogueRoutes: RestRoute[] = [statsRoute, chainsRoute, strategiesRoute, strategyDetailRoute];
