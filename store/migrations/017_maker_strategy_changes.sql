-- The active strategies of a maker on a chain (what a prepare, a top-up and a position's health read to
-- count the allowance that maker's open positions use: store/walletStrategies.ts) are kept per process
-- and forgotten when this trigger announces a change to them on the channel maker_strategy_changes,
-- whoever writes: a strategy shipped, docked, rewound by a reorg (deleted or undocked), or its maker,
-- app or tokens changed. One notice per (chain, maker) a statement touched, its payload
-- 'chain_key:maker'; '' (forget every maker) when a statement touches more than 64 of them (a
-- backfill) or the table is truncated. The indexer's balance and volume updates change none of those
-- columns and announce nothing. Postgres delivers a transaction's notices at its commit, and drops
-- duplicates within it.
CREATE FUNCTION maker_strategies_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  touched text[];
  k text;
BEGIN
  IF TG_OP = 'INSERT' THEN
    SELECT array_agg(DISTINCT chain_key || ':' || lower(maker)) INTO touched FROM new_rows;
  ELSIF TG_OP = 'DELETE' THEN
    SELECT array_agg(DISTINCT chain_key || ':' || lower(maker)) INTO touched FROM old_rows;
  ELSE
    -- Rows as they were and as they are that differ in what a maker's set is made of (a changed key
    -- column included): the makers of both sides.
    SELECT array_agg(DISTINCT d.chain_key || ':' || lower(d.maker)) INTO touched FROM (
      (SELECT chain_key, strategy_hash, maker, app, status, tokens FROM old_rows
       EXCEPT SELECT chain_key, strategy_hash, maker, app, status, tokens FROM new_rows)
      UNION ALL
      (SELECT chain_key, strategy_hash, maker, app, status, tokens FROM new_rows
       EXCEPT SELECT chain_key, strategy_hash, maker, app, status, tokens FROM old_rows)
    ) AS d;
  END IF;
  IF touched IS NULL THEN
    RETURN NULL;
  END IF;
  IF cardinality(touched) > 64 THEN
    PERFORM pg_notify('maker_strategy_changes', '');
  ELSE
    FOREACH k IN ARRAY touched LOOP
      PERFORM pg_notify('maker_strategy_changes', k);
    END LOOP;
  END IF;
  RETURN NULL;
END
$$;

CREATE FUNCTION maker_strategies_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('maker_strategy_changes', '');
  RETURN NULL;
END
$$;

CREATE TRIGGER strategies_maker_insert AFTER INSERT ON strategies
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION maker_strategies_changed();
CREATE TRIGGER strategies_maker_update AFTER UPDATE ON strategies
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION maker_strategies_changed();
CREATE TRIGGER strategies_maker_delete AFTER DELETE ON strategies
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION maker_strategies_changed();
CREATE TRIGGER strategies_maker_truncate AFTER TRUNCATE ON strategies
  FOR EACH STATEMENT EXECUTE FUNCTION maker_strategies_truncated();
