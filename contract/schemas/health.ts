import { z } from 'zod';
import { component } from './common.js';

/** Bodies of /healthz and /readyz (rest/health.ts); both are outside the rate-limit buckets. */
export const healthBody = component('Health', z.object({ status: z.literal('ok') }));
export const readyBody = component(
  'Ready',
  z.object({
    status: z.literal('ready'),
    degraded: z
      .array(z.union([z.literal('redis'), z.string().regex(/^chain:[A-Za-z0-9_-]+$/)]))
      .optional()
      .meta({
        description:
          'What the service serves without, or not fully, for now. `redis` (unreachable or hung): rate limits count per replica and caches miss. `chain:<key>`: that chain’s catalogue may be behind (its indexer made no progress for `INDEXER_STALL_SECONDS`, is re-syncing from far behind after a replaced chain, or has not indexed it yet); the other chains are served fully. Absent when nothing is degraded.',
      }),
    reasons: z.record(z.string(), z.string()).optional().meta({
      description: 'Why each `chain:<key>` of `degraded` is named, in words (for people; do not parse).',
    }),
  }),
);
