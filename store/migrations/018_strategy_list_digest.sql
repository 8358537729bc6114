-- A digest of each row's rendered list entry (migration 006), kept by Postgres beside it: the ETag of a
-- page of the list is the SHA-1 of the page's digests and of what the reader adds (rest/routes/catalogue.ts),
-- not of the ~16 KB of entries, which the gateway hashed again on every request (~6% of a list's CPU,
-- bench/all.ts). A stored generated column: computed after the BEFORE trigger that renders list_json, in
-- the same statement as every write of the row, so it can never disagree with the entry it digests.
-- NULL where list_json is NULL (those rows are hashed as the text the reader builds).
ALTER TABLE strategies ADD COLUMN list_digest text GENERATED ALWAYS AS (md5(list_json)) STORED;
