-- The agreed write bucket of a key (issue 22), as prepare_limit_per_minute is the agreed prepare bucket:
-- POST /v1/swaps and POST /v1/positions/{id}/dock|approvals count against it (rest/buckets.ts `write`).
-- SPEC §8: a raised bucket is requested instead of more keys. Existing keys keep the bucket's 6.
ALTER TABLE api_keys
  ADD COLUMN write_limit_per_minute integer NOT NULL DEFAULT 6 CHECK (write_limit_per_minute > 0);
