import type { Services } from '../lib/services.js';
import { createLoaders, type Loaders } from '../loaders/index.js';
import type { AuthenticatedKey } from './apiKeys.js';

/**
 * Who runs the operation: `rest` is the REST facade's persisted documents (public paths, main pool);
 * on /graphql, `admin` holds INTERNAL_TOKEN (everything, key administration included) and `analytics`
 * holds ANALYTICS_TOKEN (queries only, no key data).
 */
export type GraphQLRole = 'admin' | 'analytics' | 'rest';

/** The per-request GraphQL context: services, fresh DataLoaders and, on /v1 paths, the caller's key. */
export interface GraphQLContext {
  /** On /graphql, `services.db` is the analytics pool: resolvers and loaders read the db from here. */
  services: Services;
  loaders: Loaders;
  requestId: string;
  role: GraphQLRole;
  apiKey: AuthenticatedKey | null;
  /** The Idempotency-Key header of a prepare call, when given. */
  idempotencyKey: string | null;
}

export function createContext(
  services: Services,
  requestId: string,
  extra: { apiKey?: AuthenticatedKey | null; idempotencyKey?: string | null; role?: GraphQLRole } = {},
): GraphQLContext {
  return {
    services,
    loaders: createLoaders(services),
    requestId,
    role: extra.role ?? 'rest',
    apiKey: extra.apiKey ?? null,
    idempotencyKey: extra.idempotencyKey ?? null,
  };
}

/** Key data and key administration: only for the administration token (INTERNAL_TOKEN). */
export function canAdministerKeys(ctx: GraphQLContext): boolean {
  return ctx.role === 'admin';
}
