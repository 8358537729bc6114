/**
 * Webhook endpoints of the calling key: register, list, read, delete, rotate the
 * secret. A key sees only its own endpoints; another key's and a missing one are the same 404.
 */
import { randomBytes } from 'node:crypto';
import { newSecret, sealSecret } from '../../delivery/secrets.js';
import { checkTarget, parseWebhookUrl } from '../../delivery/ssrf.js';
import { storedWebhookEvent, WEBHOOK_EVENTS, type WebhookEvent } from '../../domain/positionEvents.js';
import { ApiError } from '../../lib/errors.js';
import {
  deleteWebhook as deleteRow,
  findWebhook,
  insertWebhook,
  listWebhooks,
  rotateWebhookSecret,
  type WebhookRow,
} from '../../store/webhookEndpoints.js';
import { UNAUTHORIZED_MESSAGE } from '../apiKeys.js';
import type { GraphQLContext } from '../context.js';
import type { WebhookEndpoint, WebhookWithSecret } from './types.js';

/** Endpoints one key may register. */
export const MAX_WEBHOOKS_PER_KEY = 10;
export const WEBHOOK_ID_PATTERN = /^wh_[A-Za-z0-9]{24}$/;
export const WEBHOOK_NOT_FOUND = 'No webhook with this id was registered by this key.';

export function keyIdOf(ctx: GraphQLContext): string {
  if (!ctx.apiKey) throw new ApiError('UNAUTHORIZED', UNAUTHORIZED_MESSAGE);
  return ctx.apiKey.keyId;
}

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
function newWebhookId(): string {
  // 24 characters of 62 (rejection-free enough: 256 % 62 bias is irrelevant for an identifier).
  return `wh_${[...randomBytes(24)].map((b) => ALPHANUMERIC[b % ALPHANUMERIC.length]).join('')}`;
}

export function endpointOf(row: WebhookRow): WebhookEndpoint {
  const overlap = row.previous_secret_expires_at;
  return {
    id: row.webhook_id,
    url: row.url,
    events: row.events.map(storedWebhookEvent),
    createdAt: row.created_at,
    previousSecretExpiresAt: overlap && overlap > new Date() ? overlap : null,
    disabledAt: row.disabled_at,
    disabledReason: row.disabled_reason,
  };
}

/** The events named: 1 to all of WEBHOOK_EVENTS, each once. */
export function parseEvents(events: unknown): WebhookEvent[] {
  const known = WEBHOOK_EVENTS as readonly string[];
  if (!Array.isArray(events) || events.length === 0)
    throw ApiError.invalid('events', `events must list at least one of ${known.join(', ')}.`);
  for (const [i, event] of events.entries()) {
    if (typeof event !== 'string' || !known.includes(event))
      throw ApiError.invalid(`events[${i}]`, `events[${i}] must be one of ${known.join(', ')}.`);
  }
  if (new Set(events).size !== events.length)
    throw ApiError.invalid('events', 'events must not repeat an event.');
  return events as WebhookEvent[];
}

export function parseWebhookId(id: string): string {
  if (!WEBHOOK_ID_PATTERN.test(id))
    throw ApiError.invalid('webhookId', 'webhookId must match ^wh_[A-Za-z0-9]{24}$.');
  return id;
}

export async function webhookOfKey(ctx: GraphQLContext, id: string): Promise<WebhookRow> {
  const row = await findWebhook(ctx.services.db, keyIdOf(ctx), parseWebhookId(id));
  if (!row) throw ApiError.notFound(WEBHOOK_NOT_FOUND, 'webhookId');
  return row;
}

export async function createWebhook(
  ctx: GraphQLContext,
  input: { url: string; events: readonly WebhookEvent[] },
): Promise<WebhookWithSecret> {
  const keyId = keyIdOf(ctx);
  const policy = ctx.services.config.webhooks;
  const url = parseWebhookUrl(input.url, policy);
  const events = parseEvents(input.events);
  await checkTarget(url, policy);
  const secret = newSecret();
  const row = await insertWebhook(
    ctx.services.db,
    {
      webhook_id: newWebhookId(),
      key_id: keyId,
      url: url.toString(),
      events,
      secret: sealSecret(secret, policy.secretsKey),
    },
    MAX_WEBHOOKS_PER_KEY,
  );
  if (!row)
    throw new ApiError(
      'UNPROCESSABLE',
      `This key already has ${MAX_WEBHOOKS_PER_KEY} webhooks: delete one before registering another.`,
    );
  return { webhook: endpointOf(row), secret };
}

export async function webhooksOfKey(ctx: GraphQLContext): Promise<WebhookEndpoint[]> {
  return (await listWebhooks(ctx.services.db, keyIdOf(ctx))).map(endpointOf);
}

export async function removeWebhook(ctx: GraphQLContext, id: string): Promise<boolean> {
  if (!(await deleteRow(ctx.services.db, keyIdOf(ctx), parseWebhookId(id))))
    throw ApiError.notFound(WEBHOOK_NOT_FOUND, 'webhookId');
  return true;
}

export async function rotateSecret(ctx: GraphQLContext, id: string): Promise<WebhookWithSecret> {
  const { secretsKey, rotationOverlapSeconds } = ctx.services.config.webhooks;
  const secret = newSecret();
  const row = await rotateWebhookSecret(
    ctx.services.db,
    keyIdOf(ctx),
    parseWebhookId(id),
    sealSecret(secret, secretsKey),
    rotationOverlapSeconds,
  );
  if (!row) throw ApiError.notFound(WEBHOOK_NOT_FOUND, 'webhookId');
  return { webhook: endpointOf(row), secret };
}
