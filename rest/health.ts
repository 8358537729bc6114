import type express from 'express';
import { ApiError } from '../lib/errors.js';
import { redisDegraded } from '../lib/redisBreaker.js';
import type { Services } from '../lib/services.js';
import { storeError } from '../store/db.js';
import { migrationsApplied } from '../store/migrate.js';
import { sendError, sendJson } from './envelope.js';

/** A readiness check returns null when satisfied, or why the service is not ready. */
export type ReadinessCheck = () => Promise<string | null>;

/** Parts that serve, but not fully (a chain whose indexer is stuck): by name, why. */
export type DegradedCheck = () => Promise<Record<string, string>>;

/**
 * /healthz: the process is up and serving (liveness; nothing it depends on is checked, so a process
 * whose store is being restarted is not killed for it). /readyz: every check passes (the store answers
 * with its migrations applied, plus the checks given: parts the service supervises that are down, the
 * first roll-up); each check runs on its own, so the answer names everything that is not ready.
 *
 * A degraded Redis (unreachable, or hung: the breaker of lib/redisBreaker.ts is not closed) keeps /readyz
 * 200 and is named in `degraded`: every replica shares that Redis, and each still answers correctly from
 * its own memory (rate limits per process, caches miss), so a 503 would take every replica out of the
 * load balancer at once for a dependency none of them needs to answer.
 *
 * A chain whose indexer is stuck, re-syncing from far behind or not indexed yet (store/indexerHealth.ts)
 * is named the same way (`chain:<key>`, with why in `reasons`), for the same cause: the indexer is shared,
 * no replica serves that chain better than another, and the other chains are served fully.
 */
export function healthRoutes(
  app: express.Express,
  services: Services,
  checks: ReadinessCheck[],
  degradedChecks: DegradedCheck[] = [],
): void {
  const storeCheck: ReadinessCheck = async () =>
    (await migrationsApplied(services.db)) ? null : 'migrations not applied';
  app.get('/healthz', (_req, res) => sendJson(res, 200, { status: 'ok' }));
  app.get('/readyz', async (_req, res) => {
    // A check that throws could not reach what it reads: most read the store.
    const results = await Promise.all(
      [storeCheck, ...checks].map((check, i) =>
        check().catch((error: unknown) =>
          i === 0 || storeError(error) instanceof ApiError ? 'store unreachable' : 'readiness check failed',
        ),
      ),
    );
    const reasons = [...new Set(results.filter((reason): reason is string => Boolean(reason)))];
    if (reasons.length === 0) {
      // A degraded check that cannot read the store names nothing: the store check above just passed.
      const parts = Object.assign(
        {},
        ...(await Promise.all(degradedChecks.map((c) => c().catch(() => ({}))))),
      );
      const degraded = [...(redisDegraded(services.redis) ? ['redis'] : []), ...Object.keys(parts)];
      if (degraded.length === 0) return sendJson(res, 200, { status: 'ready' });
      return sendJson(
        res,
        200,
        Object.keys(parts).length > 0
          ? { status: 'ready', degraded, reasons: parts }
          : { status: 'ready', degraded },
      );
    }
    sendError(
      res,
      new ApiError('UPSTREAM_UNAVAILABLE', `Not ready: ${reasons.join('; ')}.`),
      services.config.docsUrl,
    );
  });
}
