-- The catalogue the indexer writes and the gateway reads. Hashes, addresses and tx hashes are
-- lowercase 0x-hex text; on-chain amounts are numeric(78,0) (uint256); USD values double precision.

-- Where the indexer is, per chain: the last block whose logs are fully stored.
CREATE TABLE indexer_checkpoints (
  chain_key text PRIMARY KEY,
  chain_id integer NOT NULL,
  last_block bigint NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE strategies (
  chain_key text NOT NULL,
  strategy_hash text NOT NULL,
  maker text NOT NULL,
  app text NOT NULL,
  -- The exact bytes shipped (abi-encoded order): quotes replay them byte for byte.
  strategy text NOT NULL,
  traits numeric(78,0),
  -- Decoded program instructions (or the raw form for unknown opcodes).
  program jsonb NOT NULL DEFAULT '[]'::jsonb,
  -- Two-token strategies: token_a is the lower address. Other token counts keep tokens[] only.
  token_a text,
  token_b text,
  symbol_a text,
  symbol_b text,
  decimals_a integer,
  decimals_b integer,
  -- Pair key with the two symbols in alphabetical order ("USDC/USDT"), so a filter matches either order.
  pair_key text,
  tokens jsonb NOT NULL DEFAULT '[]'::jsonb,
  initial_a numeric(78,0),
  initial_b numeric(78,0),
  -- Live virtual balances, following Pulled and Pushed.
  balance_a numeric(78,0),
  balance_b numeric(78,0),
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'docked')),
  shipped_block bigint NOT NULL,
  shipped_tx text NOT NULL,
  shipped_at timestamptz NOT NULL,
  docked_block bigint,
  docked_at timestamptz,
  volume_usd double precision NOT NULL DEFAULT 0,
  swap_count integer NOT NULL DEFAULT 0,
  last_swap_at timestamptz,
  -- When the service first observed it on chain, and first observed settled volume (SPEC §2.6).
  first_seen_at timestamptz NOT NULL DEFAULT now(),
  first_volume_seen_at timestamptz,
  PRIMARY KEY (chain_key, strategy_hash)
);
CREATE INDEX strategies_hash ON strategies (strategy_hash);
CREATE INDEX strategies_list ON strategies (status, shipped_at DESC, strategy_hash);
CREATE INDEX strategies_chain_pair ON strategies (chain_key, pair_key, status, shipped_at DESC, strategy_hash);
CREATE INDEX strategies_pair ON strategies (pair_key, status, shipped_at DESC, strategy_hash);
CREATE INDEX strategies_volume ON strategies (status, volume_usd DESC, strategy_hash);
CREATE INDEX strategies_maker ON strategies (maker);

CREATE TABLE swaps (
  chain_key text NOT NULL,
  tx_hash text NOT NULL,
  log_index integer NOT NULL,
  block_number bigint NOT NULL,
  block_time timestamptz NOT NULL,
  strategy_hash text NOT NULL,
  maker text NOT NULL,
  taker text NOT NULL,
  token_in text NOT NULL,
  token_out text NOT NULL,
  amount_in numeric(78,0) NOT NULL,
  amount_out numeric(78,0) NOT NULL,
  volume_usd double precision NOT NULL,
  PRIMARY KEY (chain_key, tx_hash, log_index)
);
CREATE INDEX swaps_strategy ON swaps (chain_key, strategy_hash, block_number DESC);
CREATE INDEX swaps_time ON swaps (block_time);
CREATE INDEX swaps_block ON swaps (chain_key, block_number DESC);

-- Pulled and Pushed, as signed deltas of a strategy's virtual balance.
CREATE TABLE balance_changes (
  chain_key text NOT NULL,
  tx_hash text NOT NULL,
  log_index integer NOT NULL,
  block_number bigint NOT NULL,
  strategy_hash text NOT NULL,
  token text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('pull', 'push')),
  amount numeric(78,0) NOT NULL,
  PRIMARY KEY (chain_key, tx_hash, log_index)
);
CREATE INDEX balance_changes_strategy ON balance_changes (chain_key, strategy_hash);

-- Volume per chain, pair and hour, maintained as swaps are stored: the roll-up sums at most
-- 30 days × 24 hours of it instead of scanning swaps.
CREATE TABLE volume_hourly (
  chain_key text NOT NULL,
  pair_key text NOT NULL,
  hour timestamptz NOT NULL,
  volume_usd double precision NOT NULL DEFAULT 0,
  swap_count integer NOT NULL DEFAULT 0,
  last_swap_at timestamptz,
  PRIMARY KEY (chain_key, pair_key, hour)
);
CREATE INDEX volume_hourly_hour ON volume_hourly (hour);

-- The pre-aggregated roll-up the read endpoints serve; one row, replaced on each refresh.
CREATE TABLE rollups (
  name text PRIMARY KEY,
  payload jsonb NOT NULL,
  refreshed_at timestamptz NOT NULL DEFAULT now()
);
