import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { BUCKET_LIMITS, policyHeader } from '../lib/buckets.js';
import { ApiError } from '../lib/errors.js';
import { errorEnvelope } from './envelope.js';
import type { RateLimits } from './rateLimit.js';

/**
 * What node's HTTP server answers before express sees a request, as the error envelope of SPEC §7
 * instead of node's bare `400 Bad Request` / `431` / `408` without a body or an X-Request-Id:
 *
 * - a request that cannot be parsed (bad request line, CR/LF or NUL in a header, an unknown method,
 *   conflicting Content-Length/Transfer-Encoding, a malformed chunk), a head over node's size limit,
 *   or a request that did not arrive within `headersTimeout`/`requestTimeout` (a slow client):
 *   400 BAD_REQUEST, then the connection is closed (SPEC §7 has no 408 or 431);
 * - CONNECT (never served here; node would drop the socket without a word): 405 METHOD_NOT_ALLOWED;
 * - an `Expect` other than 100-continue: node answers a bare 417; RFC 9110 §10.1.1 lets a server ignore
 *   it, so the request is served as if it had none.
 */

const REASONS: Record<string, string> = {
  HPE_HEADER_OVERFLOW: 'The request head is larger than the service accepts.',
  ERR_HTTP_REQUEST_TIMEOUT: 'The request did not arrive in time; the connection is closed.',
};

/**
 * Sockets whose request was answered with `Connection: close` because its body could not be read (a
 * Transfer-Encoding that does not end with chunked, rest/app.ts): node then fails on that body as the
 * connection ends and reports a client error, which must not be answered a second time.
 */
const answeredAndClosing = new WeakSet<object>();

export function closeAfterAnswer(socket: object): void {
  answeredAndClosing.add(socket);
}

/** How long a peer has to read the answer before its socket is destroyed. */
const LINGER_MS = 1_000;

/**
 * The RateLimit-* lines of a refused request (SPEC §1: every response advertises them): it counts in the
 * `other` bucket of its peer, as a request for a path that is not an endpoint does. A store that cannot
 * answer in time leaves them out rather than hold the answer.
 */
async function rateLimitLines(limits: RateLimits | undefined, socket: Duplex): Promise<string> {
  const peer = (socket as Duplex & { remoteAddress?: string }).remoteAddress ?? 'unknown';
  if (!limits) return '';
  try {
    const decision = await limits.take('other', peer, BUCKET_LIMITS.other);
    return (
      `RateLimit-Limit: ${decision.limit}\r\nRateLimit-Remaining: ${decision.remaining}\r\n` +
      `RateLimit-Reset: ${decision.resetSeconds}\r\nRateLimit-Policy: ${policyHeader('other', decision.limit)}\r\n`
    );
  } catch {
    return '';
  }
}

function answer(socket: Duplex, status: 400 | 405, error: ApiError, docsUrl: string, extra = ''): void {
  const requestId = randomUUID();
  const body = JSON.stringify(errorEnvelope(error, requestId, docsUrl));
  const reason = status === 400 ? 'Bad Request' : 'Method Not Allowed';
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nX-Request-Id: ${requestId}\r\n${extra}` +
      `Content-Type: application/json; charset=utf-8\r\nX-Content-Type-Options: nosniff\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      `Connection: close\r\n\r\n${body}`,
  );
  // A client that never reads nor closes cannot keep the socket.
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
}

export function answerHttpFaults(server: Server, docsUrl: () => string, limits?: RateLimits): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    // Nothing can be answered on a socket the peer reset, nor after a response has started.
    const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
    if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    if (answeredAndClosing.has(socket)) {
      // Its answer may not be written yet (the handler is async): end the socket after it, not before.
      const pending = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
      if (pending && !pending.writableFinished) pending.once('close', () => socket.end());
      else socket.end();
      return;
    }
    const message = REASONS[error.code ?? ''] ?? 'The request could not be parsed as HTTP/1.1.';
    // Node leaves the socket to this listener: nothing else reads or writes it while the bucket answers.
    void rateLimitLines(limits, socket).then((lines) => {
      if (socket.writable) answer(socket, 400, new ApiError('BAD_REQUEST', message), docsUrl(), lines);
      else socket.destroy();
    });
  });
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) =>
    server.emit('request', req, res),
  );
  server.on('connect', (_req: IncomingMessage, socket: Duplex) => {
    socket.on('error', () => socket.destroy());
    void rateLimitLines(limits, socket).then((lines) => {
      if (!socket.writable) return socket.destroy();
      answer(
        socket,
        405,
        new ApiError('METHOD_NOT_ALLOWED', 'CONNECT is not served by this service.'),
        docsUrl(),
        `Allow: GET, HEAD, POST\r\n${lines}`,
      );
    });
  });
}
