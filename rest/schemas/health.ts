import { z } from 'zod';
import { component } from './common.js';

/** Bodies of /healthz and /readyz (rest/health.ts); both are outside the rate-limit buckets. */
export const healthBody = component('Health', z.object({ status: z.literal('ok') }));
export const readyBody = component(
  'Ready',
  z.object({
    status: z.literal('ready'),
    degraded: z
      .array(z.enum(['redis']))
      .optional()
      .meta({
        description:
          'Dependencies the service does without for now, answering from its own memory instead: `redis` (unreachable or hung) means rate limits count per replica and caches miss. Absent when nothing is degraded.',
      }),
  }),
);
