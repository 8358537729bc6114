import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { BUCKET_LIMITS, type Bucket, policyHeader } from '../lib/buckets.js';
import { ApiError } from '../lib/errors.js';
import type { RateLimits } from './rateLimit.js';

/**
 * An incoming X-Request-Id the service keeps: 1 to 128 visible ASCII characters, without `"` and `\`
 * (the id is echoed inside JSON strings without escaping, rest/responseCache.ts). Anything else (absent,
 * repeated, empty, longer, spaces, control or non-ASCII characters) gets a fresh UUID instead.
 */
const VALID_REQUEST_ID = /^[\x21\x23-\x5b\x5d-\x7e]{1,128}$/;

/**
 * X-Request-Id on every response: the caller's valid one, or a fresh id; echoed in meta and error bodies.
 * And `nosniff`, so that no browser reads a JSON body (which may echo a client's text) as another type.
 */
export const requestId: RequestHandler = (req, res, next) => {
  const incoming = req.headers['x-request-id'];
  const id = typeof incoming === 'string' && VALID_REQUEST_ID.test(incoming) ? incoming : randomUUID();
  res.locals.requestId = id;
  res.setHeader('X-Request-Id', id);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  next();
};

/** Who a read bucket counts: the peer address, or the first X-Forwarded-For hop behind a trusted proxy. */
export function clientId(req: Request, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = req.headers['x-forwarded-for'];
    const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim();
    if (first) return first;
  }
  return req.socket.remoteAddress ?? 'unknown';
}

export interface RateLimitOptions {
  limits: RateLimits;
  trustProxy: boolean;
  /** Told of every 429 (the refusal counter of lib/metrics.ts). */
  onRefused?: (bucket: Bucket) => void;
}

/**
 * Counts the request against its bucket and sets the four RateLimit-* headers before anything can
 * fail, so that success and failure both carry them. `subject` picks the counter: the client by
 * default, the API key for per-key buckets.
 */
export function rateLimit(
  bucket: Bucket,
  options: RateLimitOptions,
  subject?: (req: Request, res: Response) => { id: string; limit: number },
): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    res.locals.bucket = bucket;
    const who = subject?.(req, res) ?? {
      id: clientId(req, options.trustProxy),
      limit: BUCKET_LIMITS[bucket],
    };
    options.limits.take(bucket, who.id, who.limit).then(
      (decision) => {
        res.setHeader('RateLimit-Limit', String(decision.limit));
        res.setHeader('RateLimit-Remaining', String(decision.remaining));
        res.setHeader('RateLimit-Reset', String(decision.resetSeconds));
        res.setHeader('RateLimit-Policy', policyHeader(bucket, decision.limit));
        if (decision.allowed) return next();
        options.onRefused?.(bucket);
        next(
          new ApiError(
            'RATE_LIMITED',
            `Rate limit of the ${bucket} bucket reached; retry after the window resets.`,
            {
              retryAfter: decision.resetSeconds,
            },
          ),
        );
      },
      (error: unknown) => next(error),
    );
  };
}

/** Answers 405 for a method the path does not serve; runs after the bucket so the headers are set. */
export function onlyMethods(methods: string[]): RequestHandler {
  const allowed = new Set(methods.flatMap((m) => (m === 'GET' ? ['GET', 'HEAD'] : [m])));
  const allow = [...allowed].join(', ');
  return (req, res, next) => {
    if (allowed.has(req.method)) return next();
    res.locals.allow = allow;
    next(
      new ApiError('METHOD_NOT_ALLOWED', `${req.method} is not allowed here; use ${methods.join(' or ')}.`),
    );
  };
}
