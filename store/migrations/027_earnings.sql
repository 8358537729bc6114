-- Earnings: what a strategy and a maker earn in token units, and the time-weighted liquidity that
-- earned it, so that an APY needs no scan of `swaps` or `balance_changes`.
--
-- Per (chain, strategy, token, UTC hour) and per (chain, maker, token, UTC hour), moved by the
-- indexer in the transaction that stores the events (indexer/write.ts):
-- - maker_fees, protocol_fees: base units of the swaps' tokenIn, by the router's exactIn arithmetic
--   (PROTOCOL.md): protocol p = ⌊a·pf/1e9⌋, maker f = ⌈(a − p)·ff/1e9⌉, a the swap's amountIn;
-- - delta: the signed change of the virtual balance in the hour (Pushed, Pulled, and a dock's zeroing);
-- - delta_seconds: Σ δ·(t − hour) in base unit·seconds, t each change's block time.
-- Then for any window start s on an hour boundary (or before the strategy's first change):
--   ∫_s^now balance dt = balance_now·(now − s) − Σ_{hour ≥ s} (delta_seconds + (hour − s)·delta)
-- exactly (resolvers/earnings.ts). Balance changes stored before this migration have no block time:
-- they count as made when the strategy shipped.

ALTER TABLE balance_changes ADD COLUMN block_time timestamptz;

CREATE TABLE strategy_earnings_hourly (
  chain_key text NOT NULL,
  strategy_hash text NOT NULL,
  token text NOT NULL,
  hour timestamptz NOT NULL,
  maker_fees numeric NOT NULL DEFAULT 0,
  protocol_fees numeric NOT NULL DEFAULT 0,
  delta numeric NOT NULL DEFAULT 0,
  delta_seconds numeric NOT NULL DEFAULT 0,
  PRIMARY KEY (chain_key, strategy_hash, token, hour)
);

CREATE TABLE maker_earnings_hourly (
  chain_key text NOT NULL,
  maker text NOT NULL,
  token text NOT NULL,
  hour timestamptz NOT NULL,
  maker_fees numeric NOT NULL DEFAULT 0,
  protocol_fees numeric NOT NULL DEFAULT 0,
  delta numeric NOT NULL DEFAULT 0,
  delta_seconds numeric NOT NULL DEFAULT 0,
  PRIMARY KEY (chain_key, maker, token, hour)
);
-- The leaderboard's refresh reads the buckets of the last 30 days of every maker.
CREATE INDEX maker_earnings_hourly_hour ON maker_earnings_hourly (hour);

-- Rebuilds the buckets of these strategies (all when `hashes` is null) from the stored events: the
-- swaps' fees (the swaps of the strategy's own maker, as migration 014 counts them), the balance
-- changes of its two tokens with their block times (before this migration: the ship's time, or
-- the time of a swap of the same transaction), the dock's zeroing at the dock's time, and whatever
-- of today's balance those do not explain, at the ship's time. The makers of these strategies get
-- their buckets again as the sums of their strategies', and so do `makers` (those of strategies a
-- rewind deleted). Used by this migration, by bulk loads (bench/generate.ts) and by the rewind of a
-- reorg (indexer/rewind.ts).
CREATE FUNCTION earnings_recount(chain text, hashes text[], makers text[]) RETURNS void LANGUAGE plpgsql
SET work_mem = '128MB' AS $$
BEGIN
  CREATE TEMP TABLE earnings_scope ON COMMIT DROP AS
    SELECT s.chain_key, s.strategy_hash, s.maker, s.app, s.token_a, s.token_b, s.balance_a, s.balance_b,
      s.shipped_at, s.shipped_tx, s.docked_at, s.program
    FROM strategies s
    WHERE (chain IS NULL OR s.chain_key = chain) AND (hashes IS NULL OR s.strategy_hash = ANY(hashes));
  CREATE TEMP TABLE earnings_makers ON COMMIT DROP AS
    SELECT chain_key, maker FROM earnings_scope
    UNION SELECT chain, m FROM unnest(coalesce(makers, '{}')) AS m WHERE chain IS NOT NULL;

  IF hashes IS NULL THEN
    DELETE FROM strategy_earnings_hourly e WHERE chain IS NULL OR e.chain_key = chain;
  ELSE
    DELETE FROM strategy_earnings_hourly e WHERE e.chain_key = chain AND e.strategy_hash = ANY(hashes);
  END IF;

  CREATE TEMP TABLE earnings_events ON COMMIT DROP AS
    WITH rates AS MATERIALIZED (
      SELECT x.chain_key, x.strategy_hash, x.maker, f.protocol_1e9, f.maker_1e9
      FROM earnings_scope x CROSS JOIN LATERAL program_fee_rates(x.program) AS f
    ), fees AS (
      SELECT w.chain_key, w.strategy_hash, w.token_in AS token, w.block_time AS t,
        div(w.amount_in * r.protocol_1e9, 1000000000) AS p, w.amount_in, r.maker_1e9
      FROM swaps w
      JOIN rates r ON r.chain_key = w.chain_key AND r.strategy_hash = w.strategy_hash AND r.maker = w.maker
    ), changes AS (
      SELECT x.chain_key, x.strategy_hash, b.token,
        coalesce(b.block_time,
          (SELECT w.block_time FROM swaps w WHERE w.chain_key = b.chain_key AND w.tx_hash = b.tx_hash LIMIT 1),
          x.shipped_at) AS t,
        CASE WHEN b.kind = 'push' THEN b.amount ELSE -b.amount END AS d
      FROM earnings_scope x
      JOIN balance_changes b ON b.chain_key = x.chain_key AND b.strategy_hash = x.strategy_hash
        AND b.maker = x.maker AND b.app = x.app AND b.token IN (x.token_a, x.token_b)
    ), docks AS (
      -- A dock zeroes what the changes had put there.
      SELECT c.chain_key, c.strategy_hash, c.token, x.docked_at AS t, -sum(c.d) AS d
      FROM changes c JOIN earnings_scope x ON x.chain_key = c.chain_key AND x.strategy_hash = c.strategy_hash
      WHERE x.docked_at IS NOT NULL
      GROUP BY 1, 2, 3, 4
      HAVING sum(c.d) <> 0
    ), explained AS (
      SELECT chain_key, strategy_hash, token, sum(d) AS d FROM (
        SELECT chain_key, strategy_hash, token, d FROM changes UNION ALL
        SELECT chain_key, strategy_hash, token, d FROM docks) u
      GROUP BY 1, 2, 3
    ), rest AS (
      SELECT x.chain_key, x.strategy_hash, v.token, x.shipped_at AS t, v.balance - coalesce(e.d, 0) AS d
      FROM earnings_scope x
      CROSS JOIN LATERAL (VALUES (x.token_a, x.balance_a), (x.token_b, x.balance_b)) AS v(token, balance)
      LEFT JOIN explained e ON e.chain_key = x.chain_key AND e.strategy_hash = x.strategy_hash AND e.token = v.token
      WHERE v.token IS NOT NULL AND v.balance IS NOT NULL AND v.balance <> coalesce(e.d, 0)
    )
    SELECT chain_key, strategy_hash, token, t, p AS protocol_fees,
      div((amount_in - p) * maker_1e9 + 999999999, 1000000000) AS maker_fees, 0::numeric AS d
    FROM fees
    UNION ALL SELECT chain_key, strategy_hash, token, t, 0, 0, d FROM changes
    UNION ALL SELECT chain_key, strategy_hash, token, t, 0, 0, d FROM docks
    UNION ALL SELECT chain_key, strategy_hash, token, t, 0, 0, d FROM rest;

  INSERT INTO strategy_earnings_hourly (chain_key, strategy_hash, token, hour, maker_fees, protocol_fees, delta,
    delta_seconds)
  SELECT chain_key, strategy_hash, token, h, sum(maker_fees), sum(protocol_fees), sum(d),
    sum(d * floor(extract(epoch FROM t - h)))
  FROM (SELECT *, date_trunc('hour', t AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS h FROM earnings_events) e
  GROUP BY 1, 2, 3, 4
  ORDER BY 1, 2, 3, 4;

  DELETE FROM maker_earnings_hourly e USING earnings_makers m WHERE e.chain_key = m.chain_key AND e.maker = m.maker;
  INSERT INTO maker_earnings_hourly (chain_key, maker, token, hour, maker_fees, protocol_fees, delta, delta_seconds)
  SELECT s.chain_key, s.maker, e.token, e.hour, sum(e.maker_fees), sum(e.protocol_fees), sum(e.delta),
    sum(e.delta_seconds)
  FROM earnings_makers m
  JOIN strategies s ON s.chain_key = m.chain_key AND s.maker = m.maker
  JOIN strategy_earnings_hourly e ON e.chain_key = s.chain_key AND e.strategy_hash = s.strategy_hash
  GROUP BY 1, 2, 3, 4
  ORDER BY 1, 2, 3, 4;

  DROP TABLE earnings_events, earnings_makers, earnings_scope;
END;
$$;

SELECT earnings_recount(NULL, NULL, NULL);

-- The makers leaderboard (GET /api/makers): per period and maker, volume, fees, TVL and APY as of the
-- last refresh (indexer/makerRankings.ts), read in keyset pages highest first.
CREATE TABLE maker_rankings (
  period text NOT NULL CHECK (period IN ('1d', '7d', '30d')),
  chain_key text NOT NULL,
  maker text NOT NULL,
  volume_usd double precision NOT NULL,
  swap_count integer NOT NULL,
  maker_fees_usd double precision NOT NULL,
  protocol_fees_usd double precision NOT NULL,
  tvl_usd double precision NOT NULL,
  -- Maker fees over the window ÷ (∫ liquidity USD dt over it) × 365 days; null without liquidity.
  apy double precision,
  ranked_at timestamptz NOT NULL,
  PRIMARY KEY (period, chain_key, maker)
);
CREATE INDEX maker_rankings_volume ON maker_rankings (period, volume_usd, chain_key, maker);
CREATE INDEX maker_rankings_fees ON maker_rankings (period, maker_fees_usd, chain_key, maker);
CREATE INDEX maker_rankings_tvl ON maker_rankings (period, tvl_usd, chain_key, maker);
-- Null APYs sort last (read backwards: first).
CREATE INDEX maker_rankings_apy ON maker_rankings (period, (coalesce(apy, -1)), chain_key, maker);
CREATE INDEX maker_rankings_chain_volume ON maker_rankings (period, chain_key, volume_usd, maker);
CREATE INDEX maker_rankings_chain_fees ON maker_rankings (period, chain_key, maker_fees_usd, maker);
CREATE INDEX maker_rankings_chain_tvl ON maker_rankings (period, chain_key, tvl_usd, maker);
CREATE INDEX maker_rankings_chain_apy ON maker_rankings (period, chain_key, (coalesce(apy, -1)), maker);
