-- A position prepared by a rebalance names the position it replaces (docked in the same bundle).
ALTER TABLE positions ADD COLUMN replaces text;
