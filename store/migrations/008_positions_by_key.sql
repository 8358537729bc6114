-- GET /v1/positions and its export (issue 19): a key's positions newest first, keyset-paginated on
-- (created_at, strategy_hash), so every page and every export batch is an index range scan with no
-- sort. It replaces 003's (key_id, created_at DESC), its prefix: one index to maintain, and the
-- planner cannot pick the shorter one and sort the ties.
CREATE INDEX positions_key_created_hash ON positions (key_id, created_at DESC, strategy_hash DESC);
DROP INDEX positions_key_created;
