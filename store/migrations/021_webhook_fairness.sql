-- Fair delivery: no endpoint's failures delay another endpoint's deliveries.
--
-- Lanes. Every attempt's job goes to one of two graphile-worker named queues of its endpoint (chosen
-- by its delivery id): jobs of one queue run one at a time across all workers, so one endpoint holds at
-- most two of the delivery slots, however many of its deliveries are due and however long it hangs.
-- The one way a delivery's job is queued (triggers, retries, replays, deferrals): webhook_add_job.
-- plpgsql: its body is resolved when it runs, after graphile-worker's own migrations (as 009's triggers).
CREATE FUNCTION webhook_add_job(p_delivery text, p_generation integer, p_run_at timestamptz) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM graphile_worker.add_job('webhook_deliver',
    json_build_object('deliveryId', p_delivery, 'generation', p_generation),
    queue_name := 'webhook:' || d.webhook_id || ':' || (abs(hashtext(p_delivery)) % 2)::text,
    run_at := coalesce(p_run_at, now()), max_attempts := 10)
    FROM webhook_deliveries d WHERE d.delivery_id = p_delivery;
END $$;

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
    PERFORM webhook_add_job(d.delivery_id, 0, NULL);
    queued := queued + 1;
  END LOOP;
  RETURN queued;
END $$;

-- The circuit of an endpoint: failed attempts in a row, and until when its due attempts are put off
-- (without holding a slot) instead of made. Reset by a delivered attempt.
ALTER TABLE webhooks ADD COLUMN consecutive_failures integer NOT NULL DEFAULT 0;
ALTER TABLE webhooks ADD COLUMN circuit_open_until timestamptz;

-- position.health_changed coalesced per position and endpoint: a change while an earlier one is still
-- unsent (its body is built at its first attempt, with the health observed last) queues nothing, and a
-- change within p_interval of the last one queued waits out the rest of it. A wallet shared by several
-- positions moves in and out of coverage with every swap: its positions no longer page their endpoints
-- at each swap. A put-off delivery occurs (occurred_at, the body's timestamp) when it is due: its body
-- is built then, with the health observed last.
CREATE FUNCTION webhook_enqueue_health(p_chain text, p_hash text, p_interval interval) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  d record;
  queued integer := 0;
BEGIN
  FOR d IN
    INSERT INTO webhook_deliveries (delivery_id, webhook_id, event_type, strategy_hash, dedupe_key, occurred_at,
      next_attempt_at)
    SELECT 'msg_' || replace(gen_random_uuid()::text, '-', ''), w.webhook_id, 'position.health_changed', p_hash,
      'position.health_changed:' || p_hash || ':' || gen_random_uuid()::text,
      greatest(now(), last.occurred_at + p_interval), greatest(now(), last.occurred_at + p_interval)
      FROM positions p
      JOIN webhooks w ON w.key_id = p.key_id
      LEFT JOIN LATERAL (
        SELECT l.occurred_at FROM webhook_deliveries l
         WHERE l.webhook_id = w.webhook_id AND l.strategy_hash = p_hash AND l.event_type = 'position.health_changed'
         ORDER BY l.occurred_at DESC LIMIT 1) last ON true
     WHERE p.strategy_hash = p_hash AND p.chain_key = p_chain AND w.disabled_at IS NULL
       AND 'position.health_changed' = ANY (w.events)
       AND NOT EXISTS (
         SELECT 1 FROM webhook_deliveries u
          WHERE u.webhook_id = w.webhook_id AND u.strategy_hash = p_hash
            AND u.event_type = 'position.health_changed' AND u.status = 'pending' AND u.payload IS NULL)
    RETURNING delivery_id, next_attempt_at
  LOOP
    PERFORM webhook_add_job(d.delivery_id, 0, d.next_attempt_at);
    queued := queued + 1;
  END LOOP;
  RETURN queued;
END $$;
CREATE INDEX webhook_deliveries_position ON webhook_deliveries (webhook_id, strategy_hash, event_type, occurred_at DESC);
