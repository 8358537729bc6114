import { z } from 'zod';
import { catalogueEventMessage } from '../../contract/schemas/events.js';
import { ApiError } from '../../lib/errors.js';
import { clientId } from '../conventions.js';
import { RETRY_MS } from '../eventHub.js';
import type { RestRoute, RouteContext } from '../route.js';

/** An event id: what the stream's `id:` lines carry. */
const EVENT_ID = /^[0-9]{1,15}$/;

const idParam = (name: string) =>
  z
    .string({ error: `${name} must be given once.` })
    .regex(EVENT_ID, `${name} must be an event id (the digits of an \`id:\` line).`);

/**
 * The id to resume after: the `Last-Event-ID` header (what a browser's EventSource sends when it
 * reconnects), else the `lastEventId` query parameter (for clients that cannot set headers). The header
 * wins: an EventSource reconnects to the same URL, whose query keeps the id it first started from.
 */
function resumeAfter(ctx: RouteContext): number | null {
  const header = ctx.req.headers['last-event-id'];
  if (header !== undefined) {
    if (!idParam('Last-Event-ID').safeParse(header).success)
      throw ApiError.invalid(
        'Last-Event-ID',
        'Last-Event-ID must be an event id (the digits of an `id:` line).',
      );
    return Number(header);
  }
  const query = (ctx.req.query as Record<string, unknown>).lastEventId;
  if (query === undefined) return null;
  const parsed = idParam('lastEventId').safeParse(query);
  if (!parsed.success)
    throw ApiError.invalid('lastEventId', parsed.error.issues[0]?.message ?? 'lastEventId is invalid.');
  return Number(parsed.data);
}

export const eventRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/api/events',
    bucket: 'events',
    doc: {
      operationId: 'streamCatalogueEvents',
      descriptionValues: { RETRY_MS },
      query: z.object({
        lastEventId: idParam('lastEventId')
          .optional()
          .meta({
            examples: ['1234'],
          }),
      }),
      headers: z.object({
        'Last-Event-ID': idParam('Last-Event-ID').optional(),
      }),
      response: catalogueEventMessage,
      responseTypes: { 'text/event-stream': catalogueEventMessage },
      responseHeaders: {
        'Cache-Control': {},
        'X-Accel-Buffering': {},
      },
    },
    async handle(ctx) {
      const after = resumeAfter(ctx);
      const hub = ctx.services.events;
      if (!hub) throw new ApiError('UPSTREAM_UNAVAILABLE', 'The event stream is not served here.');
      await hub.open(ctx.req, ctx.res, clientId(ctx.req, ctx.services.config.trustProxy), after);
      return { body: null, streamed: true };
    },
  },
];
