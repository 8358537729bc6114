-- Each listed strategy carries the keys the list sorts by earnings (migration 028): the maker's fees of
-- the last 7 days in USD and their APY, as of the last refresh. The refresh updates the columns, which
-- renders the entry again.
CREATE OR REPLACE FUNCTION strategies_list_json() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.token_a IS NULL OR NEW.token_b IS NULL OR NEW.symbol_a IS NULL OR NEW.symbol_b IS NULL
     OR NEW.decimals_a IS NULL OR NEW.decimals_b IS NULL OR NEW.pair_key IS NULL
     OR strategy_kind(NEW.program) = 'concentrated' THEN
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
    || ',"priceRange":null'
    || ',"fees7dUsd":' || to_json(NEW.fees_7d_usd)::text
    || ',"apy7d":' || coalesce(to_json(NEW.apy_7d)::text, 'null') || '}';
  RETURN NEW;
END
$$;

-- Rows written before this migration: the update fires the trigger.
UPDATE strategies SET list_json = NULL WHERE list_json IS NOT NULL;
