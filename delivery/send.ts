/**
 * One signed POST of a delivery (Standard Webhooks): headers webhook-id, webhook-timestamp and
 * webhook-signature (one `v1,` signature per active secret, space-separated, so a receiver still holding
 * the previous secret verifies during a rotation's overlap). The socket goes to the address checked by
 * delivery/ssrf.ts, whatever DNS says by then; TLS still verifies the URL's host name. Redirects are not
 * followed (a 3xx is a failed attempt).
 */
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { CheckedTarget } from './ssrf.js';

export interface AttemptResult {
  statusCode: number | null;
  durationMs: number;
  /** Null when the receiver answered 2xx. */
  error: string | null;
}

export function signatures(secrets: readonly string[], id: string, at: Date, body: string): string {
  return secrets.map((secret) => new Webhook(secret).sign(id, at, body)).join(' ');
}

/** Bytes of the receiver's answer read (and dropped) at most, so the connection can close cleanly. */
const MAX_RESPONSE_BYTES = 64 * 1024;

export function postSigned(
  target: CheckedTarget,
  message: { id: string; body: string; secrets: readonly string[] },
  timeoutMs: number,
): Promise<AttemptResult> {
  const started = performance.now();
  const at = new Date();
  const pinned: LookupFunction = (_host, options, callback) => {
    if ((options as { all?: boolean }).all)
      callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };
  const transport = target.url.protocol === 'https:' ? https : http;
  return new Promise<AttemptResult>((resolve) => {
    let settled = false;
    const done = (statusCode: number | null, error: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ statusCode, durationMs: Math.round(performance.now() - started), error });
    };
    const req = transport.request(
      target.url,
      {
        method: 'POST',
        lookup: pinned,
        agent: false,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(message.body),
          'user-agent': 'liquidity-gateway-webhooks/1',
          'webhook-id': message.id,
          'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
          'webhook-signature': signatures(message.secrets, message.id, at, message.body),
        },
      },
      (res) => {
        const status = res.statusCode ?? 0;
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_RESPONSE_BYTES) res.destroy();
        });
        const finish = () =>
          done(status, status >= 200 && status < 300 ? null : `the receiver answered HTTP ${status}`);
        res.on('end', finish);
        res.on('close', finish);
        res.on('error', finish);
      },
    );
    const timer = setTimeout(() => {
      req.destroy();
      done(null, `no answer within ${timeoutMs} ms`);
    }, timeoutMs);
    req.on('error', (err: NodeJS.ErrnoException) => done(null, err.code ?? err.message));
    req.end(message.body);
  });
}
