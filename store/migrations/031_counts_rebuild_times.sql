-- The recount of the pair counts (after a bulk load with the triggers off) gives the latest times the
-- triggers keep, as the rewind's retiming does (indexer/rewind.ts): a dock moves a strategy out of its
-- pair's open group without lowering that group's latest ship, and every strategy was open once, so the
-- open group's latest ship is the latest ship of any strategy of the pair, docked ones included. The
-- docked group's times are those of its rows.
CREATE OR REPLACE FUNCTION catalogue_counts_rebuild() RETURNS void LANGUAGE sql AS $$
  TRUNCATE catalogue_pair_counts, catalogue_makers;
  INSERT INTO catalogue_pair_counts (chain_key, pair_key, status, strategies, last_shipped_at, last_docked_at)
    SELECT g.chain_key, g.pair_key, g.status, g.strategies,
           CASE WHEN g.status = 'active' THEN p.shipped ELSE g.shipped END, g.docked
    FROM (SELECT chain_key, coalesce(pair_key, '') AS pair_key, status, count(*) AS strategies,
                 max(shipped_at) AS shipped, max(docked_at) AS docked
            FROM strategies GROUP BY 1, 2, 3) g
    JOIN (SELECT chain_key, coalesce(pair_key, '') AS pair_key, max(shipped_at) AS shipped
            FROM strategies GROUP BY 1, 2) p USING (chain_key, pair_key);
  INSERT INTO catalogue_makers (chain_key, maker, open_strategies)
    SELECT chain_key, maker, count(*) FROM strategies WHERE status = 'active' GROUP BY 1, 2;
$$;
