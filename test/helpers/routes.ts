import type { RestRoute } from '../../rest/route.js';
import { readBody } from '../../rest/route.js';
import { query } from '../../store/db.js';

/** Routes that exercise the shared middleware (buckets, auth, bodies, faults) through a real server. */
export const probeRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/probe/fixed',
    bucket: 'strategies',
    handle: async (ctx) => ({ body: readBody(ctx, { ok: true }) }),
  },
  {
    method: 'GET',
    path: '/probe/boom',
    bucket: 'chains',
    handle: async () => {
      throw new Error('secret internals at /srv/app.ts:42');
    },
  },
  {
    method: 'GET',
    path: '/probe/db',
    bucket: 'chains',
    handle: async (ctx) => {
      await query(ctx.services.db, 'SELECT 1');
      return { body: readBody(ctx, { db: 'ok' }) };
    },
  },
  {
    method: 'POST',
    path: '/probe/echo',
    bucket: 'quote',
    body: true,
    handle: async (ctx) => ({ body: readBody(ctx, ctx.req.body) }),
  },
  {
    method: 'POST',
    path: '/v1/probe',
    bucket: 'prepare',
    auth: { scope: 'prepare' },
    body: true,
    handle: async (ctx) => ({ body: readBody(ctx, { keyId: ctx.apiKey?.keyId }) }),
  },
  {
    method: 'GET',
    path: '/v1/probe/:id',
    bucket: 'positions',
    auth: { scope: null },
    handle: async (ctx) => ({ body: readBody(ctx, { id: ctx.req.params.id }) }),
  },
];
