/**
 * GET /v1/positions/export shares the process fairly: a key runs at most EXPORT_CONCURRENCY_PER_KEY
 * exports at once (429 beyond), the process at most EXPORT_CONCURRENCY (503 beyond), and a client that
 * stops reading is cut after EXPORT_IDLE_TIMEOUT_MS, which frees its slot. A held export is one whose
 * client has paused: with 25,000 rows (~15 MB) the socket's buffers fill and the export waits on it.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { fixtureChains } from '../helpers/catalogue.js';
import { insertGeneratedPositions } from '../helpers/positions.js';
import { MACHINE_REDIS } from '../helpers/postgres.js';
import { startTestService, type TestService } from '../helpers/service.js';

const ROWS = 25_000;

let svc: TestService;
const keys: string[] = [];

beforeAll(async () => {
  const chains = fixtureChains(2);
  svc = await startTestService({
    chains,
    env: {
      INDEXER: 'off',
      EXPORT_CONCURRENCY: '2',
      EXPORT_CONCURRENCY_PER_KEY: '1',
      EXPORT_IDLE_TIMEOUT_MS: '400',
      // Slots, not pace: the exports here run as fast as they can (their share has bench:fairness).
      EXPORT_LOOP_SHARE: '1',
    },
  });
  for (let i = 0; i < 3; i++) {
    const created = await svc.createKey({ environment: 'LIVE' });
    keys.push(created.key);
    await insertGeneratedPositions(svc.services.db, {
      keyId: created.keyId,
      chain: chains[0]!,
      rows: ROWS,
      first: 1 + i * ROWS,
    });
  }
}, 120_000);

afterAll(async () => {
  await svc?.stop();
});

interface HeldExport {
  status: number;
  /** Resolves with the bytes received when the connection ends (the client reading again). */
  ended: Promise<number>;
  resume(): void;
  close(): void;
}

/**
 * An export whose client reads the response head, then stops reading its socket (node's http client
 * keeps reading a paused response into its own buffers, so it cannot stand for a stalled client).
 */
function holdExport(key: string, on: TestService = svc): Promise<HeldExport> {
  const { hostname, port } = new URL(on.url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    let bytes = 0;
    let head = '';
    const ended = new Promise<number>((done) => socket.once('close', () => done(bytes)));
    socket.on('error', () => {});
    socket.once('error', reject);
    socket.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (head.includes('\r\n')) return;
      head += chunk.toString('latin1');
      if (!head.includes('\r\n')) return;
      socket.pause();
      resolve({
        status: Number(head.split(' ')[1]),
        ended,
        resume: () => socket.resume(),
        close: () => socket.destroy(),
      });
    });
    socket.write(
      `GET /v1/positions/export?format=csv HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAuthorization: Bearer ${key}\r\n\r\n`,
    );
  });
}

async function exportStatus(
  key: string,
  on: TestService = svc,
): Promise<{ status: number; body: string; retryAfter: string | null }> {
  const res = await on.get('/v1/positions/export?format=csv', {
    headers: { authorization: `Bearer ${key}` },
  });
  const body = await res.text();
  return { status: res.status, body, retryAfter: res.headers.get('retry-after') };
}

/** Resolves once the service runs no export (a closed client's 'close' reaches it a moment later). */
const noExportRunning = (on: TestService = svc) =>
  vi.waitFor(() => expect(on.services.exports?.size).toBe(0), { timeout: 30_000, interval: 20 });

describe('GET /v1/positions/export, shared fairly', () => {
  it('refuses a key its second export at once (429), serves another key, and frees the slot when the client goes', async () => {
    const held = await holdExport(keys[0]!);
    expect(held.status).toBe(200);
    const refused = await exportStatus(keys[0]!);
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.body).error.code).toBe('RATE_LIMITED');
    expect(Number(refused.retryAfter)).toBeGreaterThan(0);
    // Another key is not refused for the first key's export.
    const other = await exportStatus(keys[1]!);
    expect(other.status).toBe(200);
    expect(other.body.split('\r\n').length).toBe(ROWS + 2); // header, rows, and the empty tail
    held.close();
    await noExportRunning();
    expect((await exportStatus(keys[0]!)).status).toBe(200);
  }, 60_000);

  it('refuses an export beyond the process allowance with 503, whatever the key', async () => {
    const first = await holdExport(keys[0]!);
    const second = await holdExport(keys[1]!);
    expect([first.status, second.status]).toEqual([200, 200]);
    const refused = await exportStatus(keys[2]!);
    expect(refused.status).toBe(503);
    expect(JSON.parse(refused.body).error.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(refused.retryAfter).not.toBeNull();
    first.close();
    second.close();
    await noExportRunning();
    expect((await exportStatus(keys[2]!)).status).toBe(200);
  }, 60_000);

  it('cuts a client that stops reading, short of the whole body, and frees its slot', async () => {
    const complete = (await exportStatus(keys[1]!)).body.length;
    const held = await holdExport(keys[0]!);
    expect(held.status).toBe(200);
    // No close from this side: the server ends the export itself, then the client reads what was sent.
    await noExportRunning();
    held.resume();
    expect(await held.ended).toBeLessThan(complete);
    expect((await exportStatus(keys[0]!)).status).toBe(200);
  }, 60_000);
});

describe("a key's exports across replicas (one Redis)", () => {
  it("counts the key's exports of every replica: one running on A refuses the next on B, until it ends", async () => {
    const shared = {
      REDIS_URL: MACHINE_REDIS,
      REDIS_PREFIX: `test:exports:${Date.now()}:`,
      DATABASE_URL: String(svc.services.config.databaseUrl),
      INDEXER: 'off',
      EXPORT_CONCURRENCY_PER_KEY: '1',
      EXPORT_LOOP_SHARE: '1',
    };
    const a = await startTestService({ chains: fixtureChains(2), env: shared });
    const b = await startTestService({ chains: fixtureChains(2), env: shared });
    try {
      const held = await holdExport(keys[2]!, a);
      expect(held.status).toBe(200);
      const refused = await exportStatus(keys[2]!, b);
      expect(refused.status).toBe(429);
      expect(JSON.parse(refused.body).error.code).toBe('RATE_LIMITED');
      // Another key on B is not refused.
      expect((await exportStatus(keys[1]!, b)).status).toBe(200);
      held.close();
      await noExportRunning(a);
      expect((await exportStatus(keys[2]!, b)).status).toBe(200);
    } finally {
      await a.stop();
      await b.stop();
    }
  }, 60_000);
});
