import { type Db, query } from './db.js';

/** An open strategy of a maker as the catalogue has it: what Aqua keys its balances by, and its tokens. */
export interface WalletStrategyRow {
  strategy_hash: string;
  app: string;
  /** Lower-case token addresses in the order shipped. */
  tokens: string[];
}

/**
 * The maker's active strategies on one chain that hold at least one of `tokens` (lower-case): one
 * allowance per token serves all of them (PROTOCOL.md "Allowances, ship and dock"). Any app counts:
 * Aqua pulls from the same allowance whichever app asks.
 */
export async function activeStrategiesOfMaker(
  db: Db,
  chainKey: string,
  maker: string,
  tokens: readonly string[],
): Promise<WalletStrategyRow[]> {
  const { rows } = await query<WalletStrategyRow>(
    db,
    `SELECT strategy_hash, app,
            ARRAY(SELECT lower(t->>'address') FROM jsonb_array_elements(tokens) AS t) AS tokens
       FROM strategies
      WHERE chain_key = $1 AND maker = $2 AND status = 'active'
        AND EXISTS (SELECT 1 FROM jsonb_array_elements(tokens) AS t WHERE lower(t->>'address') = ANY($3::text[]))
      ORDER BY strategy_hash`,
    [chainKey, maker.toLowerCase(), tokens.map((t) => t.toLowerCase())],
  );
  return rows;
}
