import { z } from 'zod';
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
import { pageLimit, queryOf } from '../parameters.js';
import { queryText } from '../queryValues.js';
import { type RestRoute, type RouteContext, readBody } from '../route.js';
import { deliveryIdValue, webhookIdValue } from '../schemas/common.js';
import {
  webhookBody,
  webhookCreatedBody,
  webhookDeletedBody,
  webhookDeliveriesBody,
  webhookDeliveryBody,
  webhookListBody,
  webhookRequest,
} from '../schemas/webhooks.js';

/**
 * /v1/webhooks…: a key's webhook endpoints (Standard Webhooks), their deliveries and
 * replays. Any valid key; every method counts in the `webhooks` bucket, per key. The GraphQL model
 * (schema/webhook.ts) decides; here the path, query and body are checked and the bodies shaped.
 */
const TAG = ['Webhooks'];
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

export const webhookRoutes: RestRoute[] = [
  {
    method: 'POST',
    path: '/v1/webhooks',
    bucket: 'webhooks',
    auth: { scope: null },
    body: true,
    doc: {
      operationId: 'createWebhook',
      summary: 'Register a webhook endpoint',
      descriptionValues: { MAX_WEBHOOKS_PER_KEY },
      tags: TAG,
      body: webhookRequest,
      bodyExample: {
        url: 'https://hooks.example.org/liquidity',
        events: ['position.shipped', 'position.filled'],
      },
      response: webhookCreatedBody,
      errors: ['INVALID_PARAMETER', 'UNPROCESSABLE'],
      errorExamples: {
        INVALID_PARAMETER: {
          message: 'url must not resolve to a private, loopback or link-local address (10.0.0.5 is private).',
          parameter: 'url',
        },
      },
    },
    async handle(ctx) {
      const input = parseRequest(ctx);
      const { createWebhook } = await ctx.operations.run(CreateWebhookDocument, { input }, ctx.graphql());
      return answer(ctx, { ...createWebhook.webhook, secret: createWebhook.secret });
    },
  },
  {
    method: 'GET',
    path: '/v1/webhooks',
    bucket: 'webhooks',
    auth: { scope: null },
    doc: {
      operationId: 'listWebhooks',
      summary: 'The webhook endpoints of this key',
      tags: TAG,
      response: webhookListBody,
      errors: [],
    },
    async handle(ctx) {
      const { webhooks } = await ctx.operations.run(WebhooksDocument, {}, ctx.graphql());
      return answer(ctx, { webhooks });
    },
  },
  {
    method: 'GET',
    path: '/v1/webhooks/:webhookId',
    bucket: 'webhooks',
    auth: { scope: null },
    doc: {
      operationId: 'getWebhook',
      summary: 'One webhook endpoint of this key',
      tags: TAG,
      params: webhookParams,
      response: webhookBody,
      errors: ['INVALID_PARAMETER', 'NOT_FOUND'],
    },
    async handle(ctx) {
      const { webhook } = await ctx.operations.run(
        WebhookDocument,
        { webhookId: webhookIdOf(ctx) },
        ctx.graphql(),
      );
      return answer(ctx, webhook);
    },
  },
  {
    method: 'DELETE',
    path: '/v1/webhooks/:webhookId',
    bucket: 'webhooks',
    auth: { scope: null },
    doc: {
      operationId: 'deleteWebhook',
      summary: 'Delete a webhook endpoint',
      tags: TAG,
      params: webhookParams,
      response: webhookDeletedBody,
      errors: ['INVALID_PARAMETER', 'NOT_FOUND'],
    },
    async handle(ctx) {
      const webhookId = webhookIdOf(ctx);
      await ctx.operations.run(DeleteWebhookDocument, { input: { webhookId } }, ctx.graphql());
      return answer(ctx, { id: webhookId, deleted: true as const });
    },
  },
  {
    method: 'POST',
    path: '/v1/webhooks/:webhookId/rotate',
    bucket: 'webhooks',
    auth: { scope: null },
    doc: {
      operationId: 'rotateWebhookSecret',
      summary: 'Rotate the signing secret',
      tags: TAG,
      params: webhookParams,
      response: webhookCreatedBody,
      errors: ['INVALID_PARAMETER', 'NOT_FOUND'],
    },
    async handle(ctx) {
      const { rotateWebhookSecret } = await ctx.operations.run(
        RotateWebhookSecretDocument,
        { input: { webhookId: webhookIdOf(ctx) } },
        ctx.graphql(),
      );
      return answer(ctx, { ...rotateWebhookSecret.webhook, secret: rotateWebhookSecret.secret });
    },
  },
  {
    method: 'GET',
    path: '/v1/webhooks/:webhookId/deliveries',
    bucket: 'webhooks',
    auth: { scope: null },
    doc: {
      operationId: 'listWebhookDeliveries',
      summary: 'Deliveries of an endpoint, with every attempt',
      descriptionValues: { DELIVERIES_MAX_LIMIT, DELIVERIES_DEFAULT_LIMIT },
      tags: TAG,
      params: webhookParams,
      query: deliveriesQuery,
      response: webhookDeliveriesBody,
      errors: ['INVALID_PARAMETER', 'NOT_FOUND'],
    },
    async handle(ctx) {
      const { limit = DELIVERIES_DEFAULT_LIMIT, cursor = null } = queryOf(ctx, deliveriesQuery);
      const { webhookDeliveries } = await ctx.operations.run(
        WebhookDeliveriesDocument,
        { webhookId: webhookIdOf(ctx), first: limit, after: cursor },
        ctx.graphql(),
        REST_PAGING_NAMES,
      );
      return answer(ctx, {
        deliveries: webhookDeliveries.edges.map((e) => e.node),
        page: { limit, nextCursor: nextCursorOf(webhookDeliveries.pageInfo) },
      });
    },
  },
  {
    method: 'POST',
    path: '/v1/webhooks/:webhookId/deliveries/:deliveryId/replay',
    bucket: 'webhooks',
    auth: { scope: null },
    doc: {
      operationId: 'replayWebhookDelivery',
      summary: 'Send a delivery again',
      tags: TAG,
      params: deliveryParams,
      response: webhookDeliveryBody,
      errors: ['INVALID_PARAMETER', 'NOT_FOUND'],
    },
    async handle(ctx) {
      const { replayWebhookDelivery } = await ctx.operations.run(
        ReplayWebhookDeliveryDocument,
        { input: { webhookId: webhookIdOf(ctx), deliveryId: String(ctx.req.params.deliveryId) } },
        ctx.graphql(),
      );
      return answer(ctx, replayWebhookDelivery);
    },
  },
];
