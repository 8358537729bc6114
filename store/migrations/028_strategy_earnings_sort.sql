-- The strategy list sorted by what a strategy earns (GET /api/strategies?sort=fees|apy): per strategy,
-- the maker fees of the last 7 days in USD and the APY they give (resolvers/earnings.ts's formula),
-- as of the last refresh (indexer/strategyEarningsSort.ts, at most every 15 minutes). Only strategies
-- with fees in the window carry an APY; the others have none and list after every one that does.
ALTER TABLE strategies
  ADD COLUMN fees_7d_usd double precision NOT NULL DEFAULT 0,
  ADD COLUMN apy_7d double precision;

CREATE INDEX strategies_fees_7d ON strategies (status, fees_7d_usd DESC, strategy_hash);
CREATE INDEX strategies_apy_7d ON strategies (status, (coalesce(apy_7d, -1)) DESC, strategy_hash);
