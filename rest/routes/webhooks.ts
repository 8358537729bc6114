import { z } from 'zod';
import { deliveryIdValue, webhookIdValue } from '../../contract/schemas/common.js';
import {
  webhookBody,
  webhookCreatedBody,
  webhookDeletedBody,
  webhookDeliveriesBody,
  webhookDeliveryBody,
  webhookListBody,
  webhookRequest,
} from '../../contract/schemas/webhooks.js';
import type { WebhookEvent } from '../../domain/positionEvents.js';
import { ApiError } from '../../lib/errors.js';
import { nextCursorOf, REST_PAGING_NAMES } from '../../resolvers/connection.js';
import { DELIVERIES_DEFAULT_LIMIT, DELIVERIES_MAX_LIMIT } from '../../resolvers/webhooks/deliveries.js';
import { MAX_WEBHOOKS_PER_KEY, parseEvents } from '../../resolvers/webhooks/endpoints.js';
import {
  CreateWebhookDocument,
  DeleteWebhookDocument,
  ReplayWebhookDeliveryDocument,
  RotateWebhookSecretDocument,
  WebhookDeliveriesDocument,
  WebhookDocument,
  WebhooksDocument,
} from '../generated/graphql.js';
import { operationRoute } from '../operationRoute.js';
import { pageLimit, queryOf } from '../parameters.js';
import { queryText } from '../queryValues.js';
import { type RestRoute, type RouteContext, readBody } from '../route.js';

/**
 * /v1/webhooks…: a key's webhook endpoints (Standard Webhooks), their deliveries and
 * replays. Any valid key; every method counts in the `webhooks` bucket, per key. The GraphQL model
 * (schema/webhook.ts) decides; here the path, query and body are checked and the bodies shaped.
 */
const NO_STORE = { 'Cache-Control': 'no-store' };

/** Every answer of these paths: the read envelope, never stored (two of them carry a secret). */
const answer = <T>(ctx: RouteContext, data: T) => ({ body: readBody(ctx, data), headers: NO_STORE });

const webhookParams = z.object({
  webhookId: webhookIdValue,
});
const deliveryParams = webhookParams.extend({
  deliveryId: deliveryIdValue,
});

const deliveriesQuery = z.object({
  limit: pageLimit(DELIVERIES_MAX_LIMIT).optional(),
  cursor: queryText('cursor').optional(),
});

/** `{ url, events }`, nothing else; each refusal is a 400 naming the field. */
function parseRequest(ctx: RouteContext): { url: string; events: WebhookEvent[] } {
  const body = ctx.req.body as unknown;
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new ApiError('BAD_REQUEST', 'The body must be a JSON object {url, events}.');
  for (const field of Object.keys(body)) {
    if (field !== 'url' && field !== 'events')
      throw ApiError.invalid(field, `${field} is not a field of a webhook.`);
  }
  const { url, events } = body as { url?: unknown; events?: unknown };
  if (typeof url !== 'string') throw ApiError.invalid('url', 'url is required, as a string.');
  if (!Array.isArray(events) || events.some((e) => typeof e !== 'string'))
    throw ApiError.invalid('events', 'events is required, as an array of event names.');
  return { url, events: parseEvents(events) };
}

const webhookIdOf = (ctx: RouteContext) => String(ctx.req.params.webhookId);

const keyed = { bucket: 'webhooks', auth: { scope: null } } as const;

export const webhookRoutes: RestRoute[] = [
  operationRoute({
    method: 'POST',
    path: '/v1/webhooks',
    ...keyed,
    body: true,
    doc: {
      operationId: 'createWebhook',
      descriptionValues: { MAX_WEBHOOKS_PER_KEY },
      body: webhookRequest,
      response: webhookCreatedBody,
    },
    operation: CreateWebhookDocument,
    variables: (ctx) => ({ input: parseRequest(ctx) }),
    answer: (ctx, { createWebhook }) =>
      answer(ctx, { ...createWebhook.webhook, secret: createWebhook.secret }),
  }),
  operationRoute({
    method: 'GET',
    path: '/v1/webhooks',
    ...keyed,
    doc: { operationId: 'listWebhooks', response: webhookListBody },
    operation: WebhooksDocument,
    variables: () => ({}),
    answer: (ctx, { webhooks }) => answer(ctx, { webhooks }),
  }),
  operationRoute({
    method: 'GET',
    path: '/v1/webhooks/:webhookId',
    ...keyed,
    doc: { operationId: 'getWebhook', params: webhookParams, response: webhookBody },
    operation: WebhookDocument,
    variables: (ctx) => ({ webhookId: webhookIdOf(ctx) }),
    answer: (ctx, { webhook }) => answer(ctx, webhook),
  }),
  operationRoute({
    method: 'DELETE',
    path: '/v1/webhooks/:webhookId',
    ...keyed,
    doc: { operationId: 'deleteWebhook', params: webhookParams, response: webhookDeletedBody },
    operation: DeleteWebhookDocument,
    variables: (ctx) => ({ input: { webhookId: webhookIdOf(ctx) } }),
    answer: (ctx, _deleted, { input }) => answer(ctx, { id: input.webhookId, deleted: true as const }),
  }),
  operationRoute({
    method: 'POST',
    path: '/v1/webhooks/:webhookId/rotate',
    ...keyed,
    doc: { operationId: 'rotateWebhookSecret', params: webhookParams, response: webhookCreatedBody },
    operation: RotateWebhookSecretDocument,
    variables: (ctx) => ({ input: { webhookId: webhookIdOf(ctx) } }),
    answer: (ctx, { rotateWebhookSecret: rotated }) =>
      answer(ctx, { ...rotated.webhook, secret: rotated.secret }),
  }),
  operationRoute({
    method: 'GET',
    path: '/v1/webhooks/:webhookId/deliveries',
    ...keyed,
    doc: {
      operationId: 'listWebhookDeliveries',
      descriptionValues: { DELIVERIES_MAX_LIMIT, DELIVERIES_DEFAULT_LIMIT },
      params: webhookParams,
      query: deliveriesQuery,
      response: webhookDeliveriesBody,
    },
    operation: WebhookDeliveriesDocument,
    variables: (ctx) => {
      const { limit = DELIVERIES_DEFAULT_LIMIT, cursor = null } = queryOf(ctx, deliveriesQuery);
      return { webhookId: webhookIdOf(ctx), first: limit, after: cursor };
    },
    renames: REST_PAGING_NAMES,
    answer: (ctx, { webhookDeliveries: page }, { first }) =>
      answer(ctx, {
        deliveries: page.edges.map((e) => e.node),
        page: { limit: first, nextCursor: nextCursorOf(page.pageInfo) },
      }),
  }),
  operationRoute({
    method: 'POST',
    path: '/v1/webhooks/:webhookId/deliveries/:deliveryId/replay',
    ...keyed,
    doc: { operationId: 'replayWebhookDelivery', params: deliveryParams, response: webhookDeliveryBody },
    operation: ReplayWebhookDeliveryDocument,
    variables: (ctx) => ({
      input: { webhookId: webhookIdOf(ctx), deliveryId: String(ctx.req.params.deliveryId) },
    }),
    answer: (ctx, { replayWebhookDelivery }) => answer(ctx, replayWebhookDelivery),
  }),
];
