import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { responseCacheFor } from '../../rest/responseCache.js';
import type { RestRoute } from '../../rest/route.js';
import { type CatalogueRollup, writeRollup } from '../../store/rollups.js';
import { fixtureChains, insertStrategy, type StoredFixture } from '../helpers/catalogue.js';
import { type RawReply, rawCall } from '../helpers/rawGet.js';
import { startTestService, type TestService } from '../helpers/service.js';

/**
 * HTTP caching and compression over a socket (rest/httpCache.ts, COMPRESSION): Cache-Control per path,
 * a strong ETag over `data` and 304 on If-None-Match for stats, chains, badge, the strategy lists and
 * the detail; no-store on /v1 and on errors; gzip / br only over the threshold and only when asked.
 * Catalogue rows are written straight into a fresh database (the indexer is off).
 */

const chains = fixtureChains();
const base = chains[0]!;
let svc: TestService;
const stored: StoredFixture[] = [];
let key: string;

/** A key-protected route of the test only: a /v1 success without a chain behind it. */
const echo: RestRoute = {
  method: 'GET',
  path: '/v1/test-echo',
  bucket: 'positions',
  auth: { scope: null },
  async handle() {
    return { body: { data: { echo: 'x'.repeat(2000) }, meta: {} } };
  },
};

const get = (path: string, headers: Record<string, string> = {}) => rawCall(svc.url, 'GET', path, headers);
const json = (reply: RawReply) => JSON.parse(reply.body.toString('utf8')) as Record<string, unknown>;

function rollup(volume: number): CatalogueRollup {
  const now = new Date().toISOString();
  return {
    totals: {
      strategies: 3,
      makers: 2,
      pairs: 1,
      chains: 1,
      volume_1d_usd: volume,
      volume_7d_usd: volume,
      volume_30d_usd: volume,
      last_activity: now,
    },
    chains: [
      {
        chain: 'base',
        chain_id: 8453,
        count: 3,
        makers: 2,
        pairs: 1,
        swaps_30d: 4,
        volume_1d_usd: volume,
        volume_7d_usd: volume,
        volume_30d_usd: volume,
        last_activity: now,
      },
    ],
    pairs: [],
  };
}

beforeAll(async () => {
  svc = await startTestService({
    chains,
    env: { TRUST_PROXY: '1', INDEXER: 'off', INDEXER_POLL_MS: '3000' },
    extraRoutes: [echo],
  });
  for (let i = 0; i < 25; i++) {
    stored.push(
      await insertStrategy(svc.services.db, {
        chain: base,
        symbols: ['USDC', 'USDT'],
        shippedAt: new Date(Date.parse('2025-06-01T00:00:00Z') + i * 60_000),
        salt: 500n + BigInt(i),
      }),
    );
  }
  key = (await svc.createKey({ environment: 'TEST' })).key;
});
afterAll(async () => svc?.stop());

/** The tag, then a 304 for each spelling of If-None-Match that names it, a 200 for one that does not. */
async function revalidates(path: string): Promise<{ first: RawReply; tag: string }> {
  const first = await get(path);
  expect(first.status, `${path}: ${first.body.toString()}`).toBe(200);
  const tag = String(first.headers.etag);
  expect(tag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
  for (const condition of [tag, `W/${tag}`, `"nope", ${tag}`, '*']) {
    const again = await get(path, { 'if-none-match': condition });
    expect({ path, condition, status: again.status }).toEqual({ path, condition, status: 304 });
    expect(again.body.length).toBe(0);
    expect(again.headers.etag).toBe(tag);
    // The same policy (the stats max-age counts down between the two).
    const policy = (cc: unknown) => String(cc).replace(/\d+/, 'N');
    expect(policy(again.headers['cache-control'])).toBe(policy(first.headers['cache-control']));
    expect(again.headers['x-request-id']).toMatch(/./);
    expect(again.headers['ratelimit-policy']).toMatch(/./);
  }
  const other = await get(path, { 'if-none-match': '"nope"' });
  expect(other.status).toBe(200);
  expect(other.headers.etag).toBe(tag);
  return { first, tag };
}

describe('/api/stats', () => {
  it('before the first roll-up (nothing cached): no-cache, and still an ETag', async () => {
    const reply = await get('/api/stats');
    expect(reply.status).toBe(200);
    expect(reply.headers['cache-control']).toBe('public, no-cache');
    expect(reply.headers.etag).toMatch(/^"/);
    await writeRollup(svc.services.db, rollup(1000));
  });

  it('max-age is what is left of the 60 s cache entry; the ETag covers data, not meta', async () => {
    const { first, tag } = await revalidates('/api/stats');
    const maxAge = Number(/^public, max-age=(\d+)$/.exec(String(first.headers['cache-control']))?.[1]);
    expect(maxAge).toBeGreaterThanOrEqual(50);
    expect(maxAge).toBeLessThanOrEqual(60);
    expect(String(first.headers.vary)).toMatch(/Accept-Encoding/);
    const again = await get('/api/stats');
    const [a, b] = [json(first), json(again)];
    expect(b.data).toEqual(a.data);
    expect(b.meta).not.toEqual(a.meta);
    expect(again.headers.etag).toBe(tag);
  });

  it('a new roll-up behind an expired entry is a new tag, and the old one gets the body', async () => {
    const { tag } = await revalidates('/api/stats');
    await responseCacheFor(svc.services).delete('stats');
    await writeRollup(svc.services.db, rollup(2000));
    const reply = await get('/api/stats', { 'if-none-match': tag });
    expect(reply.status).toBe(200);
    expect(reply.headers.etag).not.toBe(tag);
    expect((json(reply).data as { totals: { volume_30d_usd: number } }).totals.volume_30d_usd).toBe(2000);
  });
});

describe('the other reads', () => {
  it('chains, lists, search, detail: max-age of the indexer poll (3 s here), ETag and 304', async () => {
    const hash = stored[0]!.hash;
    for (const path of [
      '/api/chains',
      '/api/strategies?chain=base&pair=USDC/USDT',
      '/api/strategies?resource=search&q=usdc',
      `/api/strategies?resource=detail&hash=${hash}`,
      '/api/strategies?resource=chains',
      `/api/strategy-detail?hash=${hash}`,
    ]) {
      const { first } = await revalidates(path);
      expect({ path, cc: first.headers['cache-control'] }).toEqual({ path, cc: 'public, max-age=3' });
    }
  });

  it("a list's tag follows its content: another page or a new strategy is another tag", async () => {
    const path = '/api/strategies?chain=base&pair=USDC/USDT&limit=5';
    const { tag } = await revalidates(path);
    expect((await get(`${path}&sort=volume`)).headers.etag).not.toBe(tag);
    // Back to the first page, unchanged: its tag again (remembered per content, not only the last one).
    expect((await get(path, { 'if-none-match': tag })).status).toBe(304);
    stored.push(
      await insertStrategy(svc.services.db, {
        chain: base,
        symbols: ['USDC', 'USDT'],
        shippedAt: new Date(),
        salt: 900n,
      }),
    );
    const after = await get(path, { 'if-none-match': tag });
    expect(after.status).toBe(200);
    expect(after.headers.etag).not.toBe(tag);
  });

  it("a list's tag follows each entry it shows: a balance written, a row built from its columns", async () => {
    const path = '/api/strategies?chain=base&pair=USDC/USDT&limit=3';
    const db = svc.services.db;
    const { first, tag } = await revalidates(path);
    const shown = (json(first).data as { strategies: Array<{ hash: string }> }).strategies.map((s) => s.hash);
    // The store keeps the digest of each rendered entry, that is what the tag hashes (migration 018).
    const { rows } = await db.query<{ same: boolean }>(
      'SELECT list_digest = md5(list_json) AS same FROM strategies WHERE strategy_hash = ANY($1)',
      [shown],
    );
    expect(rows.map((r) => r.same)).toEqual([true, true, true]);

    // The indexer writes a new balance for the second entry: its digest, and the page's tag, change.
    const [{ balance_a: was }] = (
      await db.query<{ balance_a: string }>(
        'SELECT balance_a::text FROM strategies WHERE strategy_hash = $1',
        [shown[1]],
      )
    ).rows as [{ balance_a: string }];
    await db.query('UPDATE strategies SET balance_a = balance_a + 1 WHERE strategy_hash = $1', [shown[1]]);
    const changed = await get(path, { 'if-none-match': tag });
    expect(changed.status).toBe(200);
    expect(changed.headers.etag).not.toBe(tag);
    // Written back as it was: the same data, the first tag again.
    await db.query('UPDATE strategies SET balance_a = $2::numeric WHERE strategy_hash = $1', [shown[1], was]);
    expect((await get(path, { 'if-none-match': tag })).status).toBe(304);

    // An entry the store cannot render (a symbol not known yet) is built from its columns and hashed as
    // what it shows: a 304 while unchanged, another tag when its volume moves.
    await db.query('UPDATE strategies SET symbol_b = NULL WHERE strategy_hash = $1', [shown[2]]);
    const built = await revalidates(path);
    expect(built.tag).not.toBe(tag);
    await db.query('UPDATE strategies SET volume_usd = volume_usd + 1 WHERE strategy_hash = $1', [shown[2]]);
    const moved = await get(path, { 'if-none-match': built.tag });
    expect(moved.status).toBe(200);
    expect(moved.headers.etag).not.toBe(built.tag);
    await db.query(
      "UPDATE strategies SET symbol_b = 'USDT', volume_usd = volume_usd - 1 WHERE strategy_hash = $1",
      [shown[2]],
    );
    expect((await get(path, { 'if-none-match': tag })).status).toBe(304);
  });

  it('the badge: max-age of its cacheSeconds (300), ETag and 304; HEAD revalidates too', async () => {
    const { first, tag } = await revalidates('/api/badge?metric=strategies');
    expect(first.headers['cache-control']).toBe('public, max-age=300');
    const head = await rawCall(svc.url, 'HEAD', '/api/badge?metric=strategies', { 'if-none-match': tag });
    expect(head.status).toBe(304);
  });

  it('errors and the quote are no-store, without an ETag', async () => {
    for (const path of ['/api/strategies?limit=0', '/api/badge?metric=nope', '/api/quote', '/api/nowhere']) {
      const reply = await get(path, { 'if-none-match': '*' });
      expect({ path, status: reply.status >= 400, cc: reply.headers['cache-control'] }).toEqual({
        path,
        status: true,
        cc: 'no-store',
      });
      expect(reply.headers.etag).toBeUndefined();
    }
  });
});

describe('/v1', () => {
  it('no-store on success and failure, no ETag, If-None-Match ignored', async () => {
    const ok = await get('/v1/test-echo', { authorization: `Bearer ${key}`, 'if-none-match': '*' });
    expect(ok.status).toBe(200);
    expect(ok.headers['cache-control']).toBe('no-store');
    expect(ok.headers.etag).toBeUndefined();
    const unknown = await get(`/v1/positions/${stored[0]!.hash}`, { authorization: `Bearer ${key}` });
    expect(unknown.status).toBe(404);
    expect(unknown.headers['cache-control']).toBe('no-store');
    const anonymous = await get('/v1/test-echo');
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers['cache-control']).toBe('no-store');
  });
});

describe('compression', () => {
  const list = '/api/strategies?chain=base&pair=USDC/USDT&limit=20';

  it('gzip and br over the threshold when asked; the same data once decoded', async () => {
    const plain = await get(list);
    expect(plain.body.length).toBeGreaterThan(1024);
    expect(plain.headers['content-encoding']).toBeUndefined();
    const gzip = await get(list, { 'accept-encoding': 'gzip' });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gzip.body.length).toBeLessThan(plain.body.length / 2);
    expect(JSON.parse(gunzipSync(gzip.body).toString()).data).toEqual(json(plain).data);
    expect(gzip.headers.etag).toBe(plain.headers.etag);
    const br = await get(list, { 'accept-encoding': 'br;q=1, gzip;q=0.5' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(JSON.parse(brotliDecompressSync(br.body).toString()).data).toEqual(json(plain).data);
    const v1 = await get('/v1/test-echo', { authorization: `Bearer ${key}`, 'accept-encoding': 'gzip' });
    expect(v1.headers['content-encoding']).toBe('gzip');
  });

  it('not under the threshold, not for identity, not on a 304', async () => {
    const badge = await get('/api/badge', { 'accept-encoding': 'gzip, br' });
    expect(badge.body.length).toBeLessThan(1024);
    expect(badge.headers['content-encoding']).toBeUndefined();
    const identity = await get(list, { 'accept-encoding': 'identity' });
    expect(identity.headers['content-encoding']).toBeUndefined();
    const tag = String(identity.headers.etag);
    const notModified = await get(list, { 'accept-encoding': 'gzip', 'if-none-match': tag });
    expect(notModified.status).toBe(304);
    expect(notModified.headers['content-encoding']).toBeUndefined();
    expect(notModified.body.length).toBe(0);
  });

  it('cached stats: gzip and br from the once-compressed data, each with its own meta, the same tag', async () => {
    const big: CatalogueRollup = {
      ...rollup(42),
      pairs: Array.from({ length: 30 }, (_, i) => ({
        pair: `T${i}/USDC`,
        count: 100 - i,
        chains: ['base'],
        volume_1d_usd: i,
        volume_7d_usd: i,
        volume_30d_usd: i,
        last_activity: new Date().toISOString(),
      })),
    };
    await writeRollup(svc.services.db, big);
    await responseCacheFor(svc.services).delete('stats');
    const plain = await get('/api/stats');
    expect(plain.body.length).toBeGreaterThan(1024);
    for (const accept of ['gzip', 'br', 'gzip', 'br', 'gzip, deflate, br']) {
      const reply = await get('/api/stats', { 'accept-encoding': accept });
      const encoding = accept === 'gzip' ? 'gzip' : 'br';
      expect(reply.headers['content-encoding']).toBe(encoding);
      expect(Number(reply.headers['content-length'])).toBe(reply.body.length);
      expect(reply.body.length).toBeLessThan(plain.body.length / 2);
      const text = (
        encoding === 'gzip' ? gunzipSync(reply.body) : brotliDecompressSync(reply.body)
      ).toString();
      const body = JSON.parse(text) as { data: unknown; meta: { requestId: string; cached: boolean } };
      expect(body.data).toEqual(json(plain).data);
      expect(body.meta.requestId).toBe(reply.headers['x-request-id']);
      expect(body.meta.cached).toBe(true);
      expect(reply.headers.etag).toBe(plain.headers.etag);
      expect(reply.headers.vary).toMatch(/Accept-Encoding/);
    }
    // identity: no encoding.
    expect(
      (await get('/api/stats', { 'accept-encoding': 'identity' })).headers['content-encoding'],
    ).toBeUndefined();
  });
});
