import { type GraphQLResolveInfo, Kind } from 'graphql';
import { listStrategies } from '../resolvers/catalogue/list.js';
import {
  type StrategySearch as StrategySearchView,
  searchStrategies,
} from '../resolvers/catalogue/search.js';
import type { StrategyView } from '../resolvers/catalogue/strategy.js';
import type { ListProjection } from '../store/strategyListRows.js';
import { builder } from './builder.js';
import { connectionOf, relayArgs, relayPaging } from './connection.js';
import { ProgramKind } from './enums.js';
import { Strategy, StrategySort, StrategyStatus } from './strategy.js';

/** The strategy lists of the graph: the filtered list and the free-text search, both Relay connections. */
const StrategyConnection = connectionOf('Strategy', Strategy, { one: 'strategy', many: 'strategies' });

const SearchQuery = builder.objectRef<StrategySearchView['query']>('StrategySearchQuery').implement({
  description: 'How the search text was read.',
  fields: (t) => ({
    q: t.exposeString('q', { description: 'The search text as given.' }),
    chains: t.exposeStringList('chains', { description: 'Chain keys the words named.' }),
    symbols: t.exposeStringList('symbols', { description: 'Token symbols the words named.' }),
    unmatched: t.exposeStringList('unmatched', { description: 'Words that name no chain and no token.' }),
  }),
});

const StrategySearchConnection = connectionOf<StrategyView, StrategySearchView>(
  'StrategySearch',
  Strategy,
  { one: 'matching strategy', many: 'open strategies matching a free-text search' },
  (t) => ({
    query: t.field({
      description: 'How the search text was read.',
      type: SearchQuery,
      resolve: (s) => s.query,
    }),
  }),
);

/**
 * What a page must read: nodes walked field by field need every column; edges without nodes (cursors)
 * and pageInfo need only the keys. Fragments are read as "everything".
 */
function projectionOf(info: GraphQLResolveInfo): ListProjection {
  for (const node of info.fieldNodes) {
    for (const selection of node.selectionSet?.selections ?? []) {
      if (selection.kind !== Kind.FIELD) return 'full';
      if (selection.name.value !== 'edges') continue;
      for (const edge of selection.selectionSet?.selections ?? []) {
        if (edge.kind !== Kind.FIELD || edge.name.value === 'node') return 'full';
      }
    }
  }
  return 'summaries';
}

const SORT_ARG = {
  description:
    'RECENT (newest shipped first, the default), VOLUME (most settled volume first), FEES or APY (most earned over the last 7 days first).',
  type: StrategySort,
  defaultValue: 'recent',
} as const;

builder.queryFields((t) => ({
  strategies: t.field({
    type: StrategyConnection,
    description:
      'Strategies, open ones by default, newest first (or by volume), one keyset page at a time; every filter given must hold.',
    args: {
      chain: t.arg.string({ description: 'Chain key.' }),
      pair: t.arg.string({ description: '"A/B" token symbols, either order.' }),
      token: t.arg.string({
        description:
          'A token symbol (any case) or address /api/chains lists: strategies of any pair holding it.',
      }),
      maker: t.arg.string({ description: 'A maker address (any case).' }),
      status: t.arg({
        type: StrategyStatus,
        defaultValue: 'active',
        description: 'ACTIVE (the default) or DOCKED; null for both.',
      }),
      shippedFrom: t.arg({ type: 'DateTime', description: 'Shipped at or after this instant.' }),
      shippedTo: t.arg({ type: 'DateTime', description: 'Shipped before this instant.' }),
      kind: t.arg({ type: ProgramKind, description: 'Only strategies whose program runs this curve.' }),
      sort: t.arg(SORT_ARG),
      ...relayArgs(t),
    },
    resolve: (_r, { first, after, ...filters }, ctx, info) =>
      relayPaging(() => listStrategies(ctx, { ...filters, limit: first, cursor: after }, projectionOf(info))),
  }),
  searchStrategies: t.field({
    type: StrategySearchConnection,
    description: 'Open strategies matching free text over pair and chain ("usdc base", "EURC/USDT").',
    args: {
      q: t.arg.string({
        description:
          'Free text over pair and chain; each word names a chain or a token symbol, exactly or by prefix.',
        required: true,
      }),
      sort: t.arg(SORT_ARG),
      ...relayArgs(t),
    },
    resolve: (_r, { first, after, q, sort }, ctx, info) =>
      relayPaging(() => searchStrategies(ctx, { q, sort, limit: first, cursor: after }, projectionOf(info))),
  }),
}));
