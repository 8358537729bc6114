import type { Services } from '../lib/services.js';
import { createLoaders, type Loaders } from '../loaders/index.js';
import type { AuthenticatedKey } from '../resolvers/apiKeys.js';

/** The per-request GraphQL context: services, fresh DataLoaders and, on /v1 paths, the caller's key. */
export interface GraphQLContext {
  services: Services;
  loaders: Loaders;
  requestId: string;
  apiKey: AuthenticatedKey | null;
  /** The Idempotency-Key header of a prepare call, when given. */
  idempotencyKey: string | null;
}

export function createContext(
  services: Services,
  requestId: string,
  extra: { apiKey?: AuthenticatedKey | null; idempotencyKey?: string | null } = {},
): GraphQLContext {
  return {
    services,
    loaders: createLoaders(services),
    requestId,
    apiKey: extra.apiKey ?? null,
    idempotencyKey: extra.idempotencyKey ?? null,
  };
}
