-- The indexer (issue 5). A checkpoint remembers which chain it belongs to and where it stopped, so a
-- restart notices when the chain changed under it: a devnet started afresh has another genesis block,
-- a reorg deeper than INDEXER_CONFIRMATIONS another hash at last_block. Either way the chain's rows
-- are dropped and it is indexed again from its start block.
ALTER TABLE indexer_checkpoints
  ADD COLUMN genesis_hash text,
  ADD COLUMN last_block_hash text;

-- Aqua keeps balances per (maker, app, strategy hash): a Pulled/Pushed row says whose it is, so the
-- indexer moves a strategy's balances only for its own maker and app.
ALTER TABLE balance_changes
  ADD COLUMN maker text,
  ADD COLUMN app text;

-- What the roll-up counts, kept up to date by statement triggers on `strategies` whoever writes it
-- (the indexer, the bench generator, test fixtures): the refresh reads these small tables instead of
-- scanning every strategy (a million of them take seconds to group by maker).
-- Strategies per (chain, pair, status); pair_key '' for strategies that have none.
CREATE TABLE catalogue_pair_counts (
  chain_key text NOT NULL,
  pair_key text NOT NULL,
  status text NOT NULL,
  strategies integer NOT NULL,
  last_shipped_at timestamptz,
  last_docked_at timestamptz,
  PRIMARY KEY (chain_key, pair_key, status)
);
-- Open strategies per (chain, maker); rows that fall to 0 stay (the roll-up counts those above 0).
CREATE TABLE catalogue_makers (
  chain_key text NOT NULL,
  maker text NOT NULL,
  open_strategies integer NOT NULL,
  PRIMARY KEY (chain_key, maker)
);

-- Adds (sign +1) or removes (sign -1) counted rows.
CREATE FUNCTION catalogue_counts_apply(
  chain_keys text[], pair_keys text[], statuses text[], makers text[], signs integer[], shipped timestamptz[],
  docked timestamptz[]
) RETURNS void LANGUAGE sql AS $$
  INSERT INTO catalogue_pair_counts AS c (chain_key, pair_key, status, strategies, last_shipped_at, last_docked_at)
    SELECT chain_key, pair_key, status, sum(sign), max(shipped_at), max(docked_at)
    FROM unnest(chain_keys, pair_keys, statuses, signs, shipped, docked)
      AS d(chain_key, pair_key, status, sign, shipped_at, docked_at)
    GROUP BY chain_key, pair_key, status
  ON CONFLICT (chain_key, pair_key, status) DO UPDATE
  SET strategies = c.strategies + EXCLUDED.strategies,
    last_shipped_at = CASE WHEN c.strategies + EXCLUDED.strategies > 0
      THEN greatest(c.last_shipped_at, EXCLUDED.last_shipped_at) END,
    last_docked_at = CASE WHEN c.strategies + EXCLUDED.strategies > 0
      THEN greatest(c.last_docked_at, EXCLUDED.last_docked_at) END;
  INSERT INTO catalogue_makers AS m (chain_key, maker, open_strategies)
    SELECT chain_key, maker, sum(sign)
    FROM unnest(chain_keys, makers, statuses, signs) AS d(chain_key, maker, status, sign)
    WHERE status = 'active'
    GROUP BY chain_key, maker
  ON CONFLICT (chain_key, maker) DO UPDATE SET open_strategies = m.open_strategies + EXCLUDED.open_strategies;
$$;

-- Transition tables are visible only in the trigger function itself: each operation gathers its
-- delta into arrays for catalogue_counts_apply.
CREATE FUNCTION catalogue_counts_on_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM catalogue_counts_apply(array_agg(chain_key), array_agg(coalesce(pair_key, '')), array_agg(status),
      array_agg(maker), array_agg(1), array_agg(shipped_at), array_agg(docked_at))
    FROM new_rows HAVING count(*) > 0;
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM catalogue_counts_apply(array_agg(chain_key), array_agg(coalesce(pair_key, '')), array_agg(status),
      array_agg(maker), array_agg(-1), array_agg(NULL::timestamptz), array_agg(NULL::timestamptz))
    FROM old_rows HAVING count(*) > 0;
  ELSE
    -- Only rows whose counted columns changed: the indexer's balance and volume updates change none.
    PERFORM catalogue_counts_apply(array_agg(d.chain_key), array_agg(d.pair_key), array_agg(d.status),
      array_agg(d.maker), array_agg(d.sign), array_agg(d.shipped_at), array_agg(d.docked_at))
    FROM (
      SELECT x.* FROM old_rows o JOIN new_rows n USING (chain_key, strategy_hash)
      CROSS JOIN LATERAL (VALUES
        (o.chain_key, coalesce(o.pair_key, ''), o.status, o.maker, -1, NULL::timestamptz, NULL::timestamptz),
        (n.chain_key, coalesce(n.pair_key, ''), n.status, n.maker, 1, n.shipped_at, n.docked_at)
      ) AS x(chain_key, pair_key, status, maker, sign, shipped_at, docked_at)
      WHERE (o.status, o.pair_key, o.maker, o.docked_at) IS DISTINCT FROM (n.status, n.pair_key, n.maker, n.docked_at)
    ) AS d
    HAVING count(*) > 0;
  END IF;
  RETURN NULL;
END;
$$;

CREATE FUNCTION catalogue_counts_on_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE catalogue_pair_counts, catalogue_makers;
  RETURN NULL;
END;
$$;

CREATE TRIGGER strategies_counts_insert AFTER INSERT ON strategies
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION catalogue_counts_on_change();
CREATE TRIGGER strategies_counts_update AFTER UPDATE ON strategies
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION catalogue_counts_on_change();
CREATE TRIGGER strategies_counts_delete AFTER DELETE ON strategies
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION catalogue_counts_on_change();
CREATE TRIGGER strategies_counts_truncate AFTER TRUNCATE ON strategies
  FOR EACH STATEMENT EXECUTE FUNCTION catalogue_counts_on_truncate();

-- Recomputes both tables from `strategies` (after a bulk load with the triggers disabled).
CREATE FUNCTION catalogue_counts_rebuild() RETURNS void LANGUAGE sql AS $$
  TRUNCATE catalogue_pair_counts, catalogue_makers;
  INSERT INTO catalogue_pair_counts (chain_key, pair_key, status, strategies, last_shipped_at, last_docked_at)
    SELECT chain_key, coalesce(pair_key, ''), status, count(*), max(shipped_at), max(docked_at)
    FROM strategies GROUP BY 1, 2, 3;
  INSERT INTO catalogue_makers (chain_key, maker, open_strategies)
    SELECT chain_key, maker, count(*) FROM strategies WHERE status = 'active' GROUP BY 1, 2;
$$;
