-- The list of open strategies is the hottest read (GET /api/strategies). Each row keeps its list entry
-- rendered as JSON text, written by a trigger in the same statement as every change of the row (the
-- indexer's inserts, swaps, balance changes and docks), so it can never disagree with the columns and a
-- page is read as one text per row, passed through untouched (bench/catalogue.ts: decoding 26 columns
-- per row in node cost more than the query). It holds the fields of a list entry that the row decides
-- (the API's `Strategy` hash … docked); chainId and verifiedRouter come from the chain registry and are
-- added by the reader. It is NULL where the columns do not say everything (a token count other than two,
-- a token whose symbol or decimals are not known yet): those rows are built from the columns instead.
ALTER TABLE strategies ADD COLUMN list_json text;

CREATE FUNCTION strategies_list_json() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.token_a IS NULL OR NEW.token_b IS NULL OR NEW.symbol_a IS NULL OR NEW.symbol_b IS NULL
     OR NEW.decimals_a IS NULL OR NEW.decimals_b IS NULL OR NEW.pair_key IS NULL THEN
    NEW.list_json := NULL;
    RETURN NEW;
  END IF;
  -- Compact JSON (no spaces), built from to_json of each value: json_build_object writes "key" : value.
  NEW.list_json := '{"hash":' || to_json(NEW.strategy_hash)::text
    || ',"chain":' || to_json(NEW.chain_key)::text
    || ',"maker":' || to_json(NEW.maker)::text
    || ',"app":' || to_json(NEW.app)::text
    || ',"pair":' || to_json(NEW.pair_key)::text
    || ',"tokens":[{"address":' || to_json(NEW.token_a)::text || ',"symbol":' || to_json(NEW.symbol_a)::text
      || ',"decimals":' || NEW.decimals_a || ',"initialAmount":' || coalesce(to_json(NEW.initial_a::text)::text, 'null')
      || ',"currentAmount":' || coalesce(to_json(NEW.balance_a::text)::text, 'null')
    || '},{"address":' || to_json(NEW.token_b)::text || ',"symbol":' || to_json(NEW.symbol_b)::text
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
    || '}';
  RETURN NEW;
END
$$;

CREATE TRIGGER strategies_list_json BEFORE INSERT OR UPDATE ON strategies
  FOR EACH ROW EXECUTE FUNCTION strategies_list_json();

-- Rows written before this migration: the update fires the trigger.
UPDATE strategies SET list_json = NULL;
