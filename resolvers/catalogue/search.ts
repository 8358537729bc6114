/** Free-text search over pair and chain, answered as a page of the list. */
import { pairKeyOf } from '../../indexer/batch.js';
import { ApiError } from '../../lib/errors.js';
import type { ListProjection } from '../../store/strategyListRows.js';
import type { GraphQLContext } from '../context.js';
import { page, type StrategyConnection } from './list.js';
import { resolveLimit, type StrategySort } from './params.js';

export interface SearchArgs {
  q: string;
  limit?: number | null;
  cursor?: string | null;
  sort?: StrategySort | null;
}

export interface StrategySearch extends StrategyConnection {
  query: { q: string; chains: string[]; symbols: string[]; unmatched: string[] };
}

/**
 * Free text over pair and chain: each word names a chain (key or name) or a token symbol, exactly or
 * by prefix ("usd" → USDC, USDT). Chains are alternatives; two or more symbol words must all be in the
 * pair. A word that names nothing leaves the result empty and is reported in `unmatched`.
 */
export async function searchStrategies(
  ctx: GraphQLContext,
  args: SearchArgs,
  projection: ListProjection = 'full',
): Promise<StrategySearch> {
  const q = args.q.trim();
  if (q.length === 0 || q.length > 100)
    throw ApiError.invalid('q', 'q must be 1 to 100 characters of search text.');
  const words = [
    ...new Set(
      q
        .toLowerCase()
        .split(/[\s,/]+/)
        .filter(Boolean),
    ),
  ];
  const rollup = await ctx.loaders.rollup.load('catalogue');
  const chains = ctx.services.registry.list();
  // Every symbol and pair known to the registry or to the roll-up.
  const symbols = new Map(ctx.services.registry.symbols());
  const pairKeys = new Set<string>();
  for (const pair of rollup?.payload.pairs ?? []) {
    pairKeys.add(pair.pair);
    for (const s of pair.pair.split('/')) if (!symbols.has(s.toLowerCase())) symbols.set(s.toLowerCase(), s);
  }
  const registryList = [...new Set(chains.flatMap((c) => c.tokens.map((t) => t.symbol)))];
  for (const a of registryList) for (const b of registryList) if (a !== b) pairKeys.add(pairKeyOf(a, b));

  const matchedChains = new Set<string>();
  const symbolGroups: string[][] = [];
  const unmatched: string[] = [];
  for (const word of words) {
    const exactChain = chains.filter((c) => c.key.toLowerCase() === word || c.name?.toLowerCase() === word);
    const exactSymbol = symbols.get(word);
    if (exactChain.length > 0 || exactSymbol) {
      for (const c of exactChain) matchedChains.add(c.key);
      if (exactSymbol) symbolGroups.push([exactSymbol]);
      continue;
    }
    const prefixChains = chains.filter(
      (c) => c.key.toLowerCase().startsWith(word) || (c.name?.toLowerCase().startsWith(word) ?? false),
    );
    const prefixSymbols = [...symbols].filter(([lower]) => lower.startsWith(word)).map(([, s]) => s);
    for (const c of prefixChains) matchedChains.add(c.key);
    if (prefixSymbols.length > 0) symbolGroups.push(prefixSymbols);
    if (prefixChains.length === 0 && prefixSymbols.length === 0) unmatched.push(word);
  }
  const pairs =
    symbolGroups.length === 0
      ? null
      : [...pairKeys].filter((key) => {
          const inPair = key.split('/');
          return symbolGroups.every((group) => group.some((s) => inPair.includes(s)));
        });
  // A word that names nothing: no page to read, but the limit is still checked.
  if (unmatched.length > 0) resolveLimit(args.limit);
  const result =
    unmatched.length > 0
      ? { edges: [], pageInfo: { hasNextPage: false, endCursor: null } }
      : await page(
          ctx,
          { chains: matchedChains.size > 0 ? [...matchedChains] : null, pairs },
          args,
          projection,
        );
  return {
    ...result,
    query: { q, chains: [...matchedChains], symbols: [...new Set(symbolGroups.flat())], unmatched },
  };
}
