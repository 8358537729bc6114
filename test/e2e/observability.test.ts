import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Devnet } from '../../devnet/devnet.js';
import { startSeededDevnet } from '../helpers/devnetSnapshot.js';
import { testPort } from '../helpers/ports.js';
import { startTestService, type TestService } from '../helpers/service.js';

/**
 * GET /metrics, the access log and the request id, over the socket against the service with its
 * embedded indexer following a devnet (ports 19700-19702): request histogram by route pattern,
 * rate-limit refusals, indexer head and lag, RPC calls, pool gauges and cache lookups.
 */

const METRICS_TOKEN = 'metrics-token-0123456789abcdef';
const lines: Array<Record<string, unknown>> = [];
const sink = new Writable({
  write(chunk, _encoding, done) {
    for (const line of String(chunk).split('\n')) if (line) lines.push(JSON.parse(line));
    done();
  },
});

let devnet: Devnet;
let dataDir: string;
let svc: TestService;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'observability-e2e-'));
  devnet = await startSeededDevnet({ basePort: testPort(19700), dataDir, activityMs: 0 });
  svc = await startTestService({
    chains: devnet.chains,
    env: { INDEXER: 'embedded', INDEXER_POLL_MS: '100', METRICS_TOKEN, TRUST_PROXY: '1' },
    logger: pino({ level: 'info' }, sink),
  });
}, 120_000);

afterAll(async () => {
  await svc?.stop();
  await devnet?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

const scrape = async () => {
  const res = await svc.get('/metrics', { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.text();
};

/** The value of one sample line (`name{labels} value`), or undefined. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const inner = line.slice(name.length + 1, line.indexOf('}'));
    const have = inner.split(',');
    if (wanted.every((w) => have.includes(w))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

describe('GET /metrics', () => {
  it('is guarded by METRICS_TOKEN: 401 envelope without it or with another token', async () => {
    const attempts: Record<string, string>[] = [{}, { authorization: 'Bearer wrong-token-0123456789abcd' }];
    for (const headers of attempts) {
      const res = await svc.get('/metrics', { headers });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
      const body = (await res.json()) as { error: { code: string } };
      expect(body.error.code).toBe('UNAUTHORIZED');
    }
  });

  it('is not served without METRICS_TOKEN', async () => {
    const plain = await startTestService({});
    try {
      expect((await plain.get('/metrics')).status).toBe(404);
    } finally {
      await plain.stop();
    }
  });

  it('counts requests by route pattern, method and status, never by raw URL', async () => {
    await svc.get('/api/stats');
    await svc.get('/api/stats');
    await svc.get('/v1/positions/0xabc');
    await svc.get('/no/such/path/123');
    await svc.get('/api/stats', { method: 'DELETE' });
    const text = await scrape();
    const count = (labels: Record<string, string>) =>
      sample(text, 'http_request_duration_seconds_count', labels);
    expect(count({ route: '/api/stats', method: 'GET', status: '200' })).toBeGreaterThanOrEqual(2);
    expect(count({ route: '/api/stats', method: 'DELETE', status: '405' })).toBe(1);
    expect(count({ route: '/v1/positions/:positionId', method: 'GET', status: '401' })).toBe(1);
    expect(count({ route: 'unmatched', method: 'GET', status: '404' })).toBeGreaterThanOrEqual(1);
    expect(text).not.toContain('0xabc');
    expect(text).not.toContain('/no/such/path');
    expect(sample(text, 'http_request_duration_seconds_bucket', { route: '/api/stats', le: '+Inf' })).toBe(
      count({ route: '/api/stats', method: 'GET', status: '200' }),
    );
  });

  it('counts cache hits and misses of the cached stats', async () => {
    await svc.get('/api/stats');
    const text = await scrape();
    expect(sample(text, 'gateway_response_cache_lookups_total', { result: 'hit' })).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'gateway_response_cache_lookups_total', { result: 'miss' })).toBeGreaterThanOrEqual(
      1,
    );
  });

  it('counts rate-limit refusals by bucket', async () => {
    // The quote bucket is the smallest of the read buckets: exhaust it from one client.
    const headers = { 'x-forwarded-for': '10.99.0.1' };
    let refused = 0;
    for (let i = 0; i < 200 && refused < 2; i++) {
      const res = await svc.get('/api/quote?chain=base', { headers });
      await res.arrayBuffer();
      if (res.status === 429) refused++;
    }
    expect(refused).toBe(2);
    const text = await scrape();
    expect(sample(text, 'gateway_rate_limit_refusals_total', { bucket: 'quote' })).toBe(2);
  });

  it('reports indexer head and lag, RPC requests per chain and the store pool', async () => {
    const text = await scrape();
    for (const chain of devnet.chains) {
      const head = sample(text, 'gateway_indexer_head_block', { chain: chain.key });
      expect(head).toBeGreaterThan(0);
      expect(sample(text, 'gateway_indexer_lag_blocks', { chain: chain.key })).toBeGreaterThanOrEqual(0);
      expect(sample(text, 'gateway_indexer_indexed_block', { chain: chain.key })).toBeLessThanOrEqual(head!);
      expect(
        sample(text, 'gateway_rpc_requests_total', { chain: chain.key, client: 'indexer' }),
      ).toBeGreaterThan(0);
    }
    expect(sample(text, 'gateway_db_pool_connections', { pool: 'gateway' })).toBeGreaterThanOrEqual(0);
    expect(text).toContain('gateway_db_pool_waiting_requests');
    expect(text).toContain('process_cpu_seconds_total');
  });
});

describe('access log and request id', () => {
  it('writes one line per request with method, route, status, duration, request id and bucket, and no key', async () => {
    const key = 'svc_test_abcdefgh_secretsecretsecretsecret';
    const res = await svc.get('/v1/positions/0x1234?secret=shh', {
      headers: { authorization: `Bearer ${key}` },
    });
    await res.arrayBuffer();
    const id = res.headers.get('x-request-id');
    // The line is written when the response finishes, which the client may see first: wait for it.
    await vi.waitFor(() => expect(lines.some((l) => l.requestId === id)).toBe(true), {
      timeout: 30_000,
      interval: 20,
    });
    // One line, not more: a later request's line has come (lines are written in order), so a second
    // line of this one would be here by now.
    const marker = await svc.get('/v1/positions/0x1234');
    await marker.arrayBuffer();
    const markerId = marker.headers.get('x-request-id');
    await vi.waitFor(() => expect(lines.some((l) => l.requestId === markerId)).toBe(true), {
      timeout: 20_000,
      interval: 20,
    });
    const mine = lines.filter((l) => l.requestId === id);
    expect(mine).toHaveLength(1);
    const line = mine[0]!;
    expect(line).toMatchObject({
      msg: 'request',
      level: 30,
      method: 'GET',
      route: '/v1/positions/:positionId',
      status: 401,
      bucket: 'positions',
    });
    expect(typeof line.durationMs).toBe('number');
    const text = JSON.stringify(lines);
    expect(text).not.toContain('secretsecret');
    expect(text).not.toContain('shh');
    expect(text).not.toContain('0x1234');
  });

  it('keeps a valid incoming X-Request-Id and replaces an invalid one', async () => {
    const kept = await svc.get('/api/stats', { headers: { 'x-request-id': 'client-trace:42/a.b_c' } });
    expect(kept.headers.get('x-request-id')).toBe('client-trace:42/a.b_c');
    expect(((await kept.json()) as { meta: { requestId: string } }).meta.requestId).toBe(
      'client-trace:42/a.b_c',
    );
    for (const bad of ['x'.repeat(129), 'has space', 'quote"inside', 'back\\slash', '']) {
      const res = await svc.get('/api/stats', { headers: { 'x-request-id': bad } });
      const id = res.headers.get('x-request-id');
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      expect(((await res.json()) as { meta: { requestId: string } }).meta.requestId).toBe(id);
    }
    const max = 'y'.repeat(128);
    const error = await svc.get('/no/such', { headers: { 'x-request-id': max } });
    expect(((await error.json()) as { error: { requestId: string } }).error.requestId).toBe(max);
  });
});
