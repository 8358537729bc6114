-- Webhooks (issue 19, item 3): endpoints a key registers, one delivery per (endpoint, event) and every
-- attempt made at it. The outbox is graphile-worker's job table: the triggers below call its public SQL
-- API (graphile_worker.add_job) in the SAME transaction that changes a strategy's state (the indexer's
-- chunk), so an event is queued if and only if the change commits. graphile-worker's own schema is
-- installed by its migrations (runMigrations) at start, before anything can fire these triggers; the
-- function bodies are resolved only when they run.
CREATE TABLE webhooks (
  webhook_id text PRIMARY KEY,
  key_id text NOT NULL REFERENCES api_keys (key_id),
  -- https (or, where the operator allows it, http) URL; checked against SSRF at registration and at each attempt.
  url text NOT NULL,
  events text[] NOT NULL,
  -- The signing secret, sealed with WEBHOOK_SECRETS_KEY when set (delivery/secrets.ts). The server signs,
  -- so it keeps the secret; it is shown once, never logged.
  secret text NOT NULL,
  -- After a rotation the previous secret signs alongside the new one until it expires.
  previous_secret text,
  previous_secret_expires_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  -- Set when a delivery exhausted its retry schedule: no event is queued for it any more.
  disabled_at timestamptz,
  disabled_reason text
);
CREATE INDEX webhooks_key_created ON webhooks (key_id, created_at DESC, webhook_id DESC);

CREATE TABLE webhook_deliveries (
  -- `msg_…`: the webhook-id header, the same for every attempt and replay (receivers dedupe on it).
  delivery_id text PRIMARY KEY,
  webhook_id text NOT NULL REFERENCES webhooks (webhook_id) ON DELETE CASCADE,
  event_type text NOT NULL,
  strategy_hash text NOT NULL,
  -- One lifecycle event per endpoint and position, whatever re-indexing replays.
  dedupe_key text NOT NULL,
  occurred_at timestamptz NOT NULL DEFAULT now(),
  -- The signed body: built at the first attempt, then sent byte for byte by retries and replays.
  payload text,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
  -- Attempts of the current generation (a replay starts a new generation).
  attempts integer NOT NULL DEFAULT 0,
  generation integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz DEFAULT now(),
  completed_at timestamptz,
  -- The graphile-worker id running an attempt now: a process that dies mid-attempt leaves its job locked,
  -- and the sweep (delivery/worker.ts) unlocks the worker ids whose claim is older than an attempt can last.
  claimed_by text,
  claimed_at timestamptz,
  CONSTRAINT webhook_deliveries_dedupe UNIQUE (webhook_id, dedupe_key)
);
CREATE INDEX webhook_deliveries_list ON webhook_deliveries (webhook_id, occurred_at DESC, delivery_id DESC);
CREATE INDEX webhook_deliveries_claimed ON webhook_deliveries (claimed_at) WHERE claimed_by IS NOT NULL;

CREATE TABLE webhook_attempts (
  delivery_id text NOT NULL REFERENCES webhook_deliveries (delivery_id) ON DELETE CASCADE,
  generation integer NOT NULL,
  attempt integer NOT NULL,
  attempted_at timestamptz NOT NULL,
  status_code integer,
  duration_ms integer NOT NULL,
  error text,
  next_attempt_at timestamptz,
  PRIMARY KEY (delivery_id, generation, attempt)
);

-- The last health the service observed of a position (health is read live from the chain, on
-- GET /v1/positions/{id}): a different one queues position.health_changed.
CREATE TABLE position_health_seen (
  strategy_hash text PRIMARY KEY REFERENCES positions (strategy_hash) ON DELETE CASCADE,
  status text NOT NULL,
  -- The whole health object as observed at the change (the data of position.health_changed).
  health jsonb NOT NULL,
  seen_at timestamptz NOT NULL DEFAULT now()
);

-- Queues `event_type` of a position for every enabled endpoint of its key subscribed to it.
CREATE FUNCTION webhook_enqueue(p_chain text, p_hash text, p_type text, p_dedupe text) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  d record;
  queued integer := 0;
BEGIN
  FOR d IN
    INSERT INTO webhook_deliveries (delivery_id, webhook_id, event_type, strategy_hash, dedupe_key)
    SELECT 'msg_' || replace(gen_random_uuid()::text, '-', ''), w.webhook_id, p_type, p_hash, p_dedupe
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

CREATE FUNCTION strategies_webhook_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM webhook_enqueue(NEW.chain_key, NEW.strategy_hash, 'position.shipped',
      'position.shipped:' || NEW.strategy_hash);
  END IF;
  IF NEW.first_volume_seen_at IS NOT NULL AND (TG_OP = 'INSERT' OR OLD.first_volume_seen_at IS NULL) THEN
    PERFORM webhook_enqueue(NEW.chain_key, NEW.strategy_hash, 'position.filled',
      'position.filled:' || NEW.strategy_hash);
  END IF;
  IF NEW.status = 'docked' AND (TG_OP = 'INSERT' OR OLD.status IS DISTINCT FROM 'docked') THEN
    PERFORM webhook_enqueue(NEW.chain_key, NEW.strategy_hash, 'position.docked',
      'position.docked:' || NEW.strategy_hash);
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER strategies_webhook_shipped AFTER INSERT ON strategies
  FOR EACH ROW EXECUTE FUNCTION strategies_webhook_events();
-- Only the updates that change the state (the indexer updates balances and volume all the time).
CREATE TRIGGER strategies_webhook_changed AFTER UPDATE OF first_volume_seen_at, status ON strategies
  FOR EACH ROW
  WHEN ((OLD.first_volume_seen_at IS NULL AND NEW.first_volume_seen_at IS NOT NULL)
     OR (NEW.status = 'docked' AND OLD.status IS DISTINCT FROM 'docked'))
  EXECUTE FUNCTION strategies_webhook_events();
