/**
 * Makers' wallets as the indexer last read them (migration 026): balance and allowance to Aqua per token
 * of their open strategies, and what their strategies can really pay out (pullable): per maker and token
 * the smaller of the open virtual balances, the wallet's balance and its allowance.
 */
import { lockChainStates } from './chainStateLock.js';
import { type Db, inTransaction, query } from './db.js';

export interface WalletToRead {
  maker: string;
  /** The tokens of its open strategies (lower-case addresses). */
  tokens: string[];
}

/**
 * Up to `limit` makers of the chain with open balances: those never read first, then those that swapped
 * since their last read, then the least recently read.
 */
export async function walletsToRead(db: Db, chain: string, limit: number): Promise<WalletToRead[]> {
  const { rows } = await db.query<WalletToRead>(
    `WITH open AS (
       SELECT maker, array_agg(DISTINCT token ORDER BY token) AS tokens
         FROM catalogue_balances WHERE chain_key = $1 AND amount > 0 GROUP BY maker)
     SELECT o.maker, o.tokens
       FROM open o
       -- Over its open tokens only: a token not read yet makes the maker unread (read first), and a
       -- token it no longer holds open does not keep it the least recently read for ever.
       LEFT JOIN LATERAL (SELECT CASE WHEN count(w.read_at) = count(*) THEN min(w.read_at) END AS read_at
                            FROM unnest(o.tokens) AS t(token)
                            LEFT JOIN maker_wallets w
                              ON w.chain_key = $1 AND w.maker = o.maker AND w.token = t.token) r ON true
       LEFT JOIN maker_activity a ON a.chain_key = $1 AND a.maker = o.maker
      ORDER BY r.read_at IS NOT NULL, coalesce(a.last_swap_at > r.read_at, false) DESC, r.read_at, o.maker
      LIMIT $2`,
    [chain, limit],
  );
  return rows;
}

export interface WalletRead {
  maker: string;
  token: string;
  balance: bigint;
  allowance: bigint;
}

/**
 * Stores a run's reads and the states of the read makers' open strategies that they turn (migration
 * 030), in one transaction under the chain's state lock (chainStateLock.ts): a strategy's `state` never
 * disagrees with the wallet figures beside it. Then the chain's pullable sums as they now stand.
 */
export async function recordWalletReads(
  db: Db,
  chain: string,
  reads: readonly WalletRead[],
  readAt: Date,
): Promise<void> {
  if (reads.length > 0)
    await inTransaction(db, async (client) => {
      await lockChainStates(client, chain);
      await client.query(
        `INSERT INTO maker_wallets (chain_key, maker, token, balance, allowance, read_at)
         SELECT $1, r.maker, r.token, r.balance, r.allowance, $6
           FROM unnest($2::text[], $3::text[], $4::numeric[], $5::numeric[]) AS r(maker, token, balance, allowance)
         ON CONFLICT (chain_key, maker, token) DO UPDATE
           SET balance = EXCLUDED.balance, allowance = EXCLUDED.allowance, read_at = EXCLUDED.read_at`,
        [
          chain,
          reads.map((r) => r.maker),
          reads.map((r) => r.token),
          reads.map((r) => r.balance.toString()),
          reads.map((r) => r.allowance.toString()),
          readAt,
        ],
      );
      // Only the rows whose state turns are written (and rendered again by the list trigger). Under the
      // lock no chunk moves their balances meanwhile: each state is computed once, from rows that hold.
      await client.query(
        `UPDATE strategies s SET state = n.state
           FROM (SELECT chain_key, strategy_hash,
                        strategy_state(status, chain_key, maker, token_a, token_b, balance_a, balance_b) AS state
                   FROM strategies
                  WHERE maker = ANY($2::text[]) AND chain_key = $1 AND status = 'active') n
          WHERE s.chain_key = n.chain_key AND s.strategy_hash = n.strategy_hash AND s.state <> n.state`,
        [chain, [...new Set(reads.map((r) => r.maker))]],
      );
    });
  await query(
    db,
    `WITH per_maker AS (
       SELECT maker, token, max(symbol) AS symbol, max(decimals) AS decimals, sum(amount) AS amount
         FROM catalogue_balances WHERE chain_key = $1 GROUP BY maker, token HAVING sum(amount) > 0),
     sums AS (
       SELECT b.token, max(b.symbol) AS symbol, max(b.decimals) AS decimals,
              sum(least(b.amount, w.balance, w.allowance)) AS amount
         FROM per_maker b JOIN maker_wallets w ON w.chain_key = $1 AND w.maker = b.maker AND w.token = b.token
        GROUP BY b.token),
     gone AS (DELETE FROM pullable_balances p WHERE p.chain_key = $1
               AND NOT EXISTS (SELECT 1 FROM sums s WHERE s.token = p.token))
     INSERT INTO pullable_balances (chain_key, token, symbol, decimals, amount, computed_at)
       SELECT $1, token, symbol, decimals, amount, now() FROM sums
     ON CONFLICT (chain_key, token) DO UPDATE
       SET symbol = EXCLUDED.symbol, decimals = EXCLUDED.decimals, amount = EXCLUDED.amount,
           computed_at = EXCLUDED.computed_at`,
    [chain],
  );
}

export interface MakerLiquidityRow {
  token: string;
  symbol: string | null;
  decimals: number | null;
  /** Open virtual balances of its strategies (base units). */
  virtual: string;
  /** Null until the wallet was read. */
  balance: string | null;
  allowance: string | null;
  pullable: string | null;
  read_at: Date | null;
}

/** A maker's liquidity per token of its open strategies: virtual, wallet, allowance and pullable. */
export async function makerLiquidity(db: Db, chain: string, maker: string): Promise<MakerLiquidityRow[]> {
  const { rows } = await db.query<MakerLiquidityRow>(
    `SELECT b.token, b.symbol, b.decimals, b.amount::text AS virtual, w.balance::text AS balance,
            w.allowance::text AS allowance,
            -- least() skips NULLs: a wallet not read yet has no pullable figure, not the virtual balance.
            CASE WHEN w.read_at IS NOT NULL THEN least(b.amount, w.balance, w.allowance)::text END AS pullable,
            w.read_at
       FROM (SELECT token, max(symbol) AS symbol, max(decimals) AS decimals, sum(amount) AS amount
               FROM catalogue_balances WHERE chain_key = $1 AND maker = $2
              GROUP BY token HAVING sum(amount) > 0) b
       LEFT JOIN maker_wallets w ON w.chain_key = $1 AND w.maker = $2 AND w.token = b.token
      ORDER BY b.token`,
    [chain, maker],
  );
  return rows;
}

export interface PullableRow {
  chain_key: string;
  token: string;
  symbol: string | null;
  decimals: number | null;
  amount: string;
}

/** The pullable sums of the chains, as of their last wallet reads. */
export async function pullableBalances(
  db: Pick<Db, 'query'>,
  chains: readonly string[],
): Promise<PullableRow[]> {
  const { rows } = await db.query<PullableRow>(
    `SELECT chain_key, token, symbol, decimals, amount::text AS amount
       FROM pullable_balances WHERE chain_key = ANY($1::text[])`,
    [chains],
  );
  return rows;
}

export interface WalletRow {
  token: string;
  balance: string;
  allowance: string;
  read_at: Date;
}

/** The last read of a maker's wallet for the given tokens (those read). */
export async function walletOf(
  db: Db,
  chain: string,
  maker: string,
  tokens: readonly string[],
): Promise<WalletRow[]> {
  const { rows } = await db.query<WalletRow>(
    `SELECT token, balance::text AS balance, allowance::text AS allowance, read_at
       FROM maker_wallets WHERE chain_key = $1 AND maker = $2 AND token = ANY($3::text[])`,
    [chain, maker, tokens.map((t) => t.toLowerCase())],
  );
  return rows;
}
