-- The read endpoints (issue 5). `GET /api/strategies?sort=volume` with a pair (and chain) filter had no
-- index in that order: at 1,000,000 strategies the plan walked strategies_volume and filtered by chain
-- and pair, ~20 heap rows read per row shown for a small pair (EXPLAIN in bench/catalogue.ts). Open
-- strategies only (the list never shows docked ones), so the indexes stay a fraction of the table.
CREATE INDEX strategies_open_chain_pair_volume
  ON strategies (chain_key, pair_key, volume_usd DESC, strategy_hash) WHERE status = 'active';
CREATE INDEX strategies_open_pair_volume
  ON strategies (pair_key, volume_usd DESC, strategy_hash, chain_key) WHERE status = 'active';
