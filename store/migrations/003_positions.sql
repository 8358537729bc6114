-- Positions prepared through POST /v1/positions. The service never signs: a row records what was
-- prepared for which key, so that a repeated prepare with the same Idempotency-Key returns the same
-- payload and GET /v1/positions/{id} answers only the key that prepared it. Status is observed by
-- joining `strategies` (chain_key, strategy_hash); nothing here is updated after the insert.
CREATE TABLE positions (
  -- keccak256 of the strategy bytes: the position's id (SPEC §2.6 positionId = strategyHash).
  strategy_hash text PRIMARY KEY,
  key_id text NOT NULL REFERENCES api_keys (key_id),
  -- The Idempotency-Key header (lower-case uuid), when given. NULLs are distinct, so calls without
  -- the header always insert; with it, concurrent duplicates collide here and exactly one row wins.
  idempotency_key text,
  chain_key text NOT NULL,
  chain_id integer NOT NULL,
  wallet text NOT NULL,
  token_a text NOT NULL,
  token_b text NOT NULL,
  amount_a numeric(78,0) NOT NULL,
  amount_b numeric(78,0) NOT NULL,
  maker_fee_bps integer NOT NULL,
  protocol_fee_bps integer NOT NULL,
  -- sha256 of the canonical request: the same Idempotency-Key with another body is refused (422).
  request_fingerprint text NOT NULL,
  -- The `data` of the 200 response, without metadata; a repeat returns it as stored.
  payload jsonb NOT NULL,
  -- The caller's free-form map, echoed back; never logged.
  metadata jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT positions_idempotency UNIQUE (key_id, idempotency_key)
);
CREATE INDEX positions_key_created ON positions (key_id, created_at DESC);
