/** A page of strategies as one serialised JSON array (the REST list splices it into its body). */
import type { ProgramInstruction } from '../../chain/program.js';
import { RawJson } from '../../lib/rawJson.js';
import type { ListedStrategy } from '../../store/strategyListRows.js';
import type { GraphQLContext } from '../context.js';
import { priceRangeOf } from './detail.js';
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
    kind: row.kind,
    priceRange: priceRangeOf((row.range_program as ProgramInstruction[] | null) ?? null, row),
    fees7dUsd: row.fees_7d_usd,
    apy7d: row.apy_7d,
    state: row.state,
  };
}

/** A strategy's entry rendered by the store, as the page shows it, and what identifies it. */
class Rendered {
  constructor(
    readonly text: string,
    readonly identity: string,
  ) {}
}

/** A page's summaries serialised, and the text that identifies them (what its ETag hashes). */
export interface Summaries {
  json: RawJson;
  /**
   * Determines `json` exactly, in far fewer characters: per strategy with a rendered entry, what the
   * reader adds (chainId, verifiedRouter) and the entry's digest (md5, `list_digest`, migration 018);
   * per other strategy its serialised summary itself.
   */
  identity: string;
}

/**
 * The strategies of a page as one serialised JSON array of summaries (summaryOf). A page walked field by
 * field costs graphql-js ~30 field executions per strategy, more than the rest of the request
 * together; the REST list takes this one value instead and splices it into its body. A row with its
 * entry rendered by the store (`list_json`) adds only chainId and verifiedRouter to it; the others are
 * built from their columns (bench/catalogue.ts).
 */
export function summarise(
  ctx: GraphQLContext,
  rows: readonly StrategyView[],
): Summaries | Promise<Summaries> {
  let pending = false;
  // A rendered entry with what identifies it; any other strategy as its summary.
  const parts: Array<Rendered | ReturnType<typeof summaryOf>> = rows.map((row) => {
    const { list_json: rendered, list_digest: digest } = row as Partial<ListedStrategy>;
    if (rendered) {
      const chainId = chainIdOf(ctx, row);
      const verified = isVerifiedRouter(ctx, row);
      // In the documented order: chainId after chain, verifiedRouter after app. The first `,"maker":`
      // and `,"pair":` are the entry's own keys: the strings before them are JSON-escaped.
      const maker = rendered.indexOf(',"maker":');
      const pair = rendered.indexOf(',"pair":', maker);
      const text = `${rendered.slice(0, maker)},"chainId":${chainId}${rendered.slice(maker, pair)},"verifiedRouter":${verified}${rendered.slice(pair)}`;
      // A digest stands for its entry (the generated column gives every rendered entry one); without, the text.
      return new Rendered(text, digest ? `${chainId},${verified},${digest}` : text);
    }
    const summary = summaryOf(ctx, row);
    if (summary.tokens instanceof Promise) pending = true;
    return summary;
  });
  // Concatenated, not joined: the body this is spliced into is flattened once, when it is written.
  // Newline-separated: neither a digest nor serialised JSON holds one.
  const done = (items: Array<Rendered | object>): Summaries => {
    let json = '[';
    let identity = '';
    for (let i = 0; i < items.length; i++) {
      const item = items[i]!;
      const text = item instanceof Rendered ? item.text : JSON.stringify(item);
      json += (i === 0 ? '' : ',') + text;
      identity += `${item instanceof Rendered ? item.identity : text}\n`;
    }
    return { json: new RawJson(`${json}]`), identity };
  };
  // Only strategies with a token outside the columns wait (for the token loader).
  if (!pending) return done(parts);
  return Promise.all(
    parts.map(async (p) => (p instanceof Rendered ? p : { ...p, tokens: await p.tokens })),
  ).then(done);
}
