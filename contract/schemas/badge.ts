import { z } from 'zod';
import { component } from './common.js';

/** The body of GET /api/badge (SPEC §2.3): shields.io's endpoint-badge schema, version 1. */
export const badgeBody = component(
  'Badge',
  z
    .object({
      schemaVersion: z.literal(1),
      label: z.string().meta({ examples: ['volume 30d'] }),
      message: z.string().meta({ description: 'The formatted metric.', examples: ['$1.2M'] }),
      color: z.string().optional(),
      cacheSeconds: z.int().min(0).optional(),
      isError: z
        .boolean()
        .optional()
        .meta({ description: 'True (with message "unavailable") while the catalogue cannot answer.' }),
    })
    .meta({
      description:
        'Consumed by the shields.io endpoint badge: `https://img.shields.io/endpoint?url=<encoded URL of this endpoint>`.',
    }),
);
