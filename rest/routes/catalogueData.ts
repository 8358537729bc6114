/**
 * The reads behind the catalogue paths (rest/routes/catalogue.ts) that a response cache holds: the
 * serialised `data` of /api/stats (60 s), /api/chains and a strategy's detail (one indexer poll each).
 */
import { ApiError } from '../../lib/errors.js';
import { renderDecoded } from '../../resolvers/catalogue/detail.js';
import {
  ChainsDocument,
  type ChainsQuery,
  StatsDocument,
  StrategyDetailDocument,
} from '../generated/graphql.js';
import { liveCacheMs, responseCacheFor } from '../responseCache.js';
import type { RouteContext } from '../route.js';

/** SPEC §8: the /api/stats response cache. */
export const STATS_CACHE_SECONDS = 60;
export const STATS_KEY = 'stats';
const CHAINS_KEY = 'chains';

/** The serialised Stats `data`, from the response cache or computed once and cached for 60 s. */
export async function statsData(
  ctx: RouteContext,
): Promise<{ data: string; rollupAt: number | null; cached: boolean }> {
  const cache = responseCacheFor(ctx.services);
  const local = cache.peek(STATS_KEY);
  if (local) return { ...local, cached: true };
  const { value, cached } = await cache.getOrCompute(STATS_KEY, STATS_CACHE_SECONDS * 1000, async () => {
    const { stats } = await ctx.operations.run(StatsDocument, {}, ctx.graphql());
    // The two times are for `meta`; the rest is the body as selected.
    const { rollupUpdatedAt, dataAsOf, ...data } = stats;
    // meta.freshnessSeconds is the age of the data (during a backfill, of the last indexed block).
    const asOf = dataAsOf ?? rollupUpdatedAt;
    const rollupAt = asOf === null ? null : Date.parse(asOf);
    // Before the first roll-up there is nothing worth holding for a minute.
    return { value: { data: JSON.stringify(data), rollupAt }, store: rollupAt !== null };
  });
  return { ...value, cached };
}

type ChainItem = ChainsQuery['chains'][number];

/** The chain as selected (in its order), its tokens as a map by symbol, without the times of `meta`. */
function chainBody(chain: ChainItem) {
  return Object.fromEntries(
    Object.entries(chain)
      .filter(([key]) => key !== 'rollupUpdatedAt' && key !== 'dataAsOf')
      .map(([key, value]) =>
        key === 'tokens'
          ? [
              key,
              Object.fromEntries(
                chain.tokens.map((t) => [
                  t.symbol,
                  { address: t.address, decimals: t.decimals, price: t.price },
                ]),
              ),
            ]
          : [key, value],
      ),
  );
}

/**
 * The serialised `{"chains":[…]}` of /api/chains, from the response cache (one indexer poll,
 * liveCacheMs) or read and rendered once for every concurrent miss. The registry part is configuration;
 * the counts change with each roll-up and `indexer` with each poll, so a cached body is at most one poll
 * behind, and `meta.cached` says when it was served from the cache. `meta.freshnessSeconds` is the age
 * of the roll-up's data, recomputed per request. An answer without counts (the store could not answer)
 * is never cached: the counts come back on the next request after the store does.
 */
export async function chainsData(
  ctx: RouteContext,
): Promise<{ data: string; rollupAt: number | null; cached: boolean }> {
  const cache = responseCacheFor(ctx.services);
  const local = cache.peek(CHAINS_KEY);
  if (local) return { ...local, cached: true };
  const { value, cached } = await cache.getOrCompute(CHAINS_KEY, liveCacheMs(ctx.services), async () => {
    const { chains } = await ctx.operations.run(ChainsDocument, {}, ctx.graphql());
    const asOf = chains[0]?.dataAsOf ?? chains[0]?.rollupUpdatedAt ?? null;
    return {
      value: {
        data: JSON.stringify({ chains: chains.map(chainBody) }),
        rollupAt: asOf === null ? null : Date.parse(asOf),
      },
      store: chains.every((c) => c.countsAvailable),
    };
  });
  return { ...value, cached };
}

export async function strategyDetail(ctx: RouteContext, hash: string, chain: string | undefined) {
  const { strategy } = await ctx.operations.run(StrategyDetailDocument, { hash, chain }, ctx.graphql());
  if (!strategy) {
    throw ApiError.notFound(
      chain
        ? `No strategy ${hash} on chain "${chain}" in the catalogue.`
        : `No strategy ${hash} in the catalogue.`,
      'hash',
    );
  }
  // `decoded` in its documented place, right after the shipped bytes it renders (contract/schemas/catalogue.ts).
  const detail: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(strategy)) {
    detail[key] = value;
    if (key === 'strategy') detail.decoded = renderDecoded(strategy.strategy);
  }
  return detail;
}

/**
 * The serialised detail of one strategy (the `data` of /api/strategy-detail), per hash and chain from
 * the `detail` response cache for one indexer poll (liveCacheMs): a swap, a dock or a balance change is
 * written by the indexer at most once per poll, so a cached detail is at most one poll behind, which
 * the path's Cache-Control already allows every client, and `meta.cached` says so. An unknown hash (404)
 * or an unreachable store (503) is never cached. `meta.freshnessSeconds` stays null: a detail is read
 * from the strategy's rows, not from a roll-up.
 */
export async function strategyDetailData(
  ctx: RouteContext,
  hash: string,
  chain: string | undefined,
): Promise<{ data: string; cached: boolean }> {
  const cache = responseCacheFor(ctx.services, 'detail');
  const key = chain === undefined ? hash : `${hash}@${chain}`;
  const local = cache.peek(key);
  if (local) return { data: local.data, cached: true };
  const { value, cached } = await cache.getOrCompute(key, liveCacheMs(ctx.services), async () => ({
    value: { data: JSON.stringify(await strategyDetail(ctx, hash, chain)), rollupAt: null },
    store: true,
  }));
  return { data: value.data, cached };
}
