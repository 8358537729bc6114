import type { Response } from 'express';
import type { ApiError, ErrorCode } from '../lib/errors.js';
import type { HttpCache } from './httpCache.js';

export interface ErrorEnvelope {
  error: {
    code: ErrorCode;
    message: string;
    requestId: string;
    retryable: boolean;
    documentation: string;
    parameter?: string;
    issues?: ApiError['issues'];
  };
}

export function errorEnvelope(error: ApiError, requestId: string, docsUrl: string): ErrorEnvelope {
  return {
    error: {
      code: error.code,
      message: error.message,
      requestId,
      retryable: error.retryable,
      documentation: `${docsUrl}/errors/${error.code}`,
      ...(error.parameter === undefined ? {} : { parameter: error.parameter }),
      ...(error.issues === undefined ? {} : { issues: error.issues }),
    },
  };
}

/**
 * Writes a JSON body without express's etag and content negotiation: the hot paths pay for nothing else.
 * `cache` (rest/httpCache.ts): the path's Cache-Control and ETag on a 200, and a 304 instead of the
 * body when the request's If-None-Match names the current tag; for a body built around a cached
 * `data` string (`about.cachedData`), its gzip / br bytes from the once-compressed prefix when the
 * client asks; `about.identity`: what the ETag hashes instead of `data` (RouteResult).
 */
export function sendJson(
  res: Response,
  status: number,
  body: unknown,
  cache?: HttpCache,
  about?: { cachedData?: string; identity?: string },
): void {
  // A string, not a Buffer: node writes it to the socket as it is, where a 16 KB Buffer per response is
  // external memory that brings on full garbage collections (tail latency of bench/catalogue.ts).
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  if (cache !== undefined && status === 200) {
    const data = about?.cachedData;
    if (cache.apply(res.req, res, text, data, about?.identity)) return;
    const encoded = cache.precompressed(res.req, text, data);
    if (encoded !== undefined) {
      // The compression wrapper, when present, leaves a body with a Content-Encoding as it is.
      res.statusCode = status;
      res.setHeader('Content-Type', 'application/json; charset=utf-8');
      res.setHeader('Content-Encoding', encoded.encoding);
      res.setHeader('Content-Length', encoded.bytes.length);
      res.end(encoded.bytes);
      return;
    }
  }
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  // node sends a string body in one piece with its head: `head + body`, a copy of the whole body per
  // response (a list page's 16 KB). A large one goes as a chunk of its own after the head, corked: one
  // writev still.
  const socket = res.socket;
  if (text.length >= SEPARATE_HEAD_FROM && socket && !res.headersSent) {
    socket.cork();
    res.flushHeaders();
  }
  res.end(text);
}

/** Characters of a body from which its head is written apart (sendJson). */
const SEPARATE_HEAD_FROM = 4096;

/**
 * The error envelope. `noStore` (HTTP_CACHE on): `Cache-Control: no-store`, so that no cache keeps a
 * 429, a 503 or a 404 in place of the answer a retry would get.
 */
export function sendError(res: Response, error: ApiError, docsUrl: string, noStore = false): void {
  const requestId = String(res.locals.requestId ?? '');
  if (noStore) res.setHeader('Cache-Control', 'no-store');
  if (error.retryAfter !== undefined) res.setHeader('Retry-After', String(error.retryAfter));
  if (error.code === 'METHOD_NOT_ALLOWED' && res.locals.allow)
    res.setHeader('Allow', String(res.locals.allow));
  sendJson(res, error.status, errorEnvelope(error, requestId, docsUrl));
}
