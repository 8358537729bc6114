import { deliveriesOf, replay } from '../resolvers/webhooks/deliveries.js';
import {
  createWebhook,
  endpointOf,
  removeWebhook,
  rotateSecret,
  webhookOfKey,
  webhooksOfKey,
} from '../resolvers/webhooks/endpoints.js';
import type {
  WebhookAttempt as AttemptShape,
  WebhookDelivery as DeliveryShape,
  WebhookEndpoint as EndpointShape,
  WebhookWithSecret as WithSecretShape,
} from '../resolvers/webhooks/types.js';
import { builder } from './builder.js';
import { connectionOf, relayArgs, relayPaging } from './connection.js';
import { DeliveryStatus, WebhookEventType } from './enums.js';
import { as } from './valueFormats.js';

/** Webhook endpoints of the calling key (REST: /v1/webhooks…), Standard Webhooks signing. */
const Webhook = builder.objectRef<EndpointShape>('Webhook').implement({
  description: 'A webhook endpoint of the calling key.',
  fields: (t) => ({
    id: t.exposeString('id', {
      description: 'The endpoint id, as /v1/webhooks/{webhookId} names it.',
      extensions: as('webhookId'),
    }),
    url: t.exposeString('url', { description: 'The https URL the signed POSTs go to.' }),
    events: t.expose('events', { type: [WebhookEventType], description: 'The events delivered.' }),
    createdAt: t.field({
      type: 'DateTime',
      resolve: (w) => w.createdAt,
      description: 'When it was registered.',
    }),
    previousSecretExpiresAt: t.field({
      type: 'DateTime',
      nullable: true,
      resolve: (w) => w.previousSecretExpiresAt,
      description: 'Until then the secret before the last rotation signs too.',
    }),
    disabledAt: t.field({
      type: 'DateTime',
      nullable: true,
      resolve: (w) => w.disabledAt,
      description:
        'When a delivery exhausted its retries and the endpoint stopped receiving; null while enabled (a replay enables it again).',
    }),
    disabledReason: t.string({
      nullable: true,
      resolve: (w) => w.disabledReason,
      description: 'Which delivery failed and its last error; null while enabled.',
    }),
  }),
});

const WebhookWithSecret = builder.objectRef<WithSecretShape>('WebhookWithSecret').implement({
  description: 'An endpoint just created or rotated, with its signing secret (the only time it is shown).',
  fields: (t) => ({
    webhook: t.field({ type: Webhook, resolve: (w) => w.webhook, description: 'The endpoint.' }),
    secret: t.exposeString('secret', { description: '`whsec_…`, shown once.' }),
  }),
});

const WebhookAttempt = builder.objectRef<AttemptShape>('WebhookAttempt').implement({
  description: 'One signed POST of a delivery to the endpoint.',
  fields: (t) => ({
    attempt: t.exposeInt('attempt', {
      description: '1-based within its generation.',
      extensions: as('positive'),
    }),
    generation: t.exposeInt('generation', {
      description: 'Which run of the delivery: 0 for the first, one more for each replay.',
      extensions: as('count'),
    }),
    attemptedAt: t.field({
      type: 'DateTime',
      resolve: (a) => a.attemptedAt,
      description: 'When the POST was sent.',
    }),
    statusCode: t.exposeInt('statusCode', {
      nullable: true,
      description: 'The HTTP status answered; null when no answer came (refused, timeout, connection error).',
    }),
    durationMs: t.exposeInt('durationMs', {
      description: 'Milliseconds from sending to the answer or the failure.',
      extensions: as('count'),
    }),
    error: t.exposeString('error', {
      nullable: true,
      description:
        'Why the attempt failed (a non-2xx status, a timeout, a refused address); null when it succeeded.',
    }),
    nextAttemptAt: t.field({
      type: 'DateTime',
      nullable: true,
      resolve: (a) => a.nextAttemptAt,
      description: 'When the retry after this failed attempt is due; null when none follows.',
    }),
  }),
});

const WebhookDelivery = builder.objectRef<DeliveryShape>('WebhookDelivery').implement({
  description: 'One event sent (or to be sent) to an endpoint, with its attempts.',
  fields: (t) => ({
    id: t.exposeString('id', {
      description: '`msg_…`: the webhook-id header of every attempt and replay.',
      extensions: as('deliveryId'),
    }),
    event: t.expose('event', { type: WebhookEventType, description: 'The event type.' }),
    positionId: t.exposeString('positionId', {
      description: 'The position the event is about.',
      extensions: as('hash32'),
    }),
    occurredAt: t.field({
      type: 'DateTime',
      resolve: (d) => d.occurredAt,
      description: 'When the service observed the event.',
    }),
    status: t.expose('status', { type: DeliveryStatus, description: 'Where the delivery stands.' }),
    nextAttemptAt: t.field({
      type: 'DateTime',
      nullable: true,
      resolve: (d) => d.nextAttemptAt,
      description: 'When the next attempt is due; null unless pending.',
    }),
    completedAt: t.field({
      type: 'DateTime',
      nullable: true,
      resolve: (d) => d.completedAt,
      description: 'When it succeeded or finally failed; null while pending.',
    }),
    attempts: t.field({
      type: [WebhookAttempt],
      resolve: (d) => d.attempts,
      description: 'Every attempt so far over all generations, oldest first.',
    }),
  }),
});

const WebhookDeliveryConnection = connectionOf('WebhookDelivery', WebhookDelivery, {
  one: 'delivery',
  many: 'deliveries',
});

const CreateWebhookInput = builder.inputType('CreateWebhookInput', {
  description: 'The body of POST /v1/webhooks.',
  fields: (t) => ({
    url: t.string({
      required: true,
      description: 'An https URL whose host resolves to a public address (private ranges are refused).',
    }),
    events: t.field({
      type: [WebhookEventType],
      required: true,
      description: 'The events to receive, each once.',
    }),
  }),
});

const WebhookIdInput = builder.inputType('WebhookIdInput', {
  description: 'Names one endpoint of the calling key.',
  fields: (t) => ({ webhookId: t.string({ required: true, description: 'The endpoint id.' }) }),
});

const ReplayWebhookDeliveryInput = builder.inputType('ReplayWebhookDeliveryInput', {
  description: 'Names one delivery of an endpoint of the calling key.',
  fields: (t) => ({
    webhookId: t.string({ required: true, description: 'The endpoint id.' }),
    deliveryId: t.string({ required: true, description: 'The delivery id, `msg_` and 32 hex digits.' }),
  }),
});

builder.queryFields((t) => ({
  webhooks: t.field({
    type: [Webhook],
    description: 'The webhook endpoints of the calling key, newest first (GET /v1/webhooks).',
    resolve: (_root, _args, ctx) => webhooksOfKey(ctx),
  }),
  webhook: t.field({
    type: Webhook,
    description:
      'One webhook endpoint of the calling key (GET /v1/webhooks/{webhookId}); NOT_FOUND when not its own.',
    args: { webhookId: t.arg.string({ required: true, description: 'The endpoint id.' }) },
    resolve: async (_root, { webhookId }, ctx) => endpointOf(await webhookOfKey(ctx, webhookId)),
  }),
  webhookDeliveries: t.field({
    type: WebhookDeliveryConnection,
    description: 'The deliveries of an endpoint, newest first (GET /v1/webhooks/{webhookId}/deliveries).',
    args: {
      webhookId: t.arg.string({ required: true, description: 'The endpoint id.' }),
      ...relayArgs(t),
    },
    resolve: (_root, { first, after, webhookId }, ctx) =>
      relayPaging(() => deliveriesOf(ctx, { webhookId, limit: first, cursor: after })),
  }),
}));

builder.mutationFields((t) => ({
  createWebhook: t.field({
    type: WebhookWithSecret,
    description: 'Registers an endpoint for the calling key and returns its secret once (POST /v1/webhooks).',
    args: { input: t.arg({ type: CreateWebhookInput, required: true, description: 'URL and events.' }) },
    resolve: (_root, { input }, ctx) => createWebhook(ctx, input),
  }),
  deleteWebhook: t.boolean({
    description:
      'Deletes an endpoint of the calling key (DELETE /v1/webhooks/{webhookId}); true when deleted, NOT_FOUND otherwise.',
    args: { input: t.arg({ type: WebhookIdInput, required: true, description: 'The endpoint.' }) },
    resolve: (_root, { input }, ctx) => removeWebhook(ctx, input.webhookId),
  }),
  rotateWebhookSecret: t.field({
    type: WebhookWithSecret,
    description:
      'A new signing secret, shown once; the previous one keeps signing until previousSecretExpiresAt (POST /v1/webhooks/{webhookId}/rotate).',
    args: { input: t.arg({ type: WebhookIdInput, required: true, description: 'The endpoint.' }) },
    resolve: (_root, { input }, ctx) => rotateSecret(ctx, input.webhookId),
  }),
  replayWebhookDelivery: t.field({
    type: WebhookDelivery,
    description:
      'Sends a delivery again as a new generation of attempts and enables a disabled endpoint (POST …/deliveries/{deliveryId}/replay).',
    args: {
      input: t.arg({
        type: ReplayWebhookDeliveryInput,
        required: true,
        description: 'The endpoint and delivery.',
      }),
    },
    resolve: (_root, { input }, ctx) => replay(ctx, input),
  }),
}));
