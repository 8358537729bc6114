/** A page of strategies as one serialised JSON array (the REST list splices it into its body). */
import { RawJson } from '../../lib/rawJson.js';
import type { GraphQLContext } from '../../schema/context.js';
import type { ListedStrategy } from '../../store/strategyList.js';
import {
  chainIdOf,
  dockedOf,
  isVerifiedRouter,
  pairOf,
  type StrategyView,
  shippedOf,
  strategyTokens,
} from './strategy.js';

/** A strategy as plain data, built by the same functions as the typed fields. */
function summaryOf(ctx: GraphQLContext, row: StrategyView) {
  return {
    hash: row.strategy_hash,
    chain: row.chain_key,
    chainId: chainIdOf(ctx, row),
    maker: row.maker,
    app: row.app,
    verifiedRouter: isVerifiedRouter(ctx, row),
    pair: pairOf(row),
    tokens: strategyTokens(ctx, row),
    status: row.status,
    volumeUsd: row.volume_usd,
    swapCount: row.swap_count,
    lastSwapAt: row.last_swap_at,
    shipped: shippedOf(row),
    docked: dockedOf(row),
  };
}

/**
 * The strategies of a page as one serialised JSON array of summaries (summaryOf). A page walked field by
 * field costs graphql-js ~30 field executions per strategy, more than the rest of the request
 * together; the REST list takes this one value instead and splices it into its body. A row with its
 * entry rendered by the store (`list_json`) adds only chainId and verifiedRouter to it; the others are
 * built from their columns (bench/catalogue.ts).
 */
export function summarise(ctx: GraphQLContext, rows: readonly StrategyView[]): RawJson | Promise<RawJson> {
  let pending = false;
  const parts: Array<string | ReturnType<typeof summaryOf>> = rows.map((row) => {
    const rendered = (row as Partial<ListedStrategy>).list_json;
    if (rendered) {
      return `{"chainId":${chainIdOf(ctx, row)},"verifiedRouter":${isVerifiedRouter(ctx, row)},${rendered.slice(1)}`;
    }
    const summary = summaryOf(ctx, row);
    if (summary.tokens instanceof Promise) pending = true;
    return summary;
  });
  // Concatenated, not joined: the body this is spliced into is flattened once, when it is written.
  const text = (items: Array<string | object>) => {
    let json = '[';
    for (let i = 0; i < items.length; i++) {
      const item = items[i]!;
      json += (i === 0 ? '' : ',') + (typeof item === 'string' ? item : JSON.stringify(item));
    }
    return new RawJson(`${json}]`);
  };
  // Only strategies with a token outside the columns wait (for the token loader).
  if (!pending) return text(parts);
  return Promise.all(
    parts.map(async (p) => (typeof p === 'string' ? p : { ...p, tokens: await p.tokens })),
  ).then(text);
}
