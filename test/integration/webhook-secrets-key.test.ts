/**
 * An endpoint whose signing secret was sealed with another WEBHOOK_SECRETS_KEY (the key was changed
 * without re-sealing): its deliveries cannot be signed. Each attempt is recorded as failed, with why,
 * through the retry schedule, until the endpoint is disabled with that reason; nothing unsigned is sent,
 * and no delivery stays pending behind a job that keeps throwing.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sealSecret } from '../../delivery/secrets.js';
import { ADD_DELIVERY_JOB } from '../../store/webhookDeliveries.js';
import { until } from '../helpers/load.js';
import { startTestService, type TestService } from '../helpers/service.js';

const OLD_KEY = randomBytes(32);
const NEW_KEY = randomBytes(32);

let svc: TestService;
let receiver: Server;
let received = 0;

beforeAll(async () => {
  receiver = createServer((_req, res) => {
    received += 1;
    res.end('ok');
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  svc = await startTestService({
    env: {
      INDEXER: 'off',
      WEBHOOK_SECRETS_KEY: NEW_KEY.toString('hex'),
      WEBHOOK_RETRY_SCHEDULE: '50ms,50ms',
      // The circuit of a failing endpoint would put the retries off: not what this test is about.
      WEBHOOK_CIRCUIT_FAILURES: '100',
      WEBHOOK_ALLOW_HTTP: '1',
      WEBHOOK_ALLOW_PRIVATE: '1',
    },
  });
});

afterAll(async () => {
  await svc?.stop();
  receiver?.close();
});

describe('a signing secret sealed with another key', () => {
  it('fails each attempt with the reason, then disables the endpoint; sends nothing', async () => {
    const db = svc.services.db;
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    await db.query(`INSERT INTO api_keys (key_id, environment, secret_hash) VALUES ('k1', 'test', '\\x00')`);
    await db.query(
      `INSERT INTO webhooks (webhook_id, key_id, url, events, secret)
       VALUES ('wh_1', 'k1', $1, ARRAY['position.shipped'], $2)`,
      [url, sealSecret('whsec_old', OLD_KEY)],
    );
    await db.query(
      `INSERT INTO webhook_deliveries (delivery_id, webhook_id, event_type, strategy_hash, dedupe_key, payload)
       VALUES ('msg_1', 'wh_1', 'position.shipped', '0x01', 'position.shipped:0x01', '{"type":"position.shipped"}')`,
    );
    await db.query(ADD_DELIVERY_JOB, ['msg_1', 0, new Date()]);

    const endpoint = await until(
      async () =>
        (
          await db.query<{ disabled_at: Date | null; disabled_reason: string | null }>(
            "SELECT disabled_at, disabled_reason FROM webhooks WHERE webhook_id = 'wh_1'",
          )
        ).rows[0]!,
      (w) => w.disabled_at !== null,
      60_000,
    );
    expect(endpoint.disabled_at, 'the endpoint is disabled').not.toBeNull();
    expect(endpoint.disabled_reason).toMatch(/failed 3 times .*signing secret does not open/);
    const attempts = await db.query<{ attempt: number; error: string | null; status_code: number | null }>(
      "SELECT attempt, error, status_code FROM webhook_attempts WHERE delivery_id = 'msg_1' ORDER BY attempt",
    );
    expect(attempts.rows.map((a) => a.attempt)).toEqual([1, 2, 3]);
    for (const a of attempts.rows) {
      expect(a.status_code).toBeNull();
      expect(a.error).toMatch(/signing secret does not open with WEBHOOK_SECRETS_KEY/);
    }
    const delivery = await db.query("SELECT status FROM webhook_deliveries WHERE delivery_id = 'msg_1'");
    expect(delivery.rows[0]).toEqual({ status: 'failed' });
    expect(received).toBe(0);
  });
});
