/**
 * The makers leaderboard: a keyset page of maker_rankings (store/makerRankings.ts) per period and
 * sort, with the cursor of the makers list (resolvers/makers.ts).
 */
import { ApiError } from '../lib/errors.js';
import {
  type RankingPeriod,
  type RankingPosition,
  type RankingRow,
  type RankingSort,
  rankingPage,
} from '../store/makerRankings.js';
import { resolveChain } from './catalogue/params.js';
import { type Connection, pageConnection } from './connection.js';
import type { GraphQLContext } from './context.js';
import { CHAIN_KEY, decode, encode, resolveFirst, STORED_ADDRESS } from './makers.js';

export type { RankingPeriod, RankingRow, RankingSort };

export async function listRankings(
  ctx: GraphQLContext,
  args: {
    period: RankingPeriod;
    sort: RankingSort;
    chain?: string | null;
    first?: number | null;
    after?: string | null;
  },
): Promise<Connection<RankingRow>> {
  const limit = resolveFirst(args.first);
  const chain = args.chain ? resolveChain(ctx, args.chain).key : null;
  // A cursor holds the period and sort it was issued for: a page of another order would skip rows.
  const issued = `${args.period}:${args.sort}`;
  let after: RankingPosition | null = null;
  if (args.after) {
    const [issuedFor, value, chainKey, maker] = decode(
      args.after,
      (p) =>
        p.length === 4 &&
        typeof p[0] === 'string' &&
        typeof p[1] === 'number' &&
        Number.isFinite(p[1]) &&
        typeof p[2] === 'string' &&
        CHAIN_KEY.test(p[2]) &&
        typeof p[3] === 'string' &&
        STORED_ADDRESS.test(p[3]),
    ) as [string, number, string, string];
    if (issuedFor !== issued)
      throw ApiError.invalid('after', 'after was issued for another period or sort; keep the same ones.');
    after = { value, chain: chainKey, maker };
  }
  const rows = await rankingPage(ctx.services.db, {
    period: args.period,
    sort: args.sort,
    chain,
    after,
    limit,
  });
  return pageConnection(rows, limit, (row) => encode([issued, row.sort_value, row.chain_key, row.maker]));
}
