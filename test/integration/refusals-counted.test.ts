/**
 * Requests refused before any bucket (two Authorization headers, a malformed Host, a path that cannot
 * be percent-decoded) count in their client's `other` bucket and carry RateLimit-*, like an unknown
 * path: past the bucket's limit they are answered 429.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUCKET_LIMITS } from '../../lib/buckets.js';
import { rawRequest } from '../helpers/rawHttp.js';
import { startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
let port: number;

beforeAll(async () => {
  svc = await startTestService();
  port = Number(new URL(svc.url).port);
});
afterAll(() => svc?.stop());

const twoAuthorizations = () =>
  rawRequest(port, {
    method: 'GET',
    target: '/api/stats',
    headers: [
      ['Authorization', 'Bearer a'],
      ['Authorization', 'Bearer b'],
    ],
  });

describe('refusals before any bucket', () => {
  it('a Transfer-Encoding that does not end with chunked: one 400, then the connection closes', async () => {
    // Node dispatched the request, then failed on its body as the connection ended and answered again:
    // a 404 and a 400 for one request, the second read as the first one's body (the fuzzer's seed 305832056).
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1');
      const chunks: Buffer[] = [];
      socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      socket.on('error', reject);
      socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
      socket.write(
        `GET /v1/positions/x/y HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nTransfer-Encoding: xchunked\r\nAccept-Encoding: gzip, br\r\n\r\n`,
      );
    });
    expect(answer.match(/HTTP\/1\.1 \d{3}/g)).toEqual(['HTTP/1.1 400']);
    expect(answer).toMatch(/\r\nConnection: close\r\n/i);
    const body = answer.slice(answer.indexOf('\r\n\r\n') + 4);
    expect(JSON.parse(body).error.code).toBe('BAD_REQUEST');
  });
  it('count in the other bucket and say so', async () => {
    const cases = [
      twoAuthorizations,
      () => rawRequest(port, Buffer.from('GET /api/stats HTTP/1.1\r\nHost: 127.0.0.1:99999\r\n\r\n')),
      () => rawRequest(port, { method: 'GET', target: '/v1/positions/%E0%A4%A', headers: [] }),
    ];
    let remaining = Number.POSITIVE_INFINITY;
    for (const send of cases) {
      const response = await send();
      expect(response.status).toBe(400);
      expect(response.headers['ratelimit-policy']).toMatch(/^other;/);
      const left = Number(response.headers['ratelimit-remaining']);
      expect(left).toBeLessThan(remaining);
      remaining = left;
    }
    // An unknown path counts in the same bucket, after them.
    const unknown = await rawRequest(port, { method: 'GET', target: '/nowhere', headers: [] });
    expect(unknown.status).toBe(404);
    expect(Number(unknown.headers['ratelimit-remaining'])).toBe(remaining - 1);
  });

  it('are refused with 429 once the bucket is used up', async () => {
    let last = await twoAuthorizations();
    for (let i = 0; i < BUCKET_LIMITS.other && last.status === 400; i++) last = await twoAuthorizations();
    expect(last.status).toBe(429);
    expect(last.headers['retry-after']).toBeDefined();
    expect(JSON.parse(last.body.toString()).error.code).toBe('RATE_LIMITED');
  });
});
