-- Analytics (issue 21): makers, TVL and volume time series, served from roll-ups that the indexer keeps
-- in the same transaction as it stores swaps (indexer/write.ts INSERT_SWAPS) and that triggers on
-- `strategies` keep whoever writes it, so no read scans `swaps` or the million rows of `strategies`.
--
-- Fees in USD are the swap's USD volume times the strategy's fee rates (its program, PROTOCOL.md):
-- protocol = v·pf/1e9, maker = v·(1 − pf/1e9)·ff/1e9 (the maker's flat fee runs on what the protocol
-- fee leaves). Base-unit rounding of the router is not reproduced: these are USD figures.

-- The fee rates (1e9 = 100%) of a decoded program (strategies.program): the AquaProtocolFeeAmountIn and
-- FlatFeeAmountIn instructions before its curve, as the router and resolvers/quote.ts `feeSteps` walk it.
CREATE FUNCTION program_fee_rates(program jsonb, OUT protocol_1e9 bigint, OUT maker_1e9 bigint)
LANGUAGE sql IMMUTABLE AS $$
  -- The stored program is chain/program.ts decodeProgram's list: per instruction its name, whether its
  -- args decoded (ok) and typedArgs ([{name, type, value}], uint values as decimal strings). The fees
  -- that count are those before the first curve (chain/instructions.ts kind 'curve').
  WITH steps AS (
    SELECT i, n FROM jsonb_array_elements(CASE WHEN jsonb_typeof(program) = 'array' THEN program ELSE '[]' END)
      WITH ORDINALITY AS p(i, n)
  ), curve AS (
    SELECT coalesce(min(n), 2147483647) AS at FROM steps
    WHERE i->>'name' IN ('XYCSwap', 'PeggedSwapGrowPriceRange2D')
  ), fees AS (
    SELECT s.i->>'name' AS name, (a->>'value')::bigint AS fee
    FROM steps s
    CROSS JOIN curve
    CROSS JOIN LATERAL jsonb_array_elements(
      CASE WHEN jsonb_typeof(s.i->'typedArgs') = 'array' THEN s.i->'typedArgs' ELSE '[]' END) AS a
    WHERE s.n < curve.at AND s.i->>'ok' = 'true' AND a->>'name' = 'fee1e9' AND a->>'value' ~ '^[0-9]{1,18}$'
  )
  SELECT
    coalesce(sum(fee) FILTER (WHERE name IN ('AquaProtocolFeeAmountIn', 'ProtocolFeeAmountIn')), 0)::bigint,
    coalesce(sum(fee) FILTER (WHERE name = 'FlatFeeAmountIn'), 0)::bigint
  FROM fees
$$;

-- Fees of the (chain, pair, hour) buckets next to their volume.
ALTER TABLE volume_hourly
  ADD COLUMN maker_fees_usd double precision NOT NULL DEFAULT 0,
  ADD COLUMN protocol_fees_usd double precision NOT NULL DEFAULT 0;

-- Volume per strategy and UTC hour (the strategy filter of the series; a strategy's activity).
CREATE TABLE strategy_hourly (
  strategy_hash text NOT NULL,
  chain_key text NOT NULL,
  hour timestamptz NOT NULL,
  volume_usd double precision NOT NULL DEFAULT 0,
  swap_count integer NOT NULL DEFAULT 0,
  maker_fees_usd double precision NOT NULL DEFAULT 0,
  protocol_fees_usd double precision NOT NULL DEFAULT 0,
  PRIMARY KEY (strategy_hash, chain_key, hour)
);

-- Volume per maker, chain and UTC hour (the maker filter of the series; the maker view's 1/7/30 days).
CREATE TABLE maker_hourly (
  maker text NOT NULL,
  chain_key text NOT NULL,
  hour timestamptz NOT NULL,
  volume_usd double precision NOT NULL DEFAULT 0,
  swap_count integer NOT NULL DEFAULT 0,
  maker_fees_usd double precision NOT NULL DEFAULT 0,
  protocol_fees_usd double precision NOT NULL DEFAULT 0,
  PRIMARY KEY (maker, chain_key, hour)
);

-- One row per (chain, maker) that ever shipped: docked count (open ones are catalogue_makers'),
-- lifetime volume and fees (moved with each stored swap), and the TVL as of the last roll-up refresh
-- (tvl_usd, tvl_at), which orders the makers list. The row appears with the maker's first strategy.
-- balance_version counts the changes of the maker's balances; tvl_version is the one tvl_usd was
-- computed at: the refresh prices only the makers where they differ (indexer/makerTvl.ts).
CREATE TABLE maker_activity (
  chain_key text NOT NULL,
  maker text NOT NULL,
  docked_strategies integer NOT NULL DEFAULT 0,
  volume_usd double precision NOT NULL DEFAULT 0,
  swap_count integer NOT NULL DEFAULT 0,
  maker_fees_usd double precision NOT NULL DEFAULT 0,
  protocol_fees_usd double precision NOT NULL DEFAULT 0,
  last_swap_at timestamptz,
  tvl_usd double precision NOT NULL DEFAULT 0,
  tvl_at timestamptz,
  balance_version bigint NOT NULL DEFAULT 0,
  tvl_version bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (chain_key, maker)
);
CREATE INDEX maker_activity_tvl_stale ON maker_activity (chain_key, maker) WHERE balance_version <> tvl_version;
-- The makers list, highest first: read backwards, (value, chain, maker) descending is one keyset.
CREATE INDEX maker_activity_tvl ON maker_activity (tvl_usd, chain_key, maker);
CREATE INDEX maker_activity_volume ON maker_activity (volume_usd, chain_key, maker);
CREATE INDEX maker_activity_chain_tvl ON maker_activity (chain_key, tvl_usd, maker);
CREATE INDEX maker_activity_chain_volume ON maker_activity (chain_key, volume_usd, maker);

-- Live virtual balances summed per (chain, maker, pair, token), pair_key '' for strategies without one:
-- a maker's TVL is a few rows, a pair's TVL a group of them. Docking zeroes a strategy's balances, so
-- these are the balances of open strategies.
CREATE TABLE catalogue_balances (
  chain_key text NOT NULL,
  maker text NOT NULL,
  pair_key text NOT NULL,
  token text NOT NULL,
  symbol text,
  decimals integer,
  amount numeric(78,0) NOT NULL,
  PRIMARY KEY (chain_key, maker, pair_key, token)
);

-- The same per (chain, pair, token): the TVL of the stats roll-up reads a few rows.
CREATE TABLE catalogue_pair_balances (
  chain_key text NOT NULL,
  pair_key text NOT NULL,
  token text NOT NULL,
  symbol text,
  decimals integer,
  amount numeric(78,0) NOT NULL,
  PRIMARY KEY (chain_key, pair_key, token)
);

-- A maker's strategies newest first (the maker view's connection; read backwards).
CREATE INDEX strategies_maker_shipped ON strategies (maker, chain_key, shipped_at, strategy_hash);

-- Signed deltas of the tables above, as catalogue_counts_apply (004) does for the counts.
CREATE FUNCTION analytics_apply(
  chain_keys text[], makers text[], pair_keys text[], tokens text[], symbols text[], decimals integer[],
  amounts numeric[], docked integer[]
) RETURNS void LANGUAGE sql AS $$
  INSERT INTO catalogue_balances AS b (chain_key, maker, pair_key, token, symbol, decimals, amount)
    SELECT chain_key, maker, pair_key, token, max(symbol), max(decimals), sum(amount)
    FROM unnest(chain_keys, makers, pair_keys, tokens, symbols, decimals, amounts)
      AS d(chain_key, maker, pair_key, token, symbol, decimals, amount)
    WHERE token IS NOT NULL AND amount IS NOT NULL
    GROUP BY chain_key, maker, pair_key, token
    HAVING sum(amount) <> 0
  ON CONFLICT (chain_key, maker, pair_key, token) DO UPDATE
  SET amount = b.amount + EXCLUDED.amount, symbol = coalesce(EXCLUDED.symbol, b.symbol),
    decimals = coalesce(EXCLUDED.decimals, b.decimals);
  INSERT INTO catalogue_pair_balances AS b (chain_key, pair_key, token, symbol, decimals, amount)
    SELECT chain_key, pair_key, token, max(symbol), max(decimals), sum(amount)
    FROM unnest(chain_keys, pair_keys, tokens, symbols, decimals, amounts)
      AS d(chain_key, pair_key, token, symbol, decimals, amount)
    WHERE token IS NOT NULL AND amount IS NOT NULL
    GROUP BY chain_key, pair_key, token
    HAVING sum(amount) <> 0
  ON CONFLICT (chain_key, pair_key, token) DO UPDATE
  SET amount = b.amount + EXCLUDED.amount, symbol = coalesce(EXCLUDED.symbol, b.symbol),
    decimals = coalesce(EXCLUDED.decimals, b.decimals);
  INSERT INTO maker_activity AS m (chain_key, maker, docked_strategies, balance_version)
    SELECT chain_key, maker, sum(docked), CASE WHEN bool_or(coalesce(amount, 0) <> 0) THEN 1 ELSE 0 END
    FROM unnest(chain_keys, makers, docked, amounts) AS d(chain_key, maker, docked, amount)
    GROUP BY chain_key, maker
  ON CONFLICT (chain_key, maker) DO UPDATE
  SET docked_strategies = m.docked_strategies + EXCLUDED.docked_strategies,
    balance_version = m.balance_version + EXCLUDED.balance_version
  WHERE EXCLUDED.docked_strategies <> 0 OR EXCLUDED.balance_version <> 0;
$$;

-- Each strategy row contributes its two token balances and, when docked, one docked strategy.
CREATE FUNCTION analytics_on_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM analytics_apply(array_agg(x.chain_key), array_agg(x.maker), array_agg(x.pair_key), array_agg(x.token),
      array_agg(x.symbol), array_agg(x.decimals), array_agg(x.amount), array_agg(x.docked))
    FROM new_rows n CROSS JOIN LATERAL (VALUES
      (n.chain_key, n.maker, coalesce(n.pair_key, ''), n.token_a, n.symbol_a, n.decimals_a, n.balance_a,
        CASE WHEN n.status = 'docked' THEN 1 ELSE 0 END),
      (n.chain_key, n.maker, coalesce(n.pair_key, ''), n.token_b, n.symbol_b, n.decimals_b, n.balance_b, 0)
    ) AS x(chain_key, maker, pair_key, token, symbol, decimals, amount, docked)
    HAVING count(*) > 0;
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM analytics_apply(array_agg(x.chain_key), array_agg(x.maker), array_agg(x.pair_key), array_agg(x.token),
      array_agg(x.symbol), array_agg(x.decimals), array_agg(x.amount), array_agg(x.docked))
    FROM old_rows o CROSS JOIN LATERAL (VALUES
      (o.chain_key, o.maker, coalesce(o.pair_key, ''), o.token_a, o.symbol_a, o.decimals_a, -o.balance_a,
        CASE WHEN o.status = 'docked' THEN -1 ELSE 0 END),
      (o.chain_key, o.maker, coalesce(o.pair_key, ''), o.token_b, o.symbol_b, o.decimals_b, -o.balance_b, 0)
    ) AS x(chain_key, maker, pair_key, token, symbol, decimals, amount, docked)
    HAVING count(*) > 0;
  ELSE
    -- Only rows whose balances, status, maker or pair changed (a swap's volume update changes none).
    PERFORM analytics_apply(array_agg(x.chain_key), array_agg(x.maker), array_agg(x.pair_key), array_agg(x.token),
      array_agg(x.symbol), array_agg(x.decimals), array_agg(x.amount), array_agg(x.docked))
    FROM old_rows o JOIN new_rows n USING (chain_key, strategy_hash)
    CROSS JOIN LATERAL (VALUES
      (o.chain_key, o.maker, coalesce(o.pair_key, ''), o.token_a, o.symbol_a, o.decimals_a, -o.balance_a,
        CASE WHEN o.status = 'docked' THEN -1 ELSE 0 END),
      (o.chain_key, o.maker, coalesce(o.pair_key, ''), o.token_b, o.symbol_b, o.decimals_b, -o.balance_b, 0),
      (n.chain_key, n.maker, coalesce(n.pair_key, ''), n.token_a, n.symbol_a, n.decimals_a, n.balance_a,
        CASE WHEN n.status = 'docked' THEN 1 ELSE 0 END),
      (n.chain_key, n.maker, coalesce(n.pair_key, ''), n.token_b, n.symbol_b, n.decimals_b, n.balance_b, 0)
    ) AS x(chain_key, maker, pair_key, token, symbol, decimals, amount, docked)
    WHERE (o.balance_a, o.balance_b, o.status, o.maker, o.pair_key, o.token_a, o.token_b)
      IS DISTINCT FROM (n.balance_a, n.balance_b, n.status, n.maker, n.pair_key, n.token_a, n.token_b)
    HAVING count(*) > 0;
  END IF;
  RETURN NULL;
END;
$$;

CREATE FUNCTION analytics_on_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE catalogue_balances, catalogue_pair_balances, maker_activity;
  RETURN NULL;
END;
$$;

CREATE TRIGGER strategies_analytics_insert AFTER INSERT ON strategies
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION analytics_on_change();
CREATE TRIGGER strategies_analytics_update AFTER UPDATE ON strategies
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION analytics_on_change();
CREATE TRIGGER strategies_analytics_delete AFTER DELETE ON strategies
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION analytics_on_change();
CREATE TRIGGER strategies_analytics_truncate AFTER TRUNCATE ON strategies
  FOR EACH STATEMENT EXECUTE FUNCTION analytics_on_truncate();

-- Recomputes every table of this migration from `strategies` and `swaps` (swaps of a stored strategy;
-- the fee columns of volume_hourly likewise): rows stored before this migration, and bulk loads that
-- ran with the triggers off (bench/generate.ts). Counts every swap of a stored strategy of the same
-- maker, as the indexer's writes do for the strategy's own router.
-- work_mem: the hour sums of every swap are hashed in memory instead of spilled in small batches.
CREATE FUNCTION analytics_rebuild() RETURNS void LANGUAGE sql SET work_mem = '128MB' AS $$
  TRUNCATE strategy_hourly, maker_hourly, maker_activity, catalogue_balances, catalogue_pair_balances;
  -- Each strategy's fee rates are read from its program once (program_fee_rates walks the program's
  -- JSON), not once per swap; the swaps are summed per strategy and hour before the join; rows go in
  -- in their primary key's order, so the index grows at its right edge instead of at random pages.
  -- Over 1M strategies and 10M swaps: 725 s per swap and unordered, 160 s this way.
  INSERT INTO strategy_hourly (strategy_hash, chain_key, hour, volume_usd, swap_count, maker_fees_usd,
    protocol_fees_usd)
    WITH rates AS MATERIALIZED (
      SELECT s.chain_key, s.strategy_hash, s.maker, f.protocol_1e9, f.maker_1e9
      FROM strategies s CROSS JOIN LATERAL program_fee_rates(s.program) AS f
    ), hourly AS (
      SELECT w.chain_key, w.strategy_hash, w.maker,
        date_trunc('hour', w.block_time AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS hour,
        sum(w.volume_usd) AS volume_usd, count(*)::int AS swap_count
      FROM swaps w
      GROUP BY 1, 2, 3, 4
    )
    SELECT h.strategy_hash, h.chain_key, h.hour, h.volume_usd, h.swap_count,
      h.volume_usd * (1 - r.protocol_1e9 / 1e9::float8) * r.maker_1e9 / 1e9::float8,
      h.volume_usd * r.protocol_1e9 / 1e9::float8
    FROM hourly h
    JOIN rates r ON r.chain_key = h.chain_key AND r.strategy_hash = h.strategy_hash AND r.maker = h.maker
    ORDER BY 1, 2, 3;
  INSERT INTO maker_hourly (maker, chain_key, hour, volume_usd, swap_count, maker_fees_usd, protocol_fees_usd)
    SELECT s.maker, h.chain_key, h.hour, sum(h.volume_usd), sum(h.swap_count)::int, sum(h.maker_fees_usd),
      sum(h.protocol_fees_usd)
    FROM strategy_hourly h JOIN strategies s ON s.chain_key = h.chain_key AND s.strategy_hash = h.strategy_hash
    GROUP BY 1, 2, 3
    ORDER BY 1, 2, 3;
  UPDATE volume_hourly v SET maker_fees_usd = x.maker_fees, protocol_fees_usd = x.protocol_fees
    FROM (
      SELECT h.chain_key, s.pair_key, h.hour, sum(h.maker_fees_usd) AS maker_fees,
        sum(h.protocol_fees_usd) AS protocol_fees
      FROM strategy_hourly h JOIN strategies s ON s.chain_key = h.chain_key AND s.strategy_hash = h.strategy_hash
      WHERE s.pair_key IS NOT NULL
      GROUP BY 1, 2, 3
    ) AS x
    WHERE v.chain_key = x.chain_key AND v.pair_key = x.pair_key AND v.hour = x.hour;
  -- balance_version 1, tvl_version 0: the next refresh prices every maker.
  INSERT INTO maker_activity (chain_key, maker, docked_strategies, balance_version)
    SELECT chain_key, maker, count(*) FILTER (WHERE status = 'docked'), 1 FROM strategies GROUP BY 1, 2;
  UPDATE maker_activity m SET volume_usd = x.volume, swap_count = x.swaps, maker_fees_usd = x.maker_fees,
      protocol_fees_usd = x.protocol_fees, last_swap_at = l.last_swap
    FROM (
      SELECT h.chain_key, h.maker, sum(h.volume_usd) AS volume, sum(h.swap_count)::int AS swaps,
        sum(h.maker_fees_usd) AS maker_fees, sum(h.protocol_fees_usd) AS protocol_fees
      FROM maker_hourly h GROUP BY 1, 2
    ) AS x
    CROSS JOIN LATERAL (
      SELECT max(last_swap_at) AS last_swap FROM strategies s WHERE s.chain_key = x.chain_key AND s.maker = x.maker
    ) AS l
    WHERE m.chain_key = x.chain_key AND m.maker = x.maker;
  INSERT INTO catalogue_balances (chain_key, maker, pair_key, token, symbol, decimals, amount)
    SELECT s.chain_key, s.maker, x.pair_key, x.token, max(x.symbol), max(x.decimals), sum(x.amount)
    FROM strategies s CROSS JOIN LATERAL (VALUES
      (coalesce(s.pair_key, ''), s.token_a, s.symbol_a, s.decimals_a, s.balance_a),
      (coalesce(s.pair_key, ''), s.token_b, s.symbol_b, s.decimals_b, s.balance_b)
    ) AS x(pair_key, token, symbol, decimals, amount)
    WHERE x.token IS NOT NULL AND x.amount IS NOT NULL
    GROUP BY s.chain_key, s.maker, x.pair_key, x.token;
  INSERT INTO catalogue_pair_balances (chain_key, pair_key, token, symbol, decimals, amount)
    SELECT chain_key, pair_key, token, max(symbol), max(decimals), sum(amount)
    FROM catalogue_balances GROUP BY 1, 2, 3;
$$;

SELECT analytics_rebuild();
