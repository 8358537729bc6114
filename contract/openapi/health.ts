/** The health paths (rest/health.ts): outside the routes table, documented here. */
import type { z } from 'zod';
import { healthBody, readyBody } from '../schemas/health.js';
import { errorResponse, JSON_TYPE, type Response, responseHeaders } from './responses.js';
import type { SchemaSet } from './schemaSet.js';
import type { Operation } from './types.js';

export function healthPaths(set: SchemaSet, docsUrl: string): Record<string, Record<string, Operation>> {
  const ok = (schema: z.ZodType, example: unknown): Response => ({
    description: 'Success.',
    headers: responseHeaders(false),
    content: { [JSON_TYPE]: { schema: set.ref(schema), example } },
  });
  return {
    '/healthz': {
      get: {
        operationId: 'getHealth',
        summary: 'Liveness',
        description: 'The process is up. Outside the rate-limit buckets.',
        tags: ['Health'],
        security: [],
        responses: { '200': ok(healthBody, { status: 'ok' }) },
      },
    },
    '/readyz': {
      get: {
        operationId: 'getReadiness',
        summary: 'Readiness',
        description:
          'Ready once the store answers, the migrations are applied and the first roll-up of the catalogue exists; a 503 envelope otherwise. Outside the rate-limit buckets.',
        tags: ['Health'],
        security: [],
        responses: {
          '200': ok(readyBody, { status: 'ready' }),
          '503': errorResponse(set, 503, ['UPSTREAM_UNAVAILABLE'], docsUrl, false),
        },
      },
    },
  };
}
