-- Recovery from a rewound or replaced chain.
--
-- A position whose observation a rewind undid (its strategy's ship reorganised away, or its dock) is
-- told to its webhooks as `position.reverted`, and the lifecycle events that follow are new ones: each
-- revert raises the position's observation revision, which the dedupe keys of its deliveries carry from
-- then on (revision 0 keeps the keys it always had, so nothing delivered before is queued again).
ALTER TABLE positions ADD COLUMN observation_revision integer NOT NULL DEFAULT 0;

CREATE OR REPLACE FUNCTION webhook_enqueue(p_chain text, p_hash text, p_type text, p_dedupe text) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  d record;
  queued integer := 0;
BEGIN
  FOR d IN
    INSERT INTO webhook_deliveries (delivery_id, webhook_id, event_type, strategy_hash, dedupe_key)
    SELECT 'msg_' || replace(gen_random_uuid()::text, '-', ''), w.webhook_id, p_type, p_hash,
      p_dedupe || CASE WHEN p.observation_revision > 0 THEN ':' || p.observation_revision ELSE '' END
      FROM positions p
      JOIN webhooks w ON w.key_id = p.key_id
     WHERE p.strategy_hash = p_hash AND p.chain_key = p_chain AND w.disabled_at IS NULL
       AND p_type = ANY (w.events)
    ON CONFLICT ON CONSTRAINT webhook_deliveries_dedupe DO NOTHING
    RETURNING delivery_id
  LOOP
    PERFORM graphile_worker.add_job('webhook_deliver',
      json_build_object('deliveryId', d.delivery_id, 'generation', 0), max_attempts := 10);
    queued := queued + 1;
  END LOOP;
  RETURN queued;
END $$;

-- Strategies deleted by a rewind (their ship is gone): their positions are `prepared` again.
-- One statement-level pass over the deleted rows, so a chain indexed anew stays one join, not a call per row.
CREATE FUNCTION positions_ship_reverted() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  r record;
BEGIN
  FOR r IN
    UPDATE positions p SET observation_revision = p.observation_revision + 1
      FROM old_rows o
     WHERE p.strategy_hash = o.strategy_hash AND p.chain_key = o.chain_key
    RETURNING p.chain_key, p.strategy_hash, p.observation_revision
  LOOP
    PERFORM webhook_enqueue(r.chain_key, r.strategy_hash, 'position.reverted',
      'position.reverted:' || r.strategy_hash);
  END LOOP;
  RETURN NULL;
END $$;
CREATE TRIGGER strategies_ship_reverted AFTER DELETE ON strategies
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION positions_ship_reverted();

-- A dock undone by a rewind: the position is open (shipped or filled) again.
CREATE FUNCTION positions_dock_reverted() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  revision integer;
BEGIN
  UPDATE positions SET observation_revision = observation_revision + 1
   WHERE strategy_hash = NEW.strategy_hash AND chain_key = NEW.chain_key
  RETURNING observation_revision INTO revision;
  IF revision IS NOT NULL THEN
    PERFORM webhook_enqueue(NEW.chain_key, NEW.strategy_hash, 'position.reverted',
      'position.reverted:' || NEW.strategy_hash);
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER strategies_dock_reverted AFTER UPDATE OF status ON strategies
  FOR EACH ROW WHEN (OLD.status = 'docked' AND NEW.status IS DISTINCT FROM 'docked')
  EXECUTE FUNCTION positions_dock_reverted();

-- Each chain's last successful sync and the head it saw: readiness and /metrics tell a chain whose
-- indexer is stuck or far behind from one that is merely quiet, in every process (not only the writer).
ALTER TABLE indexer_checkpoints ADD COLUMN synced_at timestamptz;
ALTER TABLE indexer_checkpoints ADD COLUMN head_block bigint;
