/**
 * Body size limits and request timeouts, through a real server with small values (BODY_LIMIT_BYTES
 * 4096, REQUEST_TIMEOUT_MS 1000 → headersTimeout 1000), and the requests node itself refuses before
 * express (unparseable, oversized head, too slow, CONNECT, bad Host): all of them answer with the
 * SPEC §7 envelope, and none of them can hold the server.
 *
 * What node does (v20), and what service.ts / rest/httpFaults.ts make of it:
 * - `headersTimeout` / `requestTimeout` are checked every `connectionsCheckingInterval`, 30 s by
 *   default: a slow client held its socket up to 30 s past REQUEST_TIMEOUT_MS. The service checks every
 *   REQUEST_TIMEOUT_MS / 4 (at most 1 s).
 * - On those timeouts node wrote a bare `408 Request Timeout`, on a parse error a bare `400`, on an
 *   oversized head a bare `431`, without a body or an X-Request-Id. With a `clientError` listener the
 *   service answers `400 BAD_REQUEST` envelopes instead (SPEC §7 has no 408 or 431), then closes.
 * - `requestTimeout` bounds receiving the request, not handling it: a slow handler still answers.
 * - `keepAliveTimeout` (KEEP_ALIVE_TIMEOUT_MS, 5 s by default; 2 s here) closes idle kept-alive sockets.
 */
import { once } from 'node:events';
import net from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RestRoute } from '../../rest/route.js';
import { readBody } from '../../rest/route.js';
import { KeepAliveConnection, parseResponse, type RawResponse, rawRequest } from '../helpers/rawHttp.js';
import { probeRoutes } from '../helpers/routes.js';
import { INTERNAL_TOKEN, startTestService, type TestService } from '../helpers/service.js';

const BODY_LIMIT = 4096;
const REQUEST_TIMEOUT_MS = 1000;
const KEEP_ALIVE_MS = 2000;
/**
 * A client past REQUEST_TIMEOUT_MS is cut by the service's check every REQUEST_TIMEOUT_MS / 4: within
 * ~1.25 s here. This bound stays because the cut is the behaviour under test, with a lower bound beside
 * it showing the timeout (not something earlier) cut: without the service's check node looks every 30 s,
 * so ten times the configured timeout still tells the two apart, and leaves a busy box 8.75 s of slack.
 */
const CUT_WITHIN_MS = REQUEST_TIMEOUT_MS * 10;
/** The cut comes from the timeout, not earlier (timers may fire a little early on a coarse clock). */
const CUT_AFTER_MS = REQUEST_TIMEOUT_MS * 0.9;

const slowRoute: RestRoute = {
  method: 'GET',
  path: '/probe/slow',
  bucket: 'stats',
  handle: async (ctx) => {
    await new Promise((resolve) => setTimeout(resolve, REQUEST_TIMEOUT_MS * 1.5));
    return { body: readBody(ctx, { slow: true }) };
  },
};

let svc: TestService;
let port: number;

beforeAll(async () => {
  svc = await startTestService({
    env: {
      INDEXER: 'off',
      TRUST_PROXY: '1',
      BODY_LIMIT_BYTES: String(BODY_LIMIT),
      REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
      KEEP_ALIVE_TIMEOUT_MS: String(KEEP_ALIVE_MS),
    },
    extraRoutes: [...probeRoutes, slowRoute],
  });
  port = Number(new URL(svc.url).port);
}, 60_000);

afterAll(async () => {
  await svc?.stop();
});

interface Envelope {
  error: { code: string; message: string; requestId: string; retryable: boolean };
}

function envelope(res: RawResponse): Envelope['error'] {
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  const body = JSON.parse(res.body.toString('utf8')) as Envelope;
  expect(body.error.requestId).toBe(res.headers['x-request-id']);
  expect(typeof body.error.retryable).toBe('boolean');
  return body.error;
}

let client = 0;
const forwarded = (): [string, string] => ['X-Forwarded-For', `10.77.${++client >> 8}.${client & 255}`];

const echo = (body: string | Buffer, headers: [string, string][] = []) => ({
  method: 'POST',
  target: '/probe/echo',
  headers: [forwarded(), ['Content-Type', 'application/json'] as [string, string], ...headers],
  body,
});

/** A JSON object of exactly `size` bytes. */
const jsonOfSize = (size: number) => `{"pad":"${'x'.repeat(size - 10)}"}`;

/** A raw socket that records what it receives and when it closes. */
function openSocket() {
  const socket = net.connect({ port, host: '127.0.0.1' });
  const opened = performance.now();
  let received = Buffer.alloc(0);
  const closed = new Promise<{ afterMs: number; data: Buffer }>((resolve) => {
    socket.on('close', () => resolve({ afterMs: performance.now() - opened, data: received }));
  });
  socket.on('data', (chunk) => {
    received = Buffer.concat([received, chunk]);
  });
  socket.on('error', () => {});
  return { socket, closed, opened };
}

describe('BODY_LIMIT_BYTES', () => {
  it('reads a body of exactly the limit', async () => {
    const res = await rawRequest(port, echo(jsonOfSize(BODY_LIMIT)));
    expect(res.status).toBe(200);
  });

  it('answers a body over the limit with a 400 envelope, and the connection stays usable', async () => {
    const connection = new KeepAliveConnection(port);
    try {
      const res = await connection.send(echo(jsonOfSize(BODY_LIMIT + 1)));
      expect(res.status).toBe(400);
      expect(envelope(res)).toMatchObject({ code: 'BAD_REQUEST', retryable: false });
      expect(res.headers['ratelimit-policy']).toMatch(/^quote;/);
      // The same socket serves the next request.
      const next = await connection.send({ method: 'GET', target: '/probe/fixed', headers: [forwarded()] });
      expect(next.status).toBe(200);
    } finally {
      connection.close();
    }
  });

  it('answers a declared Content-Length over the limit whose body never comes by requestTimeout', async () => {
    // body-parser reads an oversized body off the socket before answering (so that the connection
    // stays usable): a client that declares 10 MB and sends nothing is answered when requestTimeout
    // cuts it, with the envelope, not later.
    const started = performance.now();
    const res = await rawRequest(port, {
      ...echo(''),
      headers: [...echo('').headers, ['Content-Length', String(10 * 1024 * 1024)]],
    });
    const took = performance.now() - started;
    expect(took).toBeGreaterThanOrEqual(CUT_AFTER_MS);
    expect(took).toBeLessThan(CUT_WITHIN_MS);
    expect(res.status).toBe(400);
    expect(envelope(res).code).toBe('BAD_REQUEST');
  });

  it('counts a chunked body as it arrives', async () => {
    const chunk = 'x'.repeat(1000);
    const body = `{"pad":"${chunk.repeat(5)}"}`;
    const chunked = `${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n0\r\n\r\n`;
    const res = await rawRequest(port, echo(chunked, [['Transfer-Encoding', 'chunked']]));
    expect(res.status).toBe(400);
    expect(envelope(res).code).toBe('BAD_REQUEST');
  });

  it('counts the inflated size of a compressed body (a gzip bomb)', async () => {
    const bomb = gzipSync(Buffer.from(jsonOfSize(10 * 1024 * 1024)));
    expect(bomb.length).toBeLessThan(BODY_LIMIT * 10);
    const res = await rawRequest(port, echo(bomb, [['Content-Encoding', 'gzip']]));
    expect(res.status).toBe(400);
    expect(envelope(res)).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringMatching(/larger/) });
  });
});

describe('slow clients are cut off and cannot hold the server', () => {
  it('closes a client that sends its headers byte by byte (slowloris) after headersTimeout, with an envelope', async () => {
    const { socket, closed } = openSocket();
    const head = 'GET /probe/fixed HTTP/1.1\r\nHost: x\r\nX-Slow: ';
    let i = 0;
    const drip = setInterval(() => {
      if (socket.writable) socket.write(i < head.length ? head[i++]! : 'a');
    }, 50);
    const { afterMs, data } = await closed;
    clearInterval(drip);
    expect(afterMs).toBeGreaterThanOrEqual(CUT_AFTER_MS);
    expect(afterMs).toBeLessThan(CUT_WITHIN_MS);
    const res = parseResponse(data, { closed: true })!;
    expect(res.status).toBe(400);
    expect(envelope(res)).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringMatching(/in time/) });
  });

  it('closes a client that never finishes its body after requestTimeout, with an envelope', async () => {
    const { socket, closed } = openSocket();
    socket.write(
      'POST /probe/echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{',
    );
    const drip = setInterval(() => socket.writable && socket.write(' '), 100);
    const { afterMs, data } = await closed;
    clearInterval(drip);
    expect(afterMs).toBeGreaterThanOrEqual(CUT_AFTER_MS);
    expect(afterMs).toBeLessThan(CUT_WITHIN_MS);
    const res = parseResponse(data, { closed: true })!;
    expect(res.status).toBe(400);
    expect(envelope(res).code).toBe('BAD_REQUEST');
  });

  it('closes a connection that never sends a byte', async () => {
    const { closed } = openSocket();
    const { afterMs } = await closed;
    expect(afterMs).toBeGreaterThanOrEqual(CUT_AFTER_MS);
    expect(afterMs).toBeLessThan(CUT_WITHIN_MS);
  });

  it('keeps answering normal requests quickly while 60 slow clients trickle bytes', async () => {
    /** Twenty /healthz + /probe/fixed pairs, each pair timed. */
    const pairs = async () => {
      const ms: number[] = [];
      for (let i = 0; i < 20; i++) {
        const started = performance.now();
        const res = await svc.get('/healthz');
        expect(res.status).toBe(200);
        const fixed = await svc.get('/probe/fixed', { headers: { 'x-forwarded-for': forwarded()[1] } });
        expect(fixed.status).toBe(200);
        ms.push(performance.now() - started);
      }
      return Math.max(...ms);
    };
    // The same pairs on the quiet server, in this test: what the machine allows now.
    const quiet = await pairs();
    const slow = Array.from({ length: 60 }, (_, n) => {
      const s = openSocket();
      s.socket.write(
        n % 2 ? 'GET /probe/fixed HTTP/1.1\r\nHost: x\r\n' : 'POST /probe/echo HTTP/1.1\r\nHost: x\r\n',
      );
      return s;
    });
    let drips = 0;
    const drip = setInterval(() => {
      drips++;
      for (const { socket } of slow) if (socket.writable) socket.write('X-A: b\r\n');
    }, 100);
    try {
      // The slow clients are all connected and trickling before the pairs are timed.
      await Promise.all(slow.map((s) => (s.socket.connecting ? once(s.socket, 'connect') : undefined)));
      await expect.poll(() => drips, { timeout: 20_000, interval: 20 }).toBeGreaterThanOrEqual(2);
      const loaded = await pairs();
      console.log(
        `limits: slowest pair ${Math.round(loaded)} ms beside 60 slow clients, ${Math.round(quiet)} ms quiet`,
      );
      expect(loaded).toBeLessThan(Math.max(500, 3 * quiet + 100));
      const results = await Promise.all(slow.map((s) => s.closed));
      for (const { afterMs } of results) {
        expect(afterMs).toBeGreaterThanOrEqual(CUT_AFTER_MS);
        expect(afterMs).toBeLessThan(CUT_WITHIN_MS);
      }
    } finally {
      clearInterval(drip);
      for (const { socket } of slow) socket.destroy();
    }
  });

  it('does not cut a request that was received in time but takes longer to answer', async () => {
    const started = performance.now();
    const res = await rawRequest(port, { method: 'GET', target: '/probe/slow', headers: [forwarded()] });
    expect(performance.now() - started).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS * 1.4);
    expect(res.status).toBe(200);
  });

  it(
    'closes idle kept-alive connections after keepAliveTimeout',
    async () => {
      const sockets = Array.from({ length: 40 }, () => openSocket());
      for (const { socket } of sockets) socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
      const answered = performance.now();
      const results = await Promise.all(sockets.map((s) => s.closed));
      for (const { data } of results) expect(parseResponse(data, { closed: true })!.status).toBe(200);
      const afterAnswer = performance.now() - answered;
      expect(afterAnswer).toBeGreaterThanOrEqual(KEEP_ALIVE_MS * 0.9);
      // Stays as the behaviour under test (the lower bound shows keepAliveTimeout closed them): relative
      // to the configured timeout, with a factor a busy box cannot reach. Node closes about a second after
      // the timeout (3.0 s for 2 s, 6.0 s for 5 s here).
      expect(afterAnswer).toBeLessThan((KEEP_ALIVE_MS + 1000) * 3);
    },
    (KEEP_ALIVE_MS + 1000) * 3 + 10_000,
  );
});

describe('requests node refuses before express answer with the envelope', () => {
  const raw = (bytes: string) => rawRequest(port, Buffer.from(bytes, 'latin1'));

  it('an unparseable request: 400 BAD_REQUEST with X-Request-Id, then the connection closes', async () => {
    for (const bytes of [
      'G ET / HTTP/1.1\r\nHost: x\r\n\r\n',
      'GET /api/stats HTTP/1.1\r\nHost: x\r\nX-A: a\nb\r\n\r\n',
      'GET /api/st\u00e9ts HTTP/1.1\r\nHost: x\r\n\r\n',
      'POST /probe/echo HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n{}',
      'POST /probe/echo HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n',
      '\x16\x03\x01\x00\xa5\x01\x00\x00',
    ]) {
      const res = await raw(bytes);
      expect(res.status, JSON.stringify(bytes)).toBe(400);
      expect(envelope(res).code).toBe('BAD_REQUEST');
      expect(res.headers.connection).toBe('close');
    }
  });

  it('a head over the size limit: 400 BAD_REQUEST (not a bare 431)', async () => {
    const res = await raw(`GET /api/stats HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(20_000)}\r\n\r\n`);
    expect(res.status).toBe(400);
    expect(envelope(res).message).toMatch(/head is larger/);
  });

  it('CONNECT: 405 METHOD_NOT_ALLOWED (node would drop the socket without a word)', async () => {
    const res = await raw('CONNECT 127.0.0.1:1 HTTP/1.1\r\nHost: 127.0.0.1:1\r\n\r\n');
    expect(res.status).toBe(405);
    expect(envelope(res).code).toBe('METHOD_NOT_ALLOWED');
  });

  it('a missing, repeated or malformed Host: 400 BAD_REQUEST', async () => {
    for (const host of ['', 'Host: a b\r\n', 'Host: a\r\nHost: b\r\n', 'Host: x/y\r\n']) {
      const res = await raw(`GET /probe/fixed HTTP/1.1\r\n${host}Connection: close\r\n\r\n`);
      expect(res.status, host).toBe(400);
      expect(envelope(res).message).toMatch(/Host/);
    }
    // HTTP/1.0 needs none; an empty Host is valid HTTP/1.1.
    expect((await raw('GET /healthz HTTP/1.0\r\n\r\n')).status).toBe(200);
    expect((await raw('GET /healthz HTTP/1.1\r\nHost:\r\nConnection: close\r\n\r\n')).status).toBe(200);
  });

  it('an Expect it does not know is ignored (node answered a bare 417)', async () => {
    const res = await raw('GET /healthz HTTP/1.1\r\nHost: x\r\nExpect: foo\r\nConnection: close\r\n\r\n');
    expect(res.status).toBe(200);
  });

  it('a path parameter that is not valid percent-encoding: 400 BAD_REQUEST (was a 500)', async () => {
    for (const id of ['%E0%A4%A', '%zz', '%ED%A0%80']) {
      const res = await rawRequest(port, {
        method: 'GET',
        target: `/v1/positions/${id}`,
        headers: [forwarded()],
      });
      expect(res.status, id).toBe(400);
      expect(envelope(res).code).toBe('BAD_REQUEST');
    }
  });
});

describe('/graphql bounds hostile documents (internal token)', () => {
  const post = (body: unknown, to = port) =>
    rawRequest(to, {
      method: 'POST',
      target: '/graphql',
      headers: [
        ['Authorization', `Bearer ${INTERNAL_TOKEN}`],
        ['Content-Type', 'application/json'],
      ],
      body: JSON.stringify(body),
    });

  it('a document nested deeper than the parser stack is a syntax error, not a 500', async () => {
    const document = (depth: number) => ({ query: `{ ${'a { '.repeat(depth)}b${' }'.repeat(depth)} }` });
    // Over this service's BODY_LIMIT_BYTES: refused before it is read.
    const refused = await post(document(1500));
    expect(refused.status).toBe(400);
    expect((JSON.parse(refused.body.toString()) as { error: { code: string } }).error.code).toBe(
      'BAD_REQUEST',
    );
    // Where the operator allows bodies that large (BODY_LIMIT_BYTES at its 10 MB maximum), the parser is
    // reached, and a document deeper than its stack is still a syntax error.
    const roomy = await startTestService({ env: { BODY_LIMIT_BYTES: '10485760' } });
    try {
      for (const depth of [1500, 3000, 100_000]) {
        const res = await post(document(depth), Number(new URL(roomy.url).port));
        expect(res.status, String(depth)).toBeLessThan(500);
        const body = JSON.parse(res.body.toString()) as { errors: { extensions: { code: string } }[] };
        expect(body.errors[0]!.extensions.code).not.toBe('INTERNAL');
      }
    } finally {
      await roomy.stop();
    }
  });

  it('a variable of the wrong type is a 400, not a masked 500', async () => {
    for (const [query, variables] of [
      ['query($l: Int) { strategies(first: $l) { pageInfo { hasNextPage } } }', { l: 1e308 }],
      ['query($h: String!) { strategy(hash: $h) { hash } }', { h: { $where: '1' } }],
      [
        'mutation($e: ApiKeyEnvironment!) { createApiKey(input: { environment: $e }) { keyId } }',
        { e: "' OR 1=1--" },
      ],
    ] as const) {
      const res = await post({ query, variables });
      expect(res.status, query).toBe(400);
      const body = JSON.parse(res.body.toString()) as { errors: { message: string }[] };
      expect(body.errors[0]!.message).toMatch(/^Variable "\$\w+" got invalid value/);
    }
  });
});
