import type { Request, Response } from 'express';
import type { Config } from '../lib/config.js';
import { ApiError } from '../lib/errors.js';

/**
 * The demo endpoints' same-origin check (SPEC §4.7, §5.8; a deterrent, not a security boundary). The
 * request's `Origin`, or else the origin of its `Referer`, must equal one of the operator's origins
 * exactly (scheme, host and port): PUBLIC_URL's, `http://127.0.0.1:PORT`, `http://localhost:PORT`, or
 * one of OPERATOR_ORIGINS.
 */

export function operatorOrigins(config: Pick<Config, 'publicUrl' | 'port' | 'operatorOrigins'>): Set<string> {
  const origins = new Set<string>([`http://127.0.0.1:${config.port}`, `http://localhost:${config.port}`]);
  const own = originOf(config.publicUrl);
  if (own) origins.add(own);
  for (const origin of config.operatorOrigins) {
    const normalised = originOf(origin);
    if (normalised) origins.add(normalised);
  }
  return origins;
}

/** The serialised origin of a URL (lower-case host, default port dropped), or null when it has none. */
function originOf(value: string): string | null {
  try {
    const url = new URL(value);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    return url.origin;
  } catch {
    return null;
  }
}

function header(req: Request, name: 'origin' | 'referer'): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The origin the request claims: its Origin header when present, else its Referer's origin. A
 * malformed value, `null` (an opaque origin) or a non-HTTP scheme gives null.
 */
export function requestOrigin(req: Request): string | null {
  const origin = header(req, 'origin');
  if (origin !== undefined) return originOf(origin.trim());
  const referer = header(req, 'referer');
  if (referer !== undefined) return originOf(referer.trim());
  return null;
}

const FORBIDDEN_MESSAGE =
  'This demo endpoint answers only pages of the operator: the Origin or Referer must be an operator origin.';

/**
 * Throws 403 FORBIDDEN unless the request comes from an operator page. An allowed origin other than
 * the service's own is answered with CORS headers so that its page can read the response.
 */
export function requireOperatorOrigin(req: Request, res: Response, config: Config): void {
  res.setHeader('Vary', 'Origin, Referer');
  res.setHeader('Cache-Control', 'no-store');
  const origin = requestOrigin(req);
  if (origin === null || !operatorOrigins(config).has(origin))
    throw new ApiError('FORBIDDEN', FORBIDDEN_MESSAGE);
  if (header(req, 'origin') !== undefined) res.setHeader('Access-Control-Allow-Origin', origin);
}
