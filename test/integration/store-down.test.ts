import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../lib/logger.js';
import { type EmbeddedDatabase, startEmbeddedPostgres } from '../../store/embedded.js';
import { probeRoutes } from '../helpers/routes.js';
import { startTestService, type TestService } from '../helpers/service.js';

// A store of the test's own (never the machine's shared server) is stopped under a running service.
let dataDir: string;
let pg: EmbeddedDatabase;
let svc: TestService;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'gw-down-'));
  pg = await startEmbeddedPostgres({ dataDir, logger: createLogger('silent') });
  svc = await startTestService({ env: { DATABASE_URL: pg.url }, extraRoutes: probeRoutes });
}, 60_000);
afterAll(async () => {
  await svc?.stop();
  await pg?.stop().catch(() => {});
  await rm(dataDir, { recursive: true, force: true });
});

describe('store unreachable', () => {
  it('answers 503 UPSTREAM_UNAVAILABLE, retryable, and /readyz 503; recovers when it is back', async () => {
    expect((await svc.get('/probe/db')).status).toBe(200);
    await pg.stop();
    const res = await svc.get('/probe/db');
    expect(res.status).toBe(503);
    const { error } = (await res.json()) as { error: { code: string; retryable: boolean } };
    expect(error.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(error.retryable).toBe(true);
    expect((await svc.get('/readyz')).status).toBe(503);
    // Same data directory, same port: the pool reconnects without a restart of the service.
    pg = await startEmbeddedPostgres({
      dataDir,
      port: Number(new URL(pg.url).port),
      logger: createLogger('silent'),
    });
    expect((await svc.get('/probe/db')).status).toBe(200);
    expect((await svc.get('/readyz')).status).toBe(200);
  }, 60_000);
});
