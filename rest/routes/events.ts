import { z } from 'zod';
import { ApiError } from '../../lib/errors.js';
import { clientId } from '../conventions.js';
import { RETRY_MS } from '../eventHub.js';
import type { RestRoute, RouteContext } from '../route.js';
import { catalogueEventMessage } from '../schemas/events.js';

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
      summary: 'Live catalogue events (Server-Sent Events)',
      description: [
        'A `text/event-stream` of what happens in the catalogue, as the indexer stores it: `strategy.shipped`, `strategy.swapped` and `strategy.docked`, in chain order, and `chain.rewound` when a reorg or a replaced chain removed some of what was sent (refetch that chain). No key. Each message has an `id:` line (increasing), an `event:` line and one `data:` line of JSON (see `CatalogueEventMessage`). Open it with `new EventSource(url)` in a browser or `curl -N` anywhere.',
        '',
        `**Resume**: send the last id you received as the \`Last-Event-ID\` header (an EventSource does so by itself when it reconnects) or, where headers cannot be set, as \`lastEventId\`; the header wins. The stream then starts with every event after that id, then goes on live. Ids are kept for a bounded window (by default the last 24 hours and at most 10,000 events, \`EVENTS_RETAIN_HOURS\`, \`EVENTS_RETAIN_COUNT\`): an id older than the window (or unknown) gets a \`reset\` event first, meaning events were missed: refetch what you show (e.g. GET /api/strategies) and carry on. Without an id the stream starts at the newest event; its first message is an \`id:\` line without data, so a reconnect before the first event misses nothing.`,
        '',
        `The stream opens with \`retry: ${RETRY_MS}\` (the reconnection delay) and sends a \`: ping\` comment every 15 s (\`EVENTS_HEARTBEAT_MS\`) so idle proxies keep it open. It is never cached or compressed (\`Cache-Control: no-store, no-transform\`, \`X-Accel-Buffering: no\`). A server that stops ends its streams; reconnect (with your id) and another replica carries on.`,
        '',
        'Limits: the `events` bucket counts each connect, per client; at most 4 streams open at once per client (429 `RATE_LIMITED`, `EVENTS_MAX_STREAMS_PER_CLIENT`) and 1000 per server (503 `UPSTREAM_UNAVAILABLE`, `EVENTS_MAX_STREAMS`), each with `Retry-After`. Any page may read it (`Access-Control-Allow-Origin: *`).',
      ].join('\n'),
      tags: ['Events'],
      query: z.object({
        lastEventId: idParam('lastEventId')
          .optional()
          .meta({
            description: 'Resume after this event id (when the `Last-Event-ID` header cannot be sent).',
            examples: ['1234'],
          }),
      }),
      headers: z.object({
        'Last-Event-ID': idParam('Last-Event-ID').optional().meta({
          description: 'Resume after this event id; sent by an EventSource when it reconnects.',
        }),
      }),
      response: catalogueEventMessage,
      responseTypes: { 'text/event-stream': catalogueEventMessage },
      responseHeaders: {
        'Cache-Control': { description: '`no-store, no-transform`.' },
        'X-Accel-Buffering': { description: '`no`: a proxy passes each message on at once.' },
      },
      errors: ['INVALID_PARAMETER', 'UPSTREAM_UNAVAILABLE'],
      errorExamples: {
        INVALID_PARAMETER: {
          message: 'Last-Event-ID must be an event id (the digits of an `id:` line).',
          parameter: 'Last-Event-ID',
        },
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
