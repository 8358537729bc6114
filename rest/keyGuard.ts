import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { BUCKET_LIMITS, type Bucket } from '../lib/buckets.js';
import { ApiError } from '../lib/errors.js';
import type { Services } from '../lib/services.js';
import {
  type AuthenticatedKey,
  authenticate,
  authorize,
  keyIdOf,
  UNAUTHORIZED_MESSAGE,
} from '../resolvers/apiKeys.js';
import { clientId, onlyMethods, type RateLimitOptions, rateLimit } from './conventions.js';
import type { RestRoute } from './route.js';

/** Most keys whose agreed limit a process remembers (bounded, so made-up keyIds cannot grow it). */
const MAX_KNOWN_LIMITS = 10_000;

/**
 * What the bucket of a key-protected path counts against, decided before the key is looked up: a
 * request its bucket will refuse costs no SQL (a client sending made-up keys cannot make every one of
 * them read the keys table).
 *
 * - A request without a well-formed key counts per client and is refused (401) without a look-up.
 * - A well-formed key this process has seen valid counts per key, at the key's agreed limit: when that
 *   window is used up the request is refused (429) before the look-up.
 * - Any other well-formed key is looked up only while the client's window of failed attempts has room:
 *   a valid key then counts per key, and an unknown, revoked or wrong one per client.
 *
 * The remembered limit only ever refuses earlier (a 429 for a window the key itself used up); a key is
 * authenticated by the look-up alone (its row from store/apiKeyCache.ts, kept only until a change to
 * it is announced), so a revocation takes effect there as it does everywhere else.
 */
class KeyLimits {
  private readonly known = new Map<string, AgreedLimits>();

  limitsOf(keyId: string): AgreedLimits | undefined {
    return this.known.get(keyId);
  }

  /** Keeps the key's agreed limits for its next requests, and returns them. */
  remember(key: AuthenticatedKey): AgreedLimits {
    if (!this.known.has(key.keyId) && this.known.size >= MAX_KNOWN_LIMITS) {
      const oldest = this.known.keys().next().value;
      if (oldest !== undefined) this.known.delete(oldest);
    }
    const limits = agreedLimitsOf(key);
    this.known.set(key.keyId, limits);
    return limits;
  }
}

/** The buckets a key may have raised (createApiKey's prepareLimitPerMinute, writeLimitPerMinute). */
type AgreedLimits = Record<'prepare' | 'write', number>;

function agreedLimitsOf(key: AuthenticatedKey): AgreedLimits {
  return { prepare: key.prepareLimitPerMinute, write: key.writeLimitPerMinute };
}

interface Subject {
  id: string;
  limit: number;
}

/** A key's own count of a bucket: at the key's agreed limit for prepare and write, the bucket's otherwise. */
function keySubject(bucket: Bucket, keyId: string, agreed: AgreedLimits): Subject {
  const limit = bucket === 'prepare' || bucket === 'write' ? agreed[bucket] : BUCKET_LIMITS[bucket];
  return { id: `key:${keyId}`, limit };
}

/**
 * Key-protected paths: the bucket (per key once the key is known, per client before), then method,
 * key, scope and origin, so a 401 or 405 carries the RateLimit-* headers too.
 */
export function keyGuard(
  services: Services,
  limitOptions: RateLimitOptions,
  pathRoutes: RestRoute[],
  /** CORS of the key paths (rest/cors.ts): after the bucket, before the method check. */
  cors?: RequestHandler,
) {
  // A path's methods may count against different buckets (GET /v1/positions lists, POST prepares); a
  // method the path does not serve counts against the first route's (its 405 carries those headers).
  const bucketOf = (method: string): Bucket =>
    (
      pathRoutes.find((r) => r.method === method || (r.method === 'GET' && method === 'HEAD')) ??
      pathRoutes[0]!
    ).bucket;
  const scopes = new Map<string, string | null>(pathRoutes.map((r) => [r.method, r.auth?.scope ?? null]));
  const limiters = new Map(
    [...new Set(pathRoutes.map((r) => r.bucket))].map((bucket) => [
      bucket,
      rateLimit(bucket, limitOptions, (_req, res) => res.locals.bucketSubject as Subject),
    ]),
  );
  const keyLimits = new KeyLimits();
  const unauthorized = () => new ApiError('UNAUTHORIZED', UNAUTHORIZED_MESSAGE);

  const identify = async (req: Request, res: Response): Promise<void> => {
    const bucket = bucketOf(req.method);
    const client: Subject = {
      id: `ip:${clientId(req, limitOptions.trustProxy)}`,
      limit: BUCKET_LIMITS[bucket],
    };
    res.locals.bucketSubject = client;
    const keyId = keyIdOf(req.headers.authorization);
    if (keyId === null) {
      res.locals.authError = unauthorized();
      return;
    }
    const agreed = keyLimits.limitsOf(keyId);
    if (agreed !== undefined) {
      const subject = keySubject(bucket, keyId, agreed);
      if (await limitOptions.limits.exhausted(bucket, subject.id, subject.limit)) {
        res.locals.bucketSubject = subject;
        return;
      }
    } else if (await limitOptions.limits.exhausted(bucket, client.id, client.limit)) {
      res.locals.authError = unauthorized();
      return;
    }
    try {
      const key = await authenticate(services, req.headers.authorization);
      res.locals.apiKey = key;
      res.locals.bucketSubject = keySubject(bucket, key.keyId, keyLimits.remember(key));
    } catch (error) {
      // A 401 and a store failure alike are reported after the bucket, so they carry its headers.
      res.locals.authError = error;
    }
  };

  return [
    (req: Request, res: Response, next: NextFunction) => {
      identify(req, res).then(() => next(), next);
    },
    (req: Request, res: Response, next: NextFunction) => limiters.get(bucketOf(req.method))!(req, res, next),
    ...(cors ? [cors] : []),
    onlyMethods([...scopes.keys()]),
    (req: Request, res: Response, next: NextFunction) => {
      if (res.locals.authError) return next(res.locals.authError);
      // The key's window had just reset between the look-ahead and the count: look the key up now.
      const key: Promise<AuthenticatedKey> = res.locals.apiKey
        ? Promise.resolve(res.locals.apiKey as AuthenticatedKey)
        : authenticate(services, req.headers.authorization);
      key
        .then((found) => {
          res.locals.apiKey = found;
          authorize(found, scopes.get(req.method) ?? null, req.headers.origin);
          next();
        })
        .catch(next);
    },
  ];
}
