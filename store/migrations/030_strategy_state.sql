-- Whether a strategy can trade now (`state`), stored so the list's rendered entries carry it: open,
-- and some token's pullable amount (its virtual balance capped by its maker's wallet balance and
-- allowance, as last read) is above 0; before any read of the wallet, some virtual balance is. Docked,
-- or nothing pullable: inactive. A strategy without per-token balances (not two tokens) is active while
-- open. The trigger keeps it when the strategy's status or balances move; the wallet reader
-- (store/makerWallets.ts) sets it again for the makers it read, in the same transaction as the reads.
CREATE FUNCTION strategy_state(status text, chain text, maker text, token_a text, token_b text,
                               balance_a numeric, balance_b numeric) RETURNS text LANGUAGE sql STABLE AS $$
  WITH side(token, amount) AS (VALUES (token_a, balance_a), (token_b, balance_b)),
  known AS (SELECT s.amount, w.balance, w.allowance
              FROM side s JOIN maker_wallets w
                ON w.chain_key = chain AND w.maker = strategy_state.maker AND w.token = s.token
             WHERE s.amount IS NOT NULL)
  SELECT CASE
    WHEN status = 'docked' THEN 'inactive'
    WHEN balance_a IS NULL AND balance_b IS NULL THEN 'active'
    WHEN NOT EXISTS (SELECT 1 FROM known) THEN
      CASE WHEN coalesce(balance_a, 0) > 0 OR coalesce(balance_b, 0) > 0 THEN 'active' ELSE 'inactive' END
    WHEN EXISTS (SELECT 1 FROM known WHERE least(amount, balance, allowance) > 0) THEN 'active'
    ELSE 'inactive'
  END
$$;

ALTER TABLE strategies ADD COLUMN state text CHECK (state IN ('active', 'inactive'));

CREATE OR REPLACE FUNCTION strategies_list_json() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- What the reader set stands unless the strategy's own side moved (or it is new).
  IF TG_OP = 'INSERT' OR NEW.state IS NULL OR NEW.status IS DISTINCT FROM OLD.status
     OR NEW.balance_a IS DISTINCT FROM OLD.balance_a OR NEW.balance_b IS DISTINCT FROM OLD.balance_b THEN
    NEW.state := strategy_state(NEW.status, NEW.chain_key, NEW.maker, NEW.token_a, NEW.token_b, NEW.balance_a, NEW.balance_b);
  END IF;
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
    || ',"apy7d":' || coalesce(to_json(NEW.apy_7d)::text, 'null')
    || ',"state":' || to_json(NEW.state)::text || '}';
  RETURN NEW;
END
$$;


-- Rows written before this migration: the update fires the trigger, which sets both.
UPDATE strategies SET state = NULL;

ALTER TABLE strategies ALTER COLUMN state SET NOT NULL;
