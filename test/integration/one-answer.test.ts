/**
 * One answer per mistake, over a socket on every documented path: a chain the catalogue does not serve
 * is the same 422 UNSUPPORTED_CHAIN wherever a chain is taken (query or body), and a query parameter a
 * path does not take is a 400 naming it rather than an answer for everything it meant to narrow.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChainConfig } from '../../lib/config.js';
import { routes } from '../../rest/routes/index.js';
import { fixtureChains, insertStrategy } from '../helpers/catalogue.js';
import { startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
let key: string;
let hash: string;
const WALLET = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const MAKER = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';

interface Envelope {
  error: {
    code: string;
    message: string;
    parameter?: string;
    issues?: { type: string; expected: string; actual: string }[];
  };
}

beforeAll(async () => {
  const chains = fixtureChains(2);
  svc = await startTestService({ chains, env: { INDEXER: 'off' } });
  key = (await svc.createKey({ environment: 'LIVE' })).key;
  const strategy = await insertStrategy(svc.services.db, {
    chain: chains[0] as ChainConfig,
    symbols: ['USDC', 'USDT'],
    shippedAt: '2026-01-02T00:00:00Z',
    salt: 1n,
  });
  hash = strategy.hash;
});

afterAll(async () => {
  await svc?.stop();
});

const auth = () => ({ authorization: `Bearer ${key}` });

async function call(method: string, path: string, body?: unknown): Promise<[number, Envelope]> {
  const res = await svc.get(path, {
    method,
    headers: { ...auth(), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return [res.status, (await res.json()) as Envelope];
}

describe('a chain the catalogue does not serve', () => {
  const deposits = [
    { symbol: 'USDC', amount: '1000000' },
    { symbol: 'USDT', amount: '1000000' },
  ];
  const cases = (): [string, string, unknown?][] => [
    ['GET', '/api/strategies?chain=mars'],
    ['GET', `/api/strategies?resource=detail&chain=mars&hash=${hash}`],
    ['GET', `/api/strategy-detail?hash=${hash}&chain=mars`],
    ['GET', `/api/quote?hash=${hash}&chain=mars&amount=1000`],
    ['GET', `/api/makers/${MAKER}?chain=mars`],
    ['GET', '/api/makers?chain=mars'],
    ['GET', `/api/strategies/${hash}/activity?chain=mars`],
    ['GET', '/v1/positions?chain=mars'],
    ['GET', '/v1/positions/export?format=csv&chain=mars'],
    ['POST', '/v1/positions', { chain: 'mars', wallet: WALLET, deposits }],
    ['POST', '/v1/swaps', { chain: 'mars', hash, wallet: WALLET, amount: '1000', direction: 'aToB' }],
  ];

  it('is 422 UNSUPPORTED_CHAIN naming chain, with the live keys, on every path that takes one', async () => {
    const answers = [];
    for (const [method, path, body] of cases()) {
      const [status, envelope] = await call(method, path, body);
      answers.push({
        path: `${method} ${path.split('?')[0]}`,
        status,
        code: envelope.error?.code,
        parameter: envelope.error?.parameter,
        message: envelope.error?.message,
        issues: envelope.error?.issues,
      });
    }
    const one = {
      status: 422,
      code: 'UNSUPPORTED_CHAIN',
      parameter: 'chain',
      message: 'Chain "mars" is not supported. Supported chains: base, arc.',
      issues: [{ type: 'UNSUPPORTED_CHAIN', expected: 'base, arc', actual: 'mars' }],
    };
    expect(answers).toEqual(answers.map(({ path }) => ({ path, ...one })));
  });

  it('covers every documented path that takes a chain in its query', () => {
    const covered = new Set(cases().map(([method, path]) => `${method} ${path.split('?')[0]}`));
    const taking = routes
      .filter((r) => r.method === 'GET' && r.doc?.query?.shape && 'chain' in r.doc.query.shape)
      .map((r) => `GET ${r.path.replace(/:address/, MAKER).replace(/:hash/, hash)}`);
    expect(taking.length).toBeGreaterThan(5);
    for (const path of taking) expect(covered, path).toContain(path);
  });

  it('tells a value no chain key could be (400) from a key it does not serve (422)', async () => {
    for (const value of ['ba%00se', 'two%20words', '-base', 'b'.repeat(65)]) {
      const [status, envelope] = await call('GET', `/api/strategies?chain=${value}`);
      expect([value, status, envelope.error.code, envelope.error.parameter]).toEqual([
        value,
        400,
        'INVALID_PARAMETER',
        'chain',
      ]);
    }
    const [status, envelope] = await call('POST', '/v1/positions', {
      chain: 'ba\u0000se',
      wallet: WALLET,
      deposits: [
        { symbol: 'USDC', amount: '1' },
        { symbol: 'USDT', amount: '1' },
      ],
    });
    expect([status, envelope.error.code, envelope.error.parameter]).toEqual([
      400,
      'INVALID_PARAMETER',
      'chain',
    ]);
  });

  it('matches a live key in any case', async () => {
    const res = await svc.get('/api/strategies?chain=BASE');
    const body = (await res.json()) as { data: { filters: { chain: string }; strategies: unknown[] } };
    expect([res.status, body.data.filters.chain, body.data.strategies.length]).toEqual([200, 'base', 1]);
  });

  it('a quote without chain says its default is what was not found', async () => {
    const [status, envelope] = await call('GET', `/api/quote?hash=${hash}&amount=1000`);
    expect([status, envelope.error.code, envelope.error.parameter]).toEqual([
      422,
      'UNSUPPORTED_CHAIN',
      'chain',
    ]);
    expect(envelope.error.message).toBe(
      'Chain "ethereum" (the default when chain is not given) is not supported. Supported chains: base, arc.',
    );
  });
});

describe('a query parameter the path does not take', () => {
  it('is 400 INVALID_PARAMETER naming it, on every documented path', async () => {
    const answers = [];
    for (const route of routes) {
      const path = route.path
        .replace(':positionId', hash)
        .replace(':hash', hash)
        .replace(':address', MAKER)
        .replace(':webhookId', '00000000-0000-4000-8000-000000000000')
        .replace(':deliveryId', '1');
      const res = await svc.get(`${path}?chian=base`, { method: route.method, headers: auth() });
      const body = (await res.json()) as Envelope;
      answers.push([`${route.method} ${route.path}`, res.status, body.error?.code, body.error?.parameter]);
    }
    expect(answers).toEqual(answers.map(([path]) => [path, 400, 'INVALID_PARAMETER', 'chian']));
  });

  it('names what the path takes, and a well-spelt call answers', async () => {
    const [status, envelope] = await call('GET', '/api/strategies?chian=base');
    expect(status).toBe(400);
    expect(envelope.error.message).toBe(
      'chian is not a parameter of GET /api/strategies: it takes resource, q, pair, chain, kind, limit, cursor, sort, hash.',
    );
    const [none] = await call('GET', '/api/stats?verbose=1');
    expect(none).toBe(400);
    expect((await svc.get('/api/strategies?chain=base')).status).toBe(200);
  });
});

describe('paging past the last page', () => {
  it('cursor=null, copied from a last page, says the last page was reached', async () => {
    const first = (await (await svc.get('/api/strategies?limit=100')).json()) as {
      data: { page: { nextCursor: string | null } };
    };
    expect(first.data.page.nextCursor).toBeNull();
    for (const path of ['/api/strategies', '/v1/positions']) {
      const [status, envelope] = await call('GET', `${path}?cursor=${first.data.page.nextCursor}`);
      expect([path, status, envelope.error.code, envelope.error.parameter]).toEqual([
        path,
        400,
        'INVALID_PARAMETER',
        'cursor',
      ]);
      expect(envelope.error.message).toContain('the previous page was the last one');
    }
  });
});
