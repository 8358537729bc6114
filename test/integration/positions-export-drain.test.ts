/**
 * GET /v1/positions/export as CSV under compression (COMPRESSION on, `Accept-Encoding: gzip`): the export
 * waits for 'drain' on every page the gzip stream cannot take at once. A listener per wait piled up on
 * the zlib stream (the `compression` wrapper routes `res.on('drain')` there and `res.off` does not
 * reach it): MaxListenersExceededWarning after 11 pages. The service runs in this process, so its
 * warnings are this process's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureChains } from '../helpers/catalogue.js';
import { startTestService, type TestService } from '../helpers/service.js';

/** 25 pages of the export's 1000 rows, each over the gzip stream's 16 KiB buffer. */
const ROWS = 25_000;

let svc: TestService;
let key: string;

beforeAll(async () => {
  const chains = fixtureChains(2);
  svc = await startTestService({ chains, env: { INDEXER: 'off' } });
  const created = await svc.createKey({ environment: 'LIVE' });
  key = created.key;
  const [a, b] = chains[0]!.tokens as unknown as [{ address: string }, { address: string }];
  await svc.services.db.query(
    `INSERT INTO positions (strategy_hash, key_id, chain_key, chain_id, wallet, token_a, token_b, amount_a, amount_b,
       maker_fee_bps, protocol_fee_bps, request_fingerprint, payload, metadata, created_at)
     SELECT '0x' || lpad(to_hex(g), 64, '0'), $1, 'base', 8453, '0x' || lpad(to_hex(g), 40, '0'), $2, $3,
            g * 1000, g * 2000, 30, 5, 'fp',
            jsonb_build_object('position', jsonb_build_object(
              'tokenA', jsonb_build_object('symbol', 'USDC', 'decimals', 6),
              'tokenB', jsonb_build_object('symbol', 'USDT', 'decimals', 6))),
            jsonb_build_object('orderRef', 'acme-' || g),
            timestamptz '2026-01-01' + g * interval '1 millisecond'
       FROM generate_series(1, $4::int) g`,
    [created.keyId, a.address.toLowerCase(), b.address.toLowerCase(), ROWS],
  );
}, 120_000);

afterAll(async () => {
  await svc?.stop();
});

describe('GET /v1/positions/export under gzip', () => {
  it('streams every row and adds no listener per backpressure wait (no MaxListenersExceededWarning)', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const res = await svc.get('/v1/positions/export?format=csv', {
        headers: { authorization: `Bearer ${key}`, 'accept-encoding': 'gzip' },
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-encoding')).toBe('gzip');
      // fetch decodes gzip; read slowly enough that the stream fills and drains page after page.
      let lines = 0;
      const decoder = new TextDecoder();
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        const text = decoder.decode(chunk, { stream: true });
        for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) lines++;
      }
      expect(lines).toBe(ROWS + 1); // the header line
      // A warning is emitted on the next tick.
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.map((w) => `${w.name}: ${w.message}`)).toEqual([]);
  }, 120_000);
});
