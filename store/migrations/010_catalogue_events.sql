-- The live stream of catalogue events (issue 19 item 4, GET /api/events). The indexer writes one row per
-- strategy shipped, swap and dock in the same transaction as the catalogue rows it derives from
-- (indexer/catalogueEvents.ts), then NOTIFY catalogue_events; every gateway LISTENs and fans the new rows
-- out to its Server-Sent Events clients. `id` is the SSE event id: writers take a transaction-level
-- advisory lock before inserting, so ids become visible in increasing order (a reader that saw id n never
-- sees a smaller one commit later).
CREATE TABLE catalogue_events (
  id bigserial PRIMARY KEY,
  -- `strategy.shipped`, `strategy.swapped` or `strategy.docked` (the SSE event name).
  kind text NOT NULL,
  chain_key text NOT NULL,
  -- What the event is about on chain, so a replayed chunk inserts nothing twice:
  -- shipped `<tx>:<hash>`, swapped `<tx>:<log index>`, docked `<block>:<hash>`.
  source text NOT NULL,
  -- The SSE data: a JSON object built by the writer, kept as written (json keeps the key order).
  data json NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (chain_key, kind, source)
);

CREATE INDEX catalogue_events_created ON catalogue_events (created_at);

-- The resume window: the highest id pruned so far. A client resuming after id n gets every event after n
-- when n >= pruned_through (none of those was pruned); an older n gets a `reset` event instead.
CREATE TABLE catalogue_events_pruned (
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  pruned_through bigint NOT NULL
);
INSERT INTO catalogue_events_pruned (pruned_through) VALUES (0);
