import { z } from 'zod';
import { badgeBody } from '../../contract/schemas/badge.js';
import { ApiError, isApiError } from '../../lib/errors.js';
import { BADGE_LABELS, BADGE_METRICS } from '../../resolvers/catalogue/badge.js';
import { BadgeDocument } from '../generated/graphql.js';
import { responseCacheFor } from '../responseCache.js';
import type { RestRoute } from '../route.js';
import { STATS_CACHE_SECONDS } from './catalogueData.js';

/**
 * GET /api/badge (SPEC §4.6): the endpoint-badge payload of shields.io (schema version 1).
 * Parameter `metric`: volume30 (default) | volume7 | volume1 | strategies | makers | pairs | chains;
 * anything else is a 400 INVALID_PARAMETER envelope. The body has only keys of that schema
 * (schemaVersion, label, message, color, cacheSeconds, isError). When the store cannot answer (or
 * before the first roll-up) the badge still renders: 200, `isError: true`, message "unavailable" and a
 * short cacheSeconds so the renderer asks again soon.
 *
 * A working badge's body is rendered once per metric and kept in the response cache as long as the
 * stats are (60 s, STATS_CACHE_SECONDS): both come from the same roll-up, which the indexer refreshes
 * on a schedule, and the renderers keep a badge 300 s anyway. A hit is a map lookup and the cached
 * string (it was a GraphQL run and a roll-up read per request: 0.42x an express hello-world). An error
 * badge is never cached, so the badge recovers on the next request after the store does.
 */

/** shields.io does not honour less than 300 s; a working badge asks for exactly that. */
export const BADGE_CACHE_SECONDS = 300;
/** An error badge is retried soon (the renderer may clamp it up to its own minimum). */
export const BADGE_ERROR_CACHE_SECONDS = 30;

const metricParameter = z.enum(BADGE_METRICS, {
  error: `metric must be one of ${BADGE_METRICS.join(', ')}.`,
});

export const badgeRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/api/badge',
    bucket: 'badge',
    doc: {
      operationId: 'getBadge',
      descriptionValues: { BADGE_CACHE_SECONDS, BADGE_ERROR_CACHE_SECONDS },
      query: z.object({
        metric: metricParameter.default('volume30'),
      }),
      response: badgeBody,
    },
    async handle(ctx) {
      const raw = (ctx.req.query as Record<string, unknown>).metric;
      const parsed = metricParameter.safeParse(raw ?? 'volume30');
      if (!parsed.success)
        throw ApiError.invalid('metric', parsed.error.issues[0]?.message ?? 'metric is invalid.');
      const metric = parsed.data;
      const cache = responseCacheFor(ctx.services);
      const key = `badge:${metric}`;
      const local = cache.peek(key);
      if (local) return { body: local.data };
      try {
        const { value } = await cache.getOrCompute(key, STATS_CACHE_SECONDS * 1000, async () => {
          const { badge } = await ctx.operations.run(BadgeDocument, { metric }, ctx.graphql());
          const body = {
            schemaVersion: 1,
            label: badge.label,
            message: badge.message,
            color: badge.color,
            cacheSeconds: BADGE_CACHE_SECONDS,
          };
          return {
            value: { data: JSON.stringify(body), rollupAt: Date.parse(badge.rollupUpdatedAt) },
            store: true,
          };
        });
        return { body: value.data };
      } catch (error) {
        if (isApiError(error) && error.status < 500) throw error;
        ctx.services.logger.warn(
          { requestId: ctx.requestId, err: error instanceof Error ? error.message : String(error) },
          'badge unavailable',
        );
        return {
          body: {
            schemaVersion: 1,
            label: BADGE_LABELS[metric],
            message: 'unavailable',
            color: 'lightgrey',
            cacheSeconds: BADGE_ERROR_CACHE_SECONDS,
            isError: true,
          },
        };
      }
    },
  },
];
