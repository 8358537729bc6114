import type express from 'express';
import { ApiError } from '../lib/errors.js';
import { redisDegraded } from '../lib/redisBreaker.js';
import type { Services } from '../lib/services.js';
import { migrationsApplied } from '../store/migrate.js';
import { sendError, sendJson } from './envelope.js';

/** A readiness check returns null when satisfied, or why the service is not ready. */
export type ReadinessCheck = () => Promise<string | null>;

/**
 * /healthz (process up) and /readyz (store answers, migrations applied, plus the checks given).
 *
 * A degraded Redis (unreachable, or hung: the breaker of lib/redisBreaker.ts is not closed) keeps /readyz
 * 200 and is named in `degraded`: every replica shares that Redis, and each still answers correctly from
 * its own memory (rate limits per process, caches miss), so a 503 would take every replica out of the
 * load balancer at once for a dependency none of them needs to answer.
 */
export function healthRoutes(app: express.Express, services: Services, checks: ReadinessCheck[]): void {
  app.get('/healthz', (_req, res) => sendJson(res, 200, { status: 'ok' }));
  app.get('/readyz', async (_req, res) => {
    const reasons: string[] = [];
    try {
      if (!(await migrationsApplied(services.db))) reasons.push('migrations not applied');
      for (const check of checks) {
        const reason = await check();
        if (reason) reasons.push(reason);
      }
    } catch {
      reasons.push('store unreachable');
    }
    if (reasons.length === 0)
      return sendJson(
        res,
        200,
        redisDegraded(services.redis) ? { status: 'ready', degraded: ['redis'] } : { status: 'ready' },
      );
    sendError(
      res,
      new ApiError('UPSTREAM_UNAVAILABLE', `Not ready: ${reasons.join('; ')}.`),
      services.config.docsUrl,
    );
  });
}
