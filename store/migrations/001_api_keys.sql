-- API keys: only a hash of the secret is stored; the clear key is shown once at creation.
CREATE TABLE api_keys (
  key_id text PRIMARY KEY,
  environment text NOT NULL CHECK (environment IN ('test', 'live')),
  secret_hash bytea NOT NULL,
  scopes text[] NOT NULL DEFAULT ARRAY['prepare'],
  origins text[],
  label text,
  prepare_limit_per_minute integer NOT NULL DEFAULT 6 CHECK (prepare_limit_per_minute > 0),
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);
