-- Positions observed docked (issue 17): when the service first saw a strategy docked, as first_seen_at
-- and first_volume_seen_at record shipping and volume (SPEC §2.6: firstSeen* are observation times, not
-- chain times; docked_at is the block's). Set by a row trigger whoever writes the row (the indexer's dock,
-- or a re-index that inserts a row already docked), so the indexer needs no change.
ALTER TABLE strategies ADD COLUMN docked_seen_at timestamptz;

CREATE FUNCTION strategies_docked_seen() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.status = 'docked' AND NEW.docked_seen_at IS NULL THEN
    NEW.docked_seen_at := now();
  END IF;
  RETURN NEW;
END $$;

CREATE TRIGGER strategies_docked_seen BEFORE INSERT OR UPDATE OF status ON strategies
  FOR EACH ROW WHEN (NEW.status = 'docked') EXECUTE FUNCTION strategies_docked_seen();
