-- Every UPDATE or DELETE of a key's row (a revocation, new limits, a deletion), by whatever writes it
-- (the revokeApiKey mutation, `npm run keys`, an operator's own SQL), is announced on the channel
-- api_key_changes with the key's id: each gateway process keeps the keys it authenticated
-- (resolvers/apiKeyCache.ts) and forgets one when told, and keeps none longer than 10 s for what a row
-- trigger does not see (TRUNCATE, replica-mode sessions). New keys need no notice: nothing holds them yet.
CREATE FUNCTION api_key_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('api_key_changes', OLD.key_id);
  RETURN NULL;
END
$$;

CREATE TRIGGER api_key_changed
  AFTER UPDATE OR DELETE ON api_keys
  FOR EACH ROW EXECUTE FUNCTION api_key_changed();
