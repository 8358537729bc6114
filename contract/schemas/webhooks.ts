import { z } from 'zod';
import { MAX_URL_LENGTH } from '../../delivery/ssrf.js';
import { WEBHOOK_EVENTS } from '../../domain/positionEvents.js';
import {
  WebhookAttemptFieldsFragmentDoc,
  WebhookDeliveryFieldsFragmentDoc,
  WebhookFieldsFragmentDoc,
} from '../../rest/generated/graphql.js';
import { fragmentSchema } from '../openapi/fromSelection.js';
import { component, dateTime, meta, pageSchema, readBody, webhookIdValue } from './common.js';
import { listedPosition } from './positionList.js';
import { positionHealth } from './positions.js';

/** /v1/webhooks… and the payloads sent to an endpoint (OpenAPI 3.1 `webhooks`). */
export const webhookEvent = z.enum(WEBHOOK_EVENTS).meta({
  description:
    '`position.shipped` (seen on chain), `position.filled` (first settled volume), `position.docked` (closed by its maker), `position.health_changed` (the live health observed differs from the last observed), `position.reverted` (a reorg or a replaced chain undid its ship or dock: `data.status` says where it stands now; the lifecycle events that follow are delivered again).',
});

export const webhookRequest = component(
  'WebhookRequest',
  z
    .object({
      url: z
        .string()
        .max(MAX_URL_LENGTH)
        .meta({
          description:
            'Where events are POSTed: an https URL whose host resolves to public addresses only (no private, loopback or link-local address, IPv4 or IPv6); checked now and at every attempt. The operator may allow http and private addresses (the self-contained demo mode does).',
          examples: ['https://hooks.example.org/liquidity'],
        }),
      events: z
        .array(webhookEvent)
        .min(1)
        .max(WEBHOOK_EVENTS.length)
        .meta({ description: 'Each at most once.' }),
    })
    .strict(),
);

/** rest/operations/WebhookFields.graphql. */
export const webhook = component('Webhook', fragmentSchema(WebhookFieldsFragmentDoc));

export const webhookBody = component('WebhookResponse', readBody(webhook, meta));
export const webhookListBody = component(
  'WebhookListResponse',
  readBody(
    z.object({ webhooks: z.array(webhook).meta({ description: 'Newest first; at most 10 a key.' }) }),
    meta,
  ),
);
export const webhookCreatedBody = component(
  'WebhookCreatedResponse',
  readBody(
    webhook.extend({
      secret: z
        .string()
        .regex(/^whsec_[A-Za-z0-9+/=]+$/)
        .meta({
          description:
            'The signing secret (Standard Webhooks `whsec_` form). Shown once: the service keeps it only to sign (sealed at rest) and never shows it again.',
          examples: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
        }),
    }),
    meta,
  ),
);
export const webhookDeletedBody = component(
  'WebhookDeletedResponse',
  readBody(z.object({ id: webhookIdValue, deleted: z.literal(true) }), meta),
);

/** rest/operations/WebhookAttemptFields.graphql. */
export const webhookAttempt = component('WebhookAttempt', fragmentSchema(WebhookAttemptFieldsFragmentDoc));

/** rest/operations/WebhookDeliveryFields.graphql. */
export const webhookDelivery = component(
  'WebhookDelivery',
  fragmentSchema(WebhookDeliveryFieldsFragmentDoc, { fragments: { WebhookAttemptFields: webhookAttempt } }),
);

export const webhookDeliveryBody = component('WebhookDeliveryResponse', readBody(webhookDelivery, meta));
export const webhookDeliveriesBody = component(
  'WebhookDeliveryListResponse',
  readBody(
    z.object({
      deliveries: z.array(webhookDelivery).meta({ description: 'Newest first.' }),
      page: pageSchema('Pass as `cursor` for the next page; null on the last.'),
    }),
    meta,
  ),
);

/** What an endpoint receives: Standard Webhooks' `{ type, timestamp, data }`. */
export const webhookPayload = component(
  'WebhookPayload',
  z.object({
    type: webhookEvent,
    timestamp: dateTime.meta({ description: 'When the service observed the event.' }),
    data: listedPosition.extend({
      health: positionHealth.nullable().optional().meta({
        description: 'On `position.health_changed` only: the health observed at the change.',
      }),
    }),
  }),
);

export const WEBHOOK_HEADERS = {
  'webhook-id': 'The delivery id (`msg_…`): the same on every retry and replay; deduplicate on it.',
  'webhook-timestamp':
    'Unix seconds of this attempt; reject values far from your clock (replays of old requests).',
  'webhook-signature':
    'Space-separated `v1,<base64 HMAC-SHA256>` signatures of `{webhook-id}.{webhook-timestamp}.{body}`, one per active secret (two during a rotation overlap). Verify with any Standard Webhooks library.',
} as const;
