/**
 * A key's row is read once per process and kept (store/apiKeyCache.ts), yet a revocation still
 * takes effect on the key's next request, whoever writes it: the revokeApiKey mutation of this process,
 * or plain SQL from elsewhere (another replica, `npm run keys`, an operator), announced by the trigger
 * of migration 016 over the real Postgres. Statements are counted on the service's own pool (each
 * still runs; the count only watches them go by).
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticate, revokeKey } from '../../resolvers/apiKeys.js';
import { ApiKeyCache } from '../../store/apiKeyCache.js';
import { findApiKey } from '../../store/apiKeys.js';
import { startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
/** A connection of its own: what another process writing the keys table would be. */
let elsewhere: pg.Client;
let keyStatements = 0;
/** The key ids the service's cache was told to forget (its notices, watched as they pass). */
const forgotten: string[] = [];

const POSITION = `/v1/positions/0x${'cd'.repeat(32)}`;

async function status(key: string): Promise<number> {
  const res = await svc.get(POSITION, { headers: { authorization: `Bearer ${key}` } });
  await res.arrayBuffer();
  return res.status;
}

async function until(what: string, check: () => boolean | Promise<boolean>, ms = 30_000): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > ms) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return Date.now() - started;
}

const live = () => svc.services.apiKeys?.live === true;

beforeAll(async () => {
  svc = await startTestService({ env: { INDEXER: 'off' } });
  const db = svc.services.db;
  const query = db.query.bind(db) as (...args: unknown[]) => unknown;
  // pg's query is overloaded; the watcher passes every call through unchanged.
  (db as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string } | null)?.text;
    if (text?.includes('api_keys')) keyStatements++;
    return query(...args);
  };
  elsewhere = new pg.Client({ connectionString: svc.services.config.databaseUrl });
  await elsewhere.connect();
  await until('the change feed listens', live);
  const cache = svc.services.apiKeys!;
  const forget = cache.forget.bind(cache);
  cache.forget = (key: string) => {
    forgotten.push(key);
    forget(key);
  };
}, 60_000);

afterAll(async () => {
  await elsewhere?.end();
  await svc?.stop();
});

describe('the key cache', () => {
  it("reads a key's row once for many requests", async () => {
    const { key } = await svc.createKey({ environment: 'TEST' });
    keyStatements = 0;
    for (let i = 0; i < 20; i++) expect(await status(key)).toBe(404);
    expect(keyStatements).toBe(1);
  });

  it.each([
    ['revoked', 'UPDATE api_keys SET revoked_at = now() WHERE key_id = $1'],
    ['deleted', 'DELETE FROM api_keys WHERE key_id = $1'],
  ])(
    'refuses a key %s by plain SQL elsewhere on its first request after the notice arrives',
    async (what, sql) => {
      const { key, keyId } = await svc.createKey({ environment: 'TEST' });
      expect(await status(key)).toBe(404);
      // Kept: answered without a store read, so only the notice (or the age limit) can change the answer.
      keyStatements = 0;
      expect(await status(key)).toBe(404);
      expect(keyStatements).toBe(0);
      forgotten.length = 0;
      await elsewhere.query(sql, [keyId]);
      // The notice reaching the service's cache is the event; the deadline only ends a hung test.
      await until(`the ${what} key's notice arrives`, () => forgotten.includes(keyId), 20_000);
      // The very next request is refused: the notice, not the row's age, took the key out.
      expect(await status(key)).toBe(401);
    },
  );

  it('refuses a wrong secret of a kept key with one store read, as it refuses an unknown key id', async () => {
    const { key, keyId } = await svc.createKey({ environment: 'TEST' });
    expect(await status(key)).toBe(404);
    const wrong = key.replace(/_[A-Za-z0-9]+$/, `_${'w'.repeat(32)}`);
    expect(wrong).not.toBe(key);
    keyStatements = 0;
    expect(await status(wrong)).toBe(401);
    const known = keyStatements;
    keyStatements = 0;
    expect(
      await status(wrong.replace(keyId, `${keyId.slice(0, -1)}${keyId.endsWith('z') ? 'y' : 'z'}`)),
    ).toBe(401);
    const unknown = keyStatements;
    // Each refusal reads the store once: a kept (in use) key id is not told apart by its refusal time.
    expect([known, unknown]).toEqual([1, 1]);
    // The key itself is still answered from what the process keeps.
    keyStatements = 0;
    expect(await status(key)).toBe(404);
    expect(keyStatements).toBe(0);
  });

  it('refuses a key revoked through this process on its very next request', async () => {
    const { key, keyId } = await svc.createKey({ environment: 'TEST' });
    expect(await status(key)).toBe(404);
    expect(await status(key)).toBe(404);
    await svc.graphql('mutation($id: String!) { revokeApiKey(keyId: $id) }', { id: keyId });
    expect(await status(key)).toBe(401);
  });

  it('revokeApiKey forgets the row in its own process before it answers, notice or not', async () => {
    const { key, keyId } = await svc.createKey({ environment: 'TEST' });
    // A cache no notice reaches (its feed says it is up): only the revocation's own forget can empty it.
    const deaf = new ApiKeyCache({ connected: true }, (id) => findApiKey(svc.services.db, id));
    const services = { db: svc.services.db, apiKeys: deaf };
    expect((await authenticate(services, `Bearer ${key}`)).keyId).toBe(keyId);
    expect(deaf.size).toBe(1);
    expect(await revokeKey(services, keyId)).toBe(true);
    await expect(authenticate(services, `Bearer ${key}`)).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
  });

  it('reads the store for every request while the feed is lost, and keeps rows again once it is back', async () => {
    const { key, keyId } = await svc.createKey({ environment: 'TEST' });
    expect(await status(key)).toBe(404);
    const { rowCount } = await elsewhere.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE datname = current_database() AND query = 'LISTEN api_key_changes'`,
    );
    expect(rowCount).toBe(1);
    await until('the feed is seen lost', () => !live());
    // A change no notice can announce now: the next request reads it anyway.
    await elsewhere.query('UPDATE api_keys SET revoked_at = now() WHERE key_id = $1', [keyId]);
    keyStatements = 0;
    expect(await status(key)).toBe(401);
    expect(await status(key)).toBe(401);
    expect(keyStatements).toBe(2);
    await until('the feed listens again', live, 15_000);
    const fresh = await svc.createKey({ environment: 'TEST' });
    keyStatements = 0;
    for (let i = 0; i < 5; i++) expect(await status(fresh.key)).toBe(404);
    expect(await status(key)).toBe(401);
    expect(keyStatements).toBe(2);
  });
});
