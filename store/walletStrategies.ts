import type { Logger } from '../lib/logger.js';
import { type Db, query } from './db.js';
import { type ChangeFeed, KeptRows, listenKeptRows } from './keptRows.js';

/** An open strategy of a maker as the catalogue has it: what Aqua keys its balances by, and its tokens. */
export interface WalletStrategyRow {
  strategy_hash: string;
  app: string;
  /** Lower-case token addresses in the order shipped. */
  tokens: string[];
}

/** The channel of migration 017's notices: 'chain_key:maker' per (chain, maker) whose strategies changed. */
export const MAKER_STRATEGY_CHANGES_CHANNEL = 'maker_strategy_changes';
/** Longest a maker's strategies are kept: the bound on a change no notice announces (store/keptRows.ts). */
export const MAKER_STRATEGIES_TTL_MS = 10_000;
/** Most makers a process keeps (with MAX_KEPT_STRATEGIES: at most 64k rows, ~10 MB). */
const MAX_MAKERS = 1_000;
/** A maker with more open strategies than this on a chain is read every time, not kept. */
const MAX_KEPT_STRATEGIES = 64;

/** What is kept for a maker with more open strategies on a chain than a process keeps: read them each time. */
const MANY = 'many';

const SELECT_ACTIVE = `SELECT strategy_hash, app,
            ARRAY(SELECT lower(t->>'address') FROM jsonb_array_elements(tokens) AS t) AS tokens
       FROM strategies
      WHERE chain_key = $1 AND maker = $2 AND status = 'active'`;

/** Every active strategy of the maker on one chain, in strategy-hash order; `many` past `limit` of them. */
async function readActiveStrategies(
  db: Db,
  chainKey: string,
  maker: string,
  limit: number,
): Promise<WalletStrategyRow[] | typeof MANY> {
  const { rows } = await query<WalletStrategyRow>(db, `${SELECT_ACTIVE} ORDER BY strategy_hash LIMIT $3`, [
    chainKey,
    maker,
    limit + 1,
  ]);
  return rows.length > limit ? MANY : rows;
}

/** The maker's active strategies on one chain holding one of `tokens` (lower-case), in strategy-hash order. */
async function readActiveStrategiesHolding(
  db: Db,
  chainKey: string,
  maker: string,
  tokens: readonly string[],
): Promise<WalletStrategyRow[]> {
  const { rows } = await query<WalletStrategyRow>(
    db,
    `${SELECT_ACTIVE}
        AND EXISTS (SELECT 1 FROM jsonb_array_elements(tokens) AS t WHERE lower(t->>'address') = ANY($3::text[]))
      ORDER BY strategy_hash`,
    [chainKey, maker, tokens],
  );
  return rows;
}

const keyOf = (chainKey: string, maker: string) => `${chainKey}:${maker}`;

/**
 * The makers' active strategies this process has read, per (chain, maker), forgotten on the notices
 * of migration 017's trigger (a ship, a dock, a reorg's rewind, by whichever process writes them):
 * a prepare, a top-up or a health read of the same wallet then costs no SQL round trip (this read
 * was one of a prepare's two statements). Kept only while the LISTEN connection is up, at
 * most MAKER_STRATEGIES_TTL_MS. Of a maker with more than 64 open strategies on the chain only that is
 * kept: its strategies holding the tokens asked are then read each time.
 */
export class MakerStrategiesCache extends KeptRows<WalletStrategyRow[] | typeof MANY> {
  constructor(feed: ChangeFeed, db: Db, ttlMs = MAKER_STRATEGIES_TTL_MS) {
    super(
      feed,
      (key) => {
        // A chain key may hold a colon; an address never does.
        const colon = key.lastIndexOf(':');
        return readActiveStrategies(db, key.slice(0, colon), key.slice(colon + 1), MAX_KEPT_STRATEGIES);
      },
      { ttlMs, maxKeys: MAX_MAKERS },
    );
  }
}

/** The service's cache of makers' strategies, on a LISTEN connection of its own. */
export function startMakerStrategiesCache(
  db: Db,
  databaseUrl: string,
  logger: Logger,
): { cache: MakerStrategiesCache; stop(): Promise<void> } {
  return listenKeptRows(
    databaseUrl,
    MAKER_STRATEGY_CHANGES_CHANNEL,
    logger,
    (feed) => new MakerStrategiesCache(feed, db),
  );
}

/**
 * The maker's active strategies on one chain that hold at least one of `tokens` (lower-case): one
 * allowance per token serves all of them (PROTOCOL.md "Allowances, ship and dock"). Any app counts:
 * Aqua pulls from the same allowance whichever app asks. From `kept` when given and live (the
 * service's cache), else read from the store.
 */
export async function activeStrategiesOfMaker(
  db: Db,
  chainKey: string,
  maker: string,
  tokens: readonly string[],
  kept?: MakerStrategiesCache,
): Promise<WalletStrategyRow[]> {
  const wallet = maker.toLowerCase();
  const wanted = tokens.map((t) => t.toLowerCase());
  const all = kept?.live ? await kept.find(keyOf(chainKey, wallet)) : MANY;
  if (all === MANY) return readActiveStrategiesHolding(db, chainKey, wallet, wanted);
  return all.filter((s) => s.tokens.some((t) => wanted.includes(t)));
}
