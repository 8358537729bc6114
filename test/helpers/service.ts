import { randomBytes } from 'node:crypto';
import type { ChainConfig } from '../../lib/config.js';
import { loadConfig } from '../../lib/config.js';
import { createLogger, type Logger } from '../../lib/logger.js';
import type { RestRoute } from '../../rest/route.js';
import { type RunningService, startService } from '../../service.js';
import { createTestDatabase } from './postgres.js';

export const INTERNAL_TOKEN = 'test-internal-token-0123456789';

export interface TestService extends RunningService {
  get(path: string, init?: RequestInit): Promise<Response>;
  graphql<T = Record<string, unknown>>(query: string, variables?: Record<string, unknown>): Promise<T>;
  createKey(input: Record<string, unknown>): Promise<{ key: string; keyId: string }>;
}

/**
 * Starts the real service on a free port, over a socket, against a fresh database on the machine's
 * Postgres (or DATABASE_URL given in env), with the chains given (none by default).
 */
export async function startTestService(
  options: {
    env?: Record<string, string>;
    chains?: ChainConfig[];
    extraRoutes?: RestRoute[];
    /** The service's logger (default: silent). */
    logger?: Logger;
  } = {},
): Promise<TestService> {
  const database = options.env?.DATABASE_URL ? null : await createTestDatabase();
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    INTERNAL_TOKEN,
    LOG_LEVEL: 'silent',
    REDIS_PREFIX: `test:${randomBytes(4).toString('hex')}:`,
    // Price feeds read once, at start: a later read would count among the RPC calls a test counts.
    // (test/e2e/prices.test.ts moves a feed and asks for its own interval.)
    PRICE_REFRESH_MS: String(2 ** 31 - 1),
    // Four files run at once, each with one or more services on the machine's PostgreSQL (100
    // connections): small pools whose unused connections close soon, so a run never meets "too many
    // clients" (a run with 30 s idle connections peaked at 62 to 100+, depending on what overlapped).
    DATABASE_POOL_MAX: '6',
    DATABASE_IDLE_MS: '1000',
    WEBHOOK_CONCURRENCY: '4',
    ...(database ? { DATABASE_URL: database.url } : {}),
    ...options.env,
  });
  const running = await startService(config, {
    chains: options.chains ?? [],
    extraRoutes: options.extraRoutes ?? [],
    logger: options.logger ?? createLogger('silent'),
  });
  const get = (path: string, init?: RequestInit) => fetch(`${running.url}${path}`, init);
  const graphql = async <T>(query: string, variables?: Record<string, unknown>): Promise<T> => {
    const res = await get('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${INTERNAL_TOKEN}` },
      body: JSON.stringify({ query, variables }),
    });
    const body = (await res.json()) as { data?: T; errors?: unknown[] };
    if (body.errors) throw new Error(`graphql errors: ${JSON.stringify(body.errors)}`);
    return body.data as T;
  };
  return {
    ...running,
    get,
    graphql,
    async createKey(input) {
      const data = await graphql<{ createApiKey: { key: string; keyId: string } }>(
        'mutation($input: CreateApiKeyInput!) { createApiKey(input: $input) { key keyId } }',
        { input },
      );
      return data.createApiKey;
    },
    async stop() {
      await running.stop();
      await database?.drop();
    },
  };
}
