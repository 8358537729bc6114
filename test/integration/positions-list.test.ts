/**
 * GET /v1/positions and GET /v1/positions/export over a socket: order, keyset pages, filters
 * consistent with GET /v1/positions/{id}, another key's positions never shown, 400s naming the
 * parameter, CSV (RFC 4180, formula cells neutralised) and NDJSON contents.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChainConfig } from '../../lib/config.js';
import { csvCell } from '../../rest/positionExport.js';
import { fixtureChains, insertStrategy } from '../helpers/catalogue.js';
import { insertPositionRow, parseCsv } from '../helpers/positions.js';
import { startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
let keyA: string;
let keyB: string;
let chains: ChainConfig[];
const W1 = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const W2 = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
const hex = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;

interface Listed {
  positionId: string;
  status: string;
  chain: string;
  wallet: string;
  preparedAt: string;
  metadata: Record<string, string> | null;
  tokenA: { symbol: string | null };
}
interface ListBody {
  data: { positions: Listed[]; page: { limit: number; nextCursor: string | null } };
}

/** Expected ids, newest first (filled in beforeAll). */
const expected: { id: string; status: string; chain: string; wallet: string }[] = [];
let otherKeysId: string;

const get = (path: string, key = keyA) => svc.get(path, { headers: { authorization: `Bearer ${key}` } });

beforeAll(async () => {
  chains = fixtureChains(2);
  svc = await startTestService({ chains, env: { INDEXER: 'off' } });
  const a = await svc.createKey({ environment: 'LIVE' });
  const b = await svc.createKey({ environment: 'LIVE' });
  keyA = a.key;
  keyB = b.key;
  const db = svc.services.db;
  const [base, arc] = chains as [ChainConfig, ChainConfig];
  // Observed strategies: shipped, filled, docked (their hashes become positions of key A).
  const shipped = await insertStrategy(db, {
    chain: base,
    symbols: ['USDC', 'USDT'],
    shippedAt: '2026-01-02T00:00:00Z',
    salt: 1n,
  });
  const filled = await insertStrategy(db, {
    chain: base,
    symbols: ['USDC', 'USDT'],
    shippedAt: '2026-01-02T00:00:00Z',
    salt: 2n,
    volumeUsd: 12.5,
    swapCount: 1,
  });
  const docked = await insertStrategy(db, {
    chain: base,
    symbols: ['USDC', 'USDT'],
    shippedAt: '2026-01-02T00:00:00Z',
    salt: 3n,
    status: 'docked',
  });
  const rows = [
    { id: hex(1), status: 'prepared', chain: base, wallet: W1, at: '2026-01-01T00:00:01.000001Z' },
    { id: shipped.hash, status: 'shipped', chain: base, wallet: W1, at: '2026-01-01T00:00:02Z' },
    { id: filled.hash, status: 'filled', chain: base, wallet: W1, at: '2026-01-01T00:00:03Z' },
    { id: docked.hash, status: 'docked', chain: base, wallet: W2, at: '2026-01-01T00:00:04Z' },
    // Same created_at: the hash breaks the tie (descending).
    { id: hex(5), status: 'prepared', chain: arc, wallet: W2, at: '2026-01-01T00:00:05Z' },
    { id: hex(6), status: 'prepared', chain: arc, wallet: W2, at: '2026-01-01T00:00:05Z' },
    { id: hex(7), status: 'prepared', chain: base, wallet: W1, at: '2026-01-01T00:00:06.5Z' },
  ];
  for (const r of rows) {
    await insertPositionRow(db, {
      hash: r.id,
      keyId: a.keyId,
      chain: r.chain,
      wallet: r.wallet,
      createdAt: r.at,
      metadata:
        r.id === hex(7)
          ? { note: '=HYPERLINK("http://evil","x")', comma: 'a,b', line: 'one\r\ntwo' }
          : r.id === hex(1)
            ? { orderRef: 'acme-1' }
            : null,
      ...(r.id === hex(7) ? { symbolA: '@SUM(A1)' } : {}),
    });
  }
  expected.push(
    ...[...rows]
      .sort((x, y) => (x.at === y.at ? (x.id < y.id ? 1 : -1) : x.at < y.at ? 1 : -1))
      .map((r) => ({ id: r.id, status: r.status, chain: r.chain.key, wallet: r.wallet })),
  );
  otherKeysId = hex(99);
  await insertPositionRow(db, {
    hash: otherKeysId,
    keyId: b.keyId,
    chain: base,
    wallet: W1,
    createdAt: '2026-01-01T00:00:09Z',
  });
}, 60_000);

afterAll(async () => {
  await svc?.stop();
});

async function list(query: string, key = keyA): Promise<ListBody> {
  const res = await get(`/v1/positions${query}`, key);
  expect(res.status, await res.clone().text()).toBe(200);
  expect(res.headers.get('cache-control')).toBe('no-store');
  return (await res.json()) as ListBody;
}

describe('GET /v1/positions', () => {
  it('lists the key’s positions newest first (ties by hash), never another key’s, on the positions bucket', async () => {
    const res = await get('/v1/positions');
    expect(res.headers.get('ratelimit-policy')).toMatch(/^positions;/);
    const body = (await res.json()) as ListBody;
    expect(body.data.positions.map((p) => p.positionId)).toEqual(expected.map((e) => e.id));
    expect(body.data.page.nextCursor).toBeNull();
    expect(body.data.positions.find((p) => p.positionId === hex(1))?.metadata).toEqual({
      orderRef: 'acme-1',
    });
    const other = await list('', keyB);
    expect(other.data.positions.map((p) => p.positionId)).toEqual([otherKeysId]);
  });

  it('walks keyset pages to the same list', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const body: ListBody = await list(`?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(body.data.positions.length).toBeLessThanOrEqual(2);
      seen.push(...body.data.positions.map((p) => p.positionId));
      cursor = body.data.page.nextCursor;
      pages++;
    } while (cursor !== null && pages < 10);
    expect(seen).toEqual(expected.map((e) => e.id));
    expect(pages).toBe(4);
  });

  it('filters by status exactly as GET /v1/positions/{id} reports it, by chain and by wallet', async () => {
    for (const status of ['prepared', 'shipped', 'filled', 'docked']) {
      const body = await list(`?status=${status}`);
      const ids = body.data.positions.map((p) => p.positionId);
      expect(ids).toEqual(expected.filter((e) => e.status === status).map((e) => e.id));
      for (const id of ids) {
        const one = (await (await get(`/v1/positions/${id}`)).json()) as { data: { status: string } };
        expect(one.data.status).toBe(status);
      }
    }
    const arc = await list('?chain=arc');
    expect(arc.data.positions.map((p) => p.positionId)).toEqual(
      expected.filter((e) => e.chain === 'arc').map((e) => e.id),
    );
    const w2 = await list(`?wallet=${W2.toLowerCase()}`);
    expect(w2.data.positions.map((p) => p.positionId)).toEqual(
      expected.filter((e) => e.wallet === W2).map((e) => e.id),
    );
    const both = await list(`?wallet=${W1}&status=prepared&chain=base`);
    expect(both.data.positions.map((p) => p.positionId)).toEqual([hex(7), hex(1)]);
  });

  it('refuses bad filters, limits and cursors with 400 naming the parameter', async () => {
    const good = (await list('?limit=1')).data.page.nextCursor!;
    const decoded = JSON.parse(Buffer.from(good, 'base64url').toString()) as unknown[];
    const forged = (value: unknown[]) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const cases: [string, string][] = [
      ['?status=signed', 'status'],
      ['?status=', 'status'],
      ['?wallet=0x123', 'wallet'],
      ['?limit=0', 'limit'],
      ['?limit=101', 'limit'],
      ['?limit=x', 'limit'],
      ['?cursor=abc', 'cursor'],
      ['?cursor=%24%24', 'cursor'],
      [`?cursor=${good}A`, 'cursor'],
      [`?cursor=${forged([decoded[0], '2026-02-30 00:00:00+00', decoded[2]])}`, 'cursor'],
      [`?cursor=${forged([decoded[0], decoded[1], 'not-a-hash'])}`, 'cursor'],
      [`?cursor=${forged(['r', decoded[1], decoded[2], 'base'])}`, 'cursor'],
      ['?status=a&status=b', 'status'],
    ];
    for (const [query, parameter] of cases) {
      const res = await get(`/v1/positions${query}`);
      const body = (await res.json()) as { error: { code: string; parameter?: string } };
      expect([query, res.status, body.error.code, body.error.parameter]).toEqual([
        query,
        400,
        'INVALID_PARAMETER',
        parameter,
      ]);
    }
  });

  it('needs a key', async () => {
    expect((await svc.get('/v1/positions')).status).toBe(401);
    expect((await svc.get('/v1/positions/export?format=csv')).status).toBe(401);
  });
});

async function exportBody(format: string, key = keyA) {
  const res = await get(`/v1/positions/export?format=${format}`, key);
  return { res, text: await res.text() };
}

describe('GET /v1/positions/export', () => {
  it('streams CSV per RFC 4180 with formula cells neutralised and metadata as JSON text', async () => {
    const { res, text } = await exportBody('csv');
    expect(res.status, text).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="positions.csv"');
    expect(res.headers.get('cache-control')).toBe('no-store');
    const [header, ...records] = parseCsv(text);
    expect(header?.[0]).toBe('positionId');
    expect(records.map((r) => r[0])).toEqual(expected.map((e) => e.id));
    const col = (name: string) => header!.indexOf(name);
    const injected = records.find((r) => r[0] === hex(7))!;
    expect(injected[col('tokenASymbol')]).toBe("'@SUM(A1)");
    expect(JSON.parse(injected[col('metadata')]!)).toEqual({
      note: '=HYPERLINK("http://evil","x")',
      comma: 'a,b',
      line: 'one\r\ntwo',
    });
    for (const r of records) {
      expect(r).toHaveLength(header!.length);
      expect(r[col('status')]).toBe(expected.find((e) => e.id === r[0])!.status);
    }
    expect(records.find((r) => r[0] === hex(1))![col('preparedAt')]).toBe('2026-01-01T00:00:01.000Z');
    expect(text).not.toContain(otherKeysId);
  });

  it('streams NDJSON, one list item a line, the same objects as the list', async () => {
    const { res, text } = await exportBody('ndjson');
    expect(res.headers.get('content-type')).toBe('application/x-ndjson');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="positions.ndjson"');
    expect(text.endsWith('\n')).toBe(true);
    const lines = text
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Listed);
    const listed = (await list('?limit=100')).data.positions;
    expect(lines).toEqual(listed);
    // The same fields in the same (documented) order.
    expect(lines.map((l) => JSON.stringify(l))).toEqual(listed.map((l) => JSON.stringify(l)));
    const other = await exportBody('ndjson', keyB);
    expect(
      other.text
        .trimEnd()
        .split('\n')
        .map((l) => (JSON.parse(l) as Listed).positionId),
    ).toEqual([otherKeysId]);
  });

  it('applies the filters and refuses a bad format or filter with 400 naming it', async () => {
    const res = await get('/v1/positions/export?format=ndjson&status=docked');
    const ids = (await res.text())
      .trimEnd()
      .split('\n')
      .map((l) => (JSON.parse(l) as Listed).positionId);
    expect(ids).toEqual(expected.filter((e) => e.status === 'docked').map((e) => e.id));
    for (const [query, parameter] of [
      ['', 'format'],
      ['?format=xlsx', 'format'],
      ['?format=csv&wallet=nope', 'wallet'],
      ['?format=csv&status=x', 'status'],
    ] as const) {
      const bad = await get(`/v1/positions/export${query}`);
      const body = (await bad.json()) as { error: { parameter?: string } };
      expect([query, bad.status, body.error.parameter]).toEqual([query, 400, parameter]);
    }
  });

  it('quotes and neutralises cells', () => {
    expect(csvCell('=1+1')).toBe("'=1+1");
    expect(csvCell('+1')).toBe("'+1");
    expect(csvCell('-1')).toBe("'-1");
    expect(csvCell('@x')).toBe("'@x");
    expect(csvCell('\tx')).toBe("'\tx");
    expect(csvCell('\rx')).toBe(`"'\rx"`);
    expect(csvCell('say "hi", ok')).toBe('"say ""hi"", ok"');
    expect(csvCell(-1)).toBe('-1');
    expect(csvCell(null)).toBe('');
    expect(csvCell('plain')).toBe('plain');
  });
});
