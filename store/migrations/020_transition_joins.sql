-- The statement triggers of `strategies` that join a statement's old and new rows (transition tables, which
-- have no statistics) were planned as nested loops: fine for the indexer's chunks of a few rows, but an
-- UPDATE of 50,000 rows (a rewind undoing that many docks on the 1M catalogue, bench:recovery) compared
-- every old row with every new one and ran for over 8 minutes. Without nested loops it takes 13 s.
ALTER FUNCTION analytics_on_change() SET enable_nestloop = off;
ALTER FUNCTION catalogue_counts_on_change() SET enable_nestloop = off;
