import { timingSafeEqual } from 'node:crypto';
import type express from 'express';
import { ApiError } from '../lib/errors.js';
import type { Services } from '../lib/services.js';
import { sendError } from './envelope.js';

/**
 * GET /metrics: Prometheus text of this instance (lib/metrics.ts), outside the rate-limit buckets and
 * guarded by its own bearer token, METRICS_TOKEN (not INTERNAL_TOKEN: a scraper gets no GraphQL
 * administration). Without METRICS_TOKEN the path is not served (404 like any unknown path).
 */
export function metricsRoute(app: express.Express, services: Services): void {
  const { metrics, config } = services;
  const token = config.metricsToken;
  if (!metrics || !token) return;
  const expected = Buffer.from(`Bearer ${token}`);
  app.get('/metrics', async (req, res, next) => {
    const given = Buffer.from(req.headers.authorization ?? '');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      res.setHeader('WWW-Authenticate', 'Bearer realm="metrics"');
      return sendError(
        res,
        new ApiError('UNAUTHORIZED', 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>.'),
        config.docsUrl,
      );
    }
    try {
      const text = await metrics.render();
      res.statusCode = 200;
      res.setHeader('Content-Type', metrics.contentType);
      res.setHeader('Cache-Control', 'no-store');
      res.end(text);
    } catch (error) {
      next(error);
    }
  });
}
