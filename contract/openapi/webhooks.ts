/** OpenAPI 3.1 `webhooks`: the deliveries a registered endpoint receives (delivery/). */
import { WEBHOOK_EVENTS } from '../../domain/positionEvents.js';
import { WEBHOOK_HEADERS, webhookPayload } from '../schemas/webhooks.js';
import type { SchemaSet } from './schemaSet.js';

/** OpenAPI 3.1 `webhooks`: what a registered endpoint receives, one entry per event. */
export function webhookEvents(set: SchemaSet): Record<string, Record<string, unknown>> {
  const parameters = Object.entries(WEBHOOK_HEADERS).map(([name, description]) => ({
    name,
    in: 'header',
    required: true,
    description,
    schema: { type: 'string' },
  }));
  return Object.fromEntries(
    WEBHOOK_EVENTS.map((event) => [
      event,
      {
        post: {
          operationId: `webhook${event.replace(/(?:^|[._])(.)/g, (_m, c: string) => c.toUpperCase())}`,
          summary: `${event}, POSTed to each endpoint subscribed to it`,
          description:
            'The body is `{ type, timestamp, data }`; `data` is the position as GET /v1/positions lists it (with its metadata; `health` on position.health_changed), as observed at the first attempt: retries and replays send the same bytes. Verify `webhook-signature` over the raw body before parsing it.',
          tags: ['Webhooks'],
          // Authenticated by the signature the receiver verifies, not by a credential it is sent.
          security: [],
          parameters,
          requestBody: {
            required: true,
            content: { 'application/json': { schema: set.ref(webhookPayload) } },
          },
          responses: {
            '200': {
              description:
                'Any 2xx acknowledges the delivery. Anything else, a redirect or no answer within WEBHOOK_TIMEOUT_MS (10 s by default) is a failed attempt, retried on the schedule.',
            },
          },
        },
      },
    ]),
  );
}
