-- Reorgs and backfill on real chains (issue 20).
-- The hashes of the blocks the indexer stored near the chain's head (INDEXER_REORG_WINDOW of them):
-- a reorg is found by comparing them with the chain's, and only the rows of the orphaned blocks are
-- rewound (indexer/rewind.ts) instead of indexing the chain anew.
CREATE TABLE indexer_blocks (
  chain_key text NOT NULL,
  block_number bigint NOT NULL,
  block_hash text NOT NULL,
  parent_hash text NOT NULL,
  PRIMARY KEY (chain_key, block_number)
);

-- The time up to which the catalogue holds every event of a chain: the last indexed block's time, or,
-- when the indexer last found the chain's head indexed, the time it looked. A roll-up keeps the oldest
-- of its chains (data_as_of), so meta.freshnessSeconds tells the age of the data (during a backfill,
-- hours or days) and not only the age of the last refresh.
ALTER TABLE indexer_checkpoints ADD COLUMN indexed_through_at timestamptz;
ALTER TABLE rollups ADD COLUMN data_as_of timestamptz;

-- A rewind finds the orphaned rows by block number.
CREATE INDEX balance_changes_block ON balance_changes (chain_key, block_number);
CREATE INDEX strategies_shipped_block ON strategies (chain_key, shipped_block);
CREATE INDEX strategies_docked_block ON strategies (chain_key, docked_block) WHERE docked_block IS NOT NULL;
