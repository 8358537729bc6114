/**
 * GET /v1/positions/export of 100k positions: the body (~30 MB) is streamed page by page,
 * so the service's RSS stays flat. startTestService runs in-process, so the test samples its own RSS
 * while it reads the body as a stream and counts lines (never holding it).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureChains } from '../helpers/catalogue.js';
import { insertGeneratedPositions } from '../helpers/positions.js';
import { startTestService, type TestService } from '../helpers/service.js';

const ROWS = 100_000;
/** RSS growth allowed while ~30 MB stream through (the whole set as objects would be hundreds of MB). */
const MAX_GROWTH_MB = 60;

let svc: TestService;
let key: string;

// A full collection before each sample: V8 frees old garbage lazily, so a raw RSS sample measures when
// the collector last ran, not what the export holds. What stays after a collection is what it retains.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

beforeAll(async () => {
  const chains = fixtureChains(2);
  // Memory, not pace: the export runs as fast as it can (its share of the loop has the fairness bench).
  svc = await startTestService({ chains, env: { INDEXER: 'off', EXPORT_LOOP_SHARE: '1' } });
  const created = await svc.createKey({ environment: 'LIVE' });
  key = created.key;
  await insertGeneratedPositions(svc.services.db, {
    keyId: created.keyId,
    chain: chains[0]!,
    rows: ROWS,
    metadata: { desk: '=cmd' },
  });
  await svc.services.db.query('ANALYZE positions');
}, 120_000);

afterAll(async () => {
  await svc?.stop();
});

async function streamed(format: 'csv' | 'ndjson') {
  gc();
  const before = process.memoryUsage().rss;
  let peak = before;
  let heapPeak = process.memoryUsage().heapUsed;
  const timer = setInterval(() => {
    gc();
    const m = process.memoryUsage();
    peak = Math.max(peak, m.rss);
    heapPeak = Math.max(heapPeak, m.heapUsed);
  }, 100);
  const started = Date.now();
  const res = await svc.get(`/v1/positions/export?format=${format}`, {
    headers: { authorization: `Bearer ${key}` },
  });
  expect(res.status).toBe(200);
  let bytes = 0;
  let lines = 0;
  let first = '';
  const decoder = new TextDecoder();
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.byteLength;
    const text = decoder.decode(chunk, { stream: true });
    if (first.length < 1000) first += text.slice(0, 1000);
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) lines++;
  }
  clearInterval(timer);
  const growthMb = (peak - before) / 2 ** 20;
  const result = {
    format,
    bytes,
    lines,
    growthMb: Math.round(growthMb),
    heapPeakMb: Math.round(heapPeak / 2 ** 20),
    rssBeforeMb: Math.round(before / 2 ** 20),
    seconds: (Date.now() - started) / 1000,
  };
  console.log('export', JSON.stringify(result));
  return { ...result, first, growthMb };
}

describe('GET /v1/positions over 100k positions', () => {
  it('reads a page (first and next) by the (key_id, created_at, strategy_hash) index, not a sort of the set', async () => {
    const db = svc.services.db as unknown as { query: (text: unknown, values?: unknown) => Promise<unknown> };
    const original = db.query;
    const seen: { text: string; values: unknown[] }[] = [];
    db.query = function (this: unknown, text: unknown, values?: unknown) {
      if (typeof text === 'string' && text.includes('FROM positions p'))
        seen.push({ text, values: values as unknown[] });
      return original.call(this, text, values);
    };
    try {
      const first = await svc.get('/v1/positions?limit=20', { headers: { authorization: `Bearer ${key}` } });
      const cursor = ((await first.json()) as { data: { page: { nextCursor: string } } }).data.page
        .nextCursor;
      const next = await svc.get(`/v1/positions?limit=20&cursor=${cursor}`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(next.status).toBe(200);
    } finally {
      db.query = original;
    }
    expect(seen).toHaveLength(2);
    for (const { text, values } of seen) {
      const { rows } = await svc.services.db.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${text}`, values);
      const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
      expect(plan).toContain('positions_key_created_hash');
      expect(plan).not.toMatch(/Sort Key/);
    }
  });
});

describe('GET /v1/positions/export of 100k positions', () => {
  it('streams CSV with flat RSS', async () => {
    const r = await streamed('csv');
    expect(r.lines).toBe(ROWS + 1);
    expect(r.bytes).toBeGreaterThan(25 * 2 ** 20);
    expect(r.first.startsWith('positionId,status,')).toBe(true);
    expect(r.first).toContain('0x00000000000000000000000000000000000000000000000000000000000186a0,prepared,');
    expect(r.growthMb).toBeLessThan(MAX_GROWTH_MB);
  }, 120_000);

  it('streams NDJSON with flat RSS', async () => {
    const r = await streamed('ndjson');
    expect(r.lines).toBe(ROWS);
    expect(r.growthMb).toBeLessThan(MAX_GROWTH_MB);
  }, 120_000);
});
