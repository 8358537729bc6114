/**
 * The TVL of each maker as the makers list orders it (maker_activity.tvl_usd, migration 014), priced
 * again after each roll-up refresh, only for the makers whose balances changed since they were last
 * priced (balance_version ≠ tvl_version; the triggers on `strategies` bump balance_version). A maker's
 * own view prices its balances live (resolvers/makers.ts); this copy exists to sort 100k+ makers.
 */
import type pg from 'pg';
import type { UsdPrices } from '../lib/usd.js';

/** Makers priced per statement: a first refresh after a bulk load spreads over a few statements. */
export const MAKER_TVL_BATCH = 20_000;

// `m.balance_version = x.version` makes a row that changed after the snapshot of the subquery keep its
// stale mark (the update skips it under READ COMMITTED's recheck), so the next refresh prices it.
const PRICE_STALE_MAKERS = `
WITH prices AS (SELECT * FROM unnest($1::text[], $2::float8[]) AS p(symbol, usd)),
stale AS (
  SELECT chain_key, maker, balance_version FROM maker_activity
  WHERE balance_version <> tvl_version LIMIT $3
), priced AS (
  SELECT s.chain_key, s.maker, s.balance_version,
    coalesce((
      SELECT sum(b.amount::float8 / power(10::float8, b.decimals) * p.usd)
      FROM catalogue_balances b JOIN prices p ON p.symbol = upper(b.symbol)
      WHERE b.chain_key = s.chain_key AND b.maker = s.maker AND b.decimals IS NOT NULL
    ), 0) AS tvl
  FROM stale s
)
UPDATE maker_activity m
SET tvl_usd = round(x.tvl::numeric, 2)::float8, tvl_version = x.balance_version, tvl_at = now()
FROM priced x
WHERE m.chain_key = x.chain_key AND m.maker = x.maker AND m.balance_version = x.balance_version`;

/** Prices the stale makers; returns how many were priced. */
export async function refreshMakerTvl(client: pg.ClientBase, prices: UsdPrices): Promise<number> {
  const symbols = Object.keys(prices).map((s) => s.toUpperCase());
  const usd = Object.values(prices);
  let priced = 0;
  for (;;) {
    const { rowCount } = await client.query(PRICE_STALE_MAKERS, [symbols, usd, MAKER_TVL_BATCH]);
    priced += rowCount ?? 0;
    if ((rowCount ?? 0) < MAKER_TVL_BATCH) return priced;
  }
}
