/**
 * GET /v1/positions/export as CSV under compression (COMPRESSION on, `Accept-Encoding: gzip`): the export
 * waits for 'drain' on every page the gzip stream cannot take at once. A listener per wait piled up on
 * the zlib stream (the `compression` wrapper routes `res.on('drain')` there and `res.off` does not
 * reach it): MaxListenersExceededWarning after 11 pages. The service runs in this process, so its
 * warnings are this process's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureChains } from '../helpers/catalogue.js';
import { insertGeneratedPositions } from '../helpers/positions.js';
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
  await insertGeneratedPositions(svc.services.db, { keyId: created.keyId, chain: chains[0]!, rows: ROWS });
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
