import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawCall } from '../helpers/rawGet.js';
import { startTestService, type TestService } from '../helpers/service.js';

/**
 * Browser access over a socket (rest/cors.ts): `*` on the public reads, on their errors and 429s too,
 * with the headers a page needs exposed; a preflight answered 204 after the bucket; nothing on the demo
 * endpoints; on /v1 the Origin reflected only for a key that lists it. Then the switches off.
 */

const APP = 'https://app.example';
const EVIL = 'https://evil.example';
const HASH = `0x${'ab'.repeat(32)}`;
const PUBLIC = [
  '/api/stats',
  '/api/chains',
  '/api/strategies',
  `/api/strategy-detail?hash=${HASH}`,
  '/api/quote',
  '/api/badge',
  '/openapi.json',
];

let svc: TestService;
let off: TestService;
let listed: string;
let unlisted: string;

const call = (method: string, path: string, headers: Record<string, string> = {}, on = svc) =>
  rawCall(on.url, method, path, headers);

const preflight = (
  path: string,
  method = 'GET',
  headers = 'if-none-match',
  extra: Record<string, string> = {},
) =>
  call('OPTIONS', path, {
    origin: APP,
    'access-control-request-method': method,
    'access-control-request-headers': headers,
    ...extra,
  });

beforeAll(async () => {
  [svc, off] = await Promise.all([
    startTestService({ env: { TRUST_PROXY: '1', INDEXER: 'off' } }),
    startTestService({
      env: { TRUST_PROXY: '1', INDEXER: 'off', CORS: 'off', HTTP_CACHE: 'off', COMPRESSION: 'off' },
    }),
  ]);
  listed = (await svc.createKey({ environment: 'TEST', origins: [APP] })).key;
  unlisted = (await svc.createKey({ environment: 'TEST' })).key;
});
afterAll(async () => {
  await Promise.all([svc?.stop(), off?.stop()]);
});

describe('the public reads', () => {
  it('carry Access-Control-Allow-Origin: * and expose the headers a page reads, errors included', async () => {
    for (const path of PUBLIC) {
      const reply = await call('GET', path, { origin: APP });
      expect({ path, acao: reply.headers['access-control-allow-origin'] }).toEqual({ path, acao: '*' });
      expect(reply.headers['access-control-allow-credentials']).toBeUndefined();
      if (path === '/openapi.json') continue;
      const exposed = String(reply.headers['access-control-expose-headers']).split(',');
      for (const name of ['X-Request-Id', 'RateLimit-Remaining', 'RateLimit-Policy', 'Retry-After', 'ETag'])
        expect({ path, name, exposed: exposed.includes(name) }).toEqual({ path, name, exposed: true });
    }
    // /api/quote without parameters is a 400; the page can still read the envelope.
    expect((await call('GET', '/api/quote', { origin: APP })).status).toBe(400);
  });

  it('a 429 is readable by the page: Allow-Origin, and Retry-After exposed', async () => {
    const client = { 'x-forwarded-for': '203.0.113.77', origin: APP };
    let last = await call('GET', '/api/strategies', client);
    for (let i = 0; i < 25 && last.status !== 429; i++) last = await call('GET', '/api/strategies', client);
    expect(last.status).toBe(429);
    expect(last.headers['access-control-allow-origin']).toBe('*');
    expect(last.headers['retry-after']).toMatch(/^\d+$/);
  });

  it('answer a preflight 204 with methods, headers and Max-Age; it counts against the bucket', async () => {
    for (const path of PUBLIC) {
      const reply = await preflight(path);
      expect({ path, status: reply.status }).toEqual({ path, status: 204 });
      expect(reply.body.length).toBe(0);
      expect(reply.headers['access-control-allow-origin']).toBe('*');
      expect(String(reply.headers['access-control-allow-methods'])).toMatch(/\bGET\b.*\bHEAD\b/);
      expect(String(reply.headers['access-control-allow-headers'])).toMatch(/If-None-Match/);
      expect(reply.headers['access-control-max-age']).toBe('86400');
    }
    const client = { 'x-forwarded-for': '203.0.113.78' };
    const first = await preflight('/api/chains', 'GET', 'if-none-match', client);
    const second = await preflight('/api/chains', 'GET', 'if-none-match', client);
    expect(first.headers['ratelimit-policy']).toBe('chains;w=60;limit=60');
    expect(Number(second.headers['ratelimit-remaining'])).toBe(
      Number(first.headers['ratelimit-remaining']) - 1,
    );
  });
});

describe('the demo endpoints', () => {
  it('have no CORS: a foreign Origin is refused without Allow-Origin, an OPTIONS is a 405', async () => {
    for (const path of ['/api/pilot', '/api/balances?addresses=0x70997970C51812dc3A010C7d01b50e0d17dc79C8']) {
      const get = await call('GET', path, { origin: EVIL });
      expect({ path, status: get.status, acao: get.headers['access-control-allow-origin'] }).toEqual({
        path,
        status: 403,
        acao: undefined,
      });
      const options = await preflight(path);
      expect({ path, status: options.status, acao: options.headers['access-control-allow-origin'] }).toEqual({
        path,
        status: 405,
        acao: undefined,
      });
    }
  });
});

describe('/v1', () => {
  const position = `/v1/positions/${HASH}`;

  it("reflects the Origin only for a key that lists it, never '*'", async () => {
    const mine = await call('GET', position, { origin: APP, authorization: `Bearer ${listed}` });
    expect(mine.status).toBe(404);
    expect(mine.headers['access-control-allow-origin']).toBe(APP);
    expect(String(mine.headers.vary)).toMatch(/Origin/);
    expect(String(mine.headers['access-control-expose-headers'])).toMatch(/RateLimit-Remaining/);
    const foreign = await call('GET', position, { origin: EVIL, authorization: `Bearer ${listed}` });
    expect(foreign.status).toBe(403);
    expect(foreign.headers['access-control-allow-origin']).toBeUndefined();
    // A key without an origins list belongs on a server: a page gets nothing.
    const server = await call('GET', position, { origin: APP, authorization: `Bearer ${unlisted}` });
    expect(server.status).toBe(404);
    expect(server.headers['access-control-allow-origin']).toBeUndefined();
    const anonymous = await call('GET', position, { origin: APP });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('a preflight is 204; it allows an Origin some active key lists, and no other', async () => {
    const headers = 'authorization,content-type,idempotency-key';
    const ok = await preflight('/v1/positions', 'POST', headers);
    expect(ok.status).toBe(204);
    expect(ok.headers['access-control-allow-origin']).toBe(APP);
    expect(String(ok.headers['access-control-allow-methods'])).toMatch(/POST/);
    expect(String(ok.headers['access-control-allow-headers'])).toMatch(
      /Authorization.*Content-Type.*Idempotency-Key/,
    );
    expect(ok.headers['access-control-max-age']).toBe('86400');
    expect(ok.headers['ratelimit-policy']).toMatch(/^prepare;/);
    const evil = await preflight('/v1/positions', 'POST', headers, { origin: EVIL });
    expect(evil.status).toBe(204);
    expect(evil.headers['access-control-allow-origin']).toBeUndefined();
    expect(evil.headers['access-control-allow-methods']).toMatch(/POST/);
    const byId = await preflight(position, 'GET', 'authorization');
    expect(byId.status).toBe(204);
    expect(byId.headers['access-control-allow-origin']).toBe(APP);
  });

  it('a revoked key no longer opens its origin to a preflight', async () => {
    const other = 'https://gone.example';
    const { keyId } = await svc.createKey({ environment: 'TEST', origins: [other] });
    const before = await preflight('/v1/positions', 'POST', 'authorization', { origin: other });
    expect(before.headers['access-control-allow-origin']).toBe(other);
    await svc.graphql('mutation($id: String!) { revokeApiKey(keyId: $id) }', { id: keyId });
    const after = await preflight('/v1/positions', 'POST', 'authorization', { origin: other });
    expect(after.status).toBe(204);
    expect(after.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('CORS=off HTTP_CACHE=off COMPRESSION=off', () => {
  it('no CORS, no preflight, no caching headers on the reads (/v1 stays no-store), no compression', async () => {
    const stats = await call('GET', '/api/stats', { origin: APP }, off);
    expect(stats.status).toBe(200);
    expect(stats.headers['access-control-allow-origin']).toBeUndefined();
    expect(stats.headers.etag).toBeUndefined();
    expect(stats.headers['cache-control']).toBeUndefined();
    expect((await call('OPTIONS', '/api/stats', { origin: APP }, off)).status).toBe(405);
    // /v1 keeps its no-store: the reads' caching is off, not the key's answers' protection.
    const offKey = (await off.createKey({ environment: 'TEST' })).key;
    const positions = await call('GET', '/v1/positions', { authorization: `Bearer ${offKey}` }, off);
    expect(positions.status).toBe(200);
    expect(positions.headers['cache-control']).toBe('no-store');
    expect(positions.headers.etag).toBeUndefined();
    // (/openapi.json keeps a gzip copy of its own: br is the middleware's.)
    const doc = await call('GET', '/openapi.json', { 'accept-encoding': 'br' }, off);
    expect(doc.body.length).toBeGreaterThan(1024);
    expect(doc.headers['content-encoding']).toBeUndefined();
    // The same document from the service with the switches on is compressed.
    const onDoc = await call('GET', '/openapi.json', { 'accept-encoding': 'br' });
    expect(onDoc.headers['content-encoding']).toBe('br');
  });
});
