-- A strategy's kind, read from its decoded program: the curve it runs (xyc, concentrated, pegged) or
-- `other`. A stored column, so the list filters on it with an index; the rendered list entry ends with it.
CREATE FUNCTION strategy_kind(program jsonb) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE
    WHEN program @> '[{"name": "PeggedSwapGrowPriceRange2D"}]' THEN 'pegged'
    WHEN program @> '[{"name": "XYCConcentrateGrowLiquidity2D"}]' THEN 'concentrated'
    WHEN program @> '[{"name": "XYCSwap"}]' THEN 'xyc'
    ELSE 'other'
  END
$$;

ALTER TABLE strategies ADD COLUMN kind text GENERATED ALWAYS AS (strategy_kind(program)) STORED;
CREATE INDEX strategies_kind ON strategies (kind, status, shipped_at DESC, strategy_hash);

CREATE OR REPLACE FUNCTION strategies_list_json() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.token_a IS NULL OR NEW.token_b IS NULL OR NEW.symbol_a IS NULL OR NEW.symbol_b IS NULL
     OR NEW.decimals_a IS NULL OR NEW.decimals_b IS NULL OR NEW.pair_key IS NULL THEN
    NEW.list_json := NULL;
    RETURN NEW;
  END IF;
  NEW.list_json := '{"hash":' || to_json(NEW.strategy_hash)::text
    || ',"chain":' || to_json(NEW.chain_key)::text
    || ',"maker":' || to_json(NEW.maker)::text
    || ',"app":' || to_json(NEW.app)::text
    || ',"pair":' || to_json(NEW.pair_key)::text
    || ',"tokens":[{"symbol":' || to_json(NEW.symbol_a)::text || ',"address":' || to_json(NEW.token_a)::text
      || ',"decimals":' || NEW.decimals_a || ',"initialAmount":' || coalesce(to_json(NEW.initial_a::text)::text, 'null')
      || ',"currentAmount":' || coalesce(to_json(NEW.balance_a::text)::text, 'null')
    || '},{"symbol":' || to_json(NEW.symbol_b)::text || ',"address":' || to_json(NEW.token_b)::text
      || ',"decimals":' || NEW.decimals_b || ',"initialAmount":' || coalesce(to_json(NEW.initial_b::text)::text, 'null')
      || ',"currentAmount":' || coalesce(to_json(NEW.balance_b::text)::text, 'null') || '}]'
    || ',"status":' || to_json(NEW.status)::text
    || ',"volumeUsd":' || to_json(NEW.volume_usd)::text
    || ',"swapCount":' || NEW.swap_count
    || ',"lastSwapAt":' || coalesce(to_json(to_char(NEW.last_swap_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))::text, 'null')
    || ',"shipped":{"at":' || to_json(to_char(NEW.shipped_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))::text || ',"block":' || NEW.shipped_block
      || ',"tx":' || to_json(NEW.shipped_tx)::text || '}'
    || ',"docked":' || CASE WHEN NEW.status = 'docked'
      THEN '{"at":' || coalesce(to_json(to_char(NEW.docked_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))::text, 'null') || ',"block":' || coalesce(NEW.docked_block::text, 'null') || '}'
      ELSE 'null' END
    || ',"kind":' || to_json(strategy_kind(NEW.program))::text
    || '}';
  RETURN NEW;
END
$$;

-- Rows written before this migration: the update fires the trigger.
UPDATE strategies SET list_json = NULL WHERE list_json IS NOT NULL;
