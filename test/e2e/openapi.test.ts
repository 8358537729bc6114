/**
 * The published contract against the live service: /openapi.json is the document contract/openapi.ts
 * generates; every endpoint's live responses (success and every error status the suite can provoke)
 * match it, headers included, strictly (no undocumented field); every `error.documentation` link and
 * every code's page resolve; /docs renders in Chromium from same-origin files only.
 *
 * Two services: one over a devnet with the indexer (the catalogue is live), and one whose chains'
 * RPC hangs or refuses, with no indexer (504, 503, readiness). Devnet ports 19500-19502; a hanging
 * RPC on 19508, a closed port 19509.
 * The strategies quoted, docked and swapped belong to a maker of the suite's own (anvil's tenth
 * account): the devnet's bot docks its own makers' strategies at random, never another wallet's.
 */

import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { type Address, getAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shipCalldata } from '../../chain/calldata.js';
import { buildOpenApi, type OpenApiDocument, openApiPath } from '../../contract/openapi.js';
import { OpenApiValidator } from '../../contract/openapiValidator.js';
import { errorEnvelope } from '../../contract/schemas/common.js';
import type { Devnet } from '../../devnet/devnet.js';
import { buildStrategy, type LiveStrategy, units } from '../../devnet/strategies.js';
import { devnetRpc, sendAndWait } from '../../devnet/wallet.js';
import type { ChainConfig } from '../../lib/config.js';
import { ERROR_CODE_LIST, ERROR_CODES } from '../../lib/errors.js';
import { routes } from '../../rest/routes/index.js';
import { contractProblems } from '../helpers/contract.js';
import { startSeededDevnet } from '../helpers/devnetSnapshot.js';
import { eventually } from '../helpers/load.js';
import { fundOwnMaker } from '../helpers/ownMaker.js';
import { testPort } from '../helpers/ports.js';
import { startTestService, type TestService } from '../helpers/service.js';

const BASE_PORT = testPort(19500);
const HANGING_PORT = testPort(19508);
const CLOSED_PORT = testPort(19509);
const CHROMIUM = '/usr/bin/chromium';

let devnet: Devnet;
let dataDir: string;
let svc: TestService;

let down: TestService;
let hanging: net.Server;
const hangingSockets = new Set<net.Socket>();
let liveKey: string;
let testKey: string;
let noScopeKey: string;
/** The suite's own maker on base and its USDC/USDT strategies (the bot swaps them, never docks them). */
let maker: Address;
let mine: LiveStrategy[];

/** What the suite has validated: `GET /api/stats 200`, … */
const covered = new Set<string>();
/** Every `error.documentation` link seen in a live envelope. */
const documentationLinks = new Set<string>();
let clients = 0;

interface Call {
  res: Response;
  // biome-ignore lint/suspicious/noExplicitAny: bodies are checked against the contract, then read freely
  body: any;
}

/**
 * One request from its own client (TRUST_PROXY), validated against the contract; the response must
 * have the status expected.
 */
async function call(
  service: TestService,
  method: string,
  target: string,
  status: number,
  init: { headers?: Record<string, string>; body?: string; client?: string } = {},
): Promise<Call> {
  clients++;
  const res = await service.get(target, {
    method,
    headers: {
      'x-forwarded-for': init.client ?? `10.50.${clients >> 8}.${clients & 255}`,
      ...init.headers,
    },
    ...(init.body === undefined ? {} : { body: init.body }),
  });
  const text = method === 'HEAD' ? '' : await res.text();
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    throw new Error(`${method} ${target} → ${res.status}: not JSON: ${text.slice(0, 200)}`);
  }
  expect(res.status, `${method} ${target}: ${text.slice(0, 500)}`).toBe(status);
  expect(contractProblems(method, target, res, body), `${method} ${target} → ${res.status}`).toEqual([]);
  const template = openApiPath(routes.find((r) => matches(r.path, target))?.path ?? target.split('?')[0]!);
  covered.add(`${method === 'HEAD' ? 'GET' : method} ${template} ${res.status}`);
  const error = (body as { error?: { documentation?: string; requestId?: string } } | undefined)?.error;
  if (error) {
    expect(error.requestId).toBe(res.headers.get('x-request-id'));
    if (error.documentation) documentationLinks.add(error.documentation);
  }
  return { res, body };
}

function matches(expressPath: string, target: string): boolean {
  const pattern = expressPath.replace(/:[A-Za-z_]\w*/g, '[^/]+');
  return new RegExp(`^${pattern}$`).test(target.split('?')[0]!);
}

const json = (body: unknown, headers: Record<string, string> = {}) => ({
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

/**
 * The suite's maker (anvil's tenth account, none of the devnet's roles) mints USDC and USDT on base,
 * approves Aqua and ships three USDC/USDT strategies of the devnet's canonical program.
 */
async function shipOwnStrategies(): Promise<void> {
  const base = devnet.chains.find((c) => c.key === 'base')!;
  const rpc = devnetRpc(base.rpcUrl);
  const token = (symbol: string) => getAddress(base.tokens.find((t) => t.symbol === symbol)!.address);
  const tokens = [token('USDC'), token('USDT')] as const;
  maker = await fundOwnMaker(rpc, { aqua: getAddress(base.aqua), tokens, amount: units(10_000_000) });
  mine = [0, 1, 2].map((i) =>
    buildStrategy({
      maker,
      symbols: ['USDC', 'USDT'],
      tokens,
      amounts: [units(100_000), units(100_000)],
      flatFee1e9: 300_000,
      feeReceiver: getAddress(base.feeReceiver),
      salt: 9_000_000n + BigInt(i),
    }),
  );
  for (const s of mine) {
    const ship = shipCalldata({
      app: getAddress(base.router),
      strategy: s.strategy,
      tokens: s.tokens,
      amounts: s.amounts,
    });
    await sendAndWait(rpc, maker, getAddress(base.aqua), ship);
  }
}

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'openapi-e2e-'));
  devnet = await startSeededDevnet({ basePort: BASE_PORT, dataDir, activityMs: 1000 });
  await shipOwnStrategies();
  svc = await startTestService({
    chains: devnet.chains,
    env: { TRUST_PROXY: '1', ROLLUP_REFRESH_MS: '1000', INDEXER_POLL_MS: '200' },
  });
  await eventually(
    "the suite's strategies indexed, active",
    async () => {
      const { rows } = await svc.services.db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM strategies WHERE chain_key = 'base' AND maker = $1 AND status = 'active'",
        [maker.toLowerCase()],
      );
      return rows[0]!.n === mine.length;
    },
    30_000,
  );
  liveKey = (await svc.createKey({ environment: 'LIVE', prepareLimitPerMinute: 1000 })).key;
  testKey = (await svc.createKey({ environment: 'TEST', prepareLimitPerMinute: 1000 })).key;
  noScopeKey = (await svc.createKey({ environment: 'LIVE', scopes: [] })).key;

  hanging = net.createServer((socket) => {
    hangingSockets.add(socket);
    socket.on('close', () => hangingSockets.delete(socket));
  });
  await new Promise<void>((resolve) => hanging.listen(HANGING_PORT, '127.0.0.1', resolve));
  // The test network (pilot, balances) hangs; the live chains refuse connections.
  const broken: ChainConfig[] = devnet.chains.map((c) => ({
    ...c,
    rpcUrl: `http://127.0.0.1:${c.testnet ? HANGING_PORT : CLOSED_PORT}`,
  }));
  down = await startTestService({
    chains: broken,
    env: { TRUST_PROXY: '1', INDEXER: 'off', RPC_TIMEOUT_MS: '300' },
  });
}, 120_000);

afterAll(async () => {
  await down?.stop();
  await svc?.stop();
  for (const socket of hangingSockets) socket.destroy();
  await new Promise<void>((resolve) => (hanging ? hanging.close(() => resolve()) : resolve()));
  await devnet?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('GET /openapi.json', () => {
  it('is the document generated from the routes, with this deployment as its server', async () => {
    const res = await svc.get('/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers.get('ratelimit-policy')).toBe('docs;w=60;limit=120'); // counted per client
    const served = (await res.json()) as OpenApiDocument;
    // Conditional GET, before the long synchronous checks below: the service runs in this process, and a
    // request sent on its idle connection right after seconds of blocking meets the server's overdue
    // keep-alive timer closing that connection (ECONNRESET on a busy box).
    const again = await svc.get('/openapi.json', { headers: { 'if-none-match': res.headers.get('etag')! } });
    expect(again.status).toBe(304);
    const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    const config = svc.services.config;
    expect(served).toEqual(
      buildOpenApi(routes, { publicUrl: config.publicUrl, docsUrl: config.docsUrl, version }),
    );
    expect(served.openapi).toBe('3.1.0');
    expect(served.servers).toEqual([{ url: svc.url, description: expect.any(String) }]);
    for (const route of routes) {
      const op = served.paths[openApiPath(route.path)]?.[route.method.toLowerCase()];
      expect(op, `${route.method} ${route.path}`).toBeDefined();
      expect(op!.summary, `${route.method} ${route.path} is documented`).not.toMatch(/not documented/);
      expect(op!.security).toEqual(route.auth ? [{ apiKey: [] }] : []);
      // Every operation lists the conventions' statuses, with the headers of SPEC §1 and §8.
      for (const status of ['405', '429', '500']) expect(Object.keys(op!.responses)).toContain(status);
      expect(op!.responses['429']!.headers).toHaveProperty('Retry-After');
    }
    expect(Object.keys(served.paths)).toEqual(expect.arrayContaining(['/healthz', '/readyz']));
    // Every example of the served document validates against its own schema.
    expect(new OpenApiValidator(served).exampleProblems()).toEqual([]);
  });
});

describe('the catalogue reads match the contract', () => {
  it('GET /api/stats, /api/chains', async () => {
    const stats = await call(svc, 'GET', '/api/stats', 200);
    expect(stats.body.data.totals.strategies).toBeGreaterThan(0);
    expect(stats.res.headers.get('ratelimit-policy')).toBe('stats;w=60;limit=120');
    const chains = await call(svc, 'GET', '/api/chains', 200);
    expect(chains.body.data.chains.map((c: { key: string }) => c.key).sort()).toEqual(
      devnet.chains.map((c) => c.key).sort(),
    );
    await call(svc, 'HEAD', '/api/stats', 200);
  });

  it('GET /api/strategies: every resource, a second page, and its 400s', async () => {
    const list = await call(svc, 'GET', '/api/strategies?limit=2', 200);
    expect(list.body.data.strategies).toHaveLength(2);
    const cursor = list.body.data.page.nextCursor as string;
    await call(svc, 'GET', `/api/strategies?limit=2&cursor=${encodeURIComponent(cursor)}`, 200);
    await call(svc, 'GET', '/api/strategies?resource=list&chain=base&pair=USDC/USDT&sort=volume', 200);
    await call(svc, 'GET', '/api/strategies?resource=search&q=usdc%20base', 200);
    const hash = list.body.data.strategies[0].hash as string;
    await call(svc, 'GET', `/api/strategies?resource=detail&hash=${hash}`, 200);
    await call(svc, 'GET', '/api/strategies?resource=chains', 200);
    await call(svc, 'GET', '/api/strategies?resource=stats', 200);
    await call(svc, 'GET', '/api/strategies?resource=nope', 400);
    await call(svc, 'GET', '/api/strategies?resource=search', 400);
    await call(svc, 'GET', '/api/strategies?limit=1000', 400);
    await call(svc, 'GET', '/api/strategies?chain=nowhere', 422);
    await call(svc, 'GET', '/api/strategies?chian=base', 400);
    await call(svc, 'GET', `/api/strategies?resource=detail&hash=0x${'ab'.repeat(32)}`, 404);
  });

  it('GET /api/strategy-detail: 200, 400, 404', async () => {
    const list = await call(svc, 'GET', '/api/strategies?limit=1', 200);
    const { hash, chain } = list.body.data.strategies[0] as { hash: string; chain: string };
    const detail = await call(svc, 'GET', `/api/strategy-detail?hash=${hash}&chain=${chain}`, 200);
    expect(detail.body.data.hash).toBe(hash);
    await call(svc, 'GET', '/api/strategy-detail', 400);
    await call(svc, 'GET', '/api/strategy-detail?hash=0x12', 400);
    await call(svc, 'GET', `/api/strategy-detail?hash=0x${'cd'.repeat(32)}`, 404);
  });

  it('GET /api/makers/{address}, GET /api/makers and GET /api/strategies/{hash}/activity: 200, 400, 404', async () => {
    const list = await call(svc, 'GET', '/api/strategies?limit=1', 200);
    const { hash, chain, maker } = list.body.data.strategies[0] as {
      hash: string;
      chain: string;
      maker: string;
    };
    const m = await call(svc, 'GET', `/api/makers/${maker}?chain=${chain}`, 200);
    expect(m.body.data.address).toBe(maker);
    await call(svc, 'GET', `/api/makers/${maker}`, 400);
    await call(svc, 'GET', `/api/makers/0x${'77'.repeat(20)}?chain=${chain}`, 404);
    const board = await call(svc, 'GET', `/api/makers?sort=apy&period=30d&chain=${chain}&limit=5`, 200);
    expect(board.body.data.makers.length).toBeGreaterThan(0);
    await call(svc, 'GET', '/api/makers?period=week', 400);
    const a = await call(svc, 'GET', `/api/strategies/${hash}/activity?chain=${chain}&granularity=hour`, 200);
    expect(a.body.data.strategy.hash).toBe(hash);
    await call(svc, 'GET', `/api/strategies/${hash}/activity?granularity=week`, 400);
    await call(svc, 'GET', `/api/strategies/0x${'cd'.repeat(32)}/activity`, 404);
  });

  it('GET /api/badge: every metric, and a 400', async () => {
    for (const metric of ['volume30', 'volume7', 'volume1', 'strategies', 'makers', 'pairs', 'chains']) {
      const badge = await call(svc, 'GET', `/api/badge?metric=${metric}`, 200);
      expect(badge.body.schemaVersion).toBe(1);
    }
    await call(svc, 'GET', '/api/badge', 200);
    await call(svc, 'GET', '/api/badge?metric=tvl', 400);
  });

  it('answers 405 with Allow and 429 with Retry-After', async () => {
    const wrong = await call(svc, 'POST', '/api/stats', 405);
    expect(wrong.res.headers.get('allow')).toBe('GET, HEAD');
    await call(svc, 'DELETE', '/v1/positions', 405, { headers: bearer(liveKey) });
    // The strategies bucket (20 per 60 s) of one client, exhausted.
    const client = '10.51.0.1';
    for (let i = 0; i < 20; i++) await call(svc, 'GET', '/api/strategies?resource=chains', 200, { client });
    const limited = await call(svc, 'GET', '/api/strategies?resource=chains', 429, { client });
    expect(limited.body.error.retryable).toBe(true);
    expect(Number(limited.res.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('quotes match the contract', () => {
  it('GET /api/quote: 200, 400, 404, 422 UNSUPPORTED_CHAIN and UNPROCESSABLE', async () => {
    const usd = await call(svc, 'GET', '/api/strategies?chain=base&pair=USDC/USDT&limit=100', 200);
    // One of the suite's own strategies: the devnet's bot never docks it, so it is open when quoted.
    const quotable = (usd.body.data.strategies as { hash: string; verifiedRouter: boolean }[]).find(
      (s) => s.verifiedRouter && s.hash.toLowerCase() === mine[0]!.hash.toLowerCase(),
    );
    expect(quotable).toBeDefined();
    const ok = await call(
      svc,
      'GET',
      `/api/quote?hash=${quotable!.hash}&chain=base&amount=1000000&direction=bToA`,
      200,
    );
    expect(ok.body.data.signed).toBe(false);
    await call(svc, 'GET', `/api/quote?hash=${quotable!.hash}&chain=base`, 400);
    await call(svc, 'GET', `/api/quote?hash=${quotable!.hash}&chain=base&amount=1.5`, 400);
    await call(svc, 'GET', `/api/quote?hash=0x${'ef'.repeat(32)}&chain=base&amount=1000000`, 404);
    // The default chain, `ethereum`, is not in this catalogue.
    const unsupported = await call(svc, 'GET', `/api/quote?hash=${quotable!.hash}&amount=1000000`, 422);
    expect(unsupported.body.error.code).toBe('UNSUPPORTED_CHAIN');
    const eurc = await call(svc, 'GET', '/api/strategies?resource=search&q=eurc%20base&limit=1', 200);
    const other = eurc.body.data.strategies[0] as { hash: string };
    const refused = await call(svc, 'GET', `/api/quote?hash=${other.hash}&chain=base&amount=1000000`, 422);
    expect(refused.body.error.code).toBe('UNPROCESSABLE');
  });
});

describe('the demo endpoints match the contract', () => {
  it('GET /api/pilot and /api/balances: 200 from an operator page, 403 otherwise, 400', async () => {
    const page = { origin: svc.url };
    const pilot = await call(svc, 'GET', '/api/pilot', 200, { headers: page });
    const { maker, taker } = pilot.body.data.wallets as {
      maker: { address: string };
      taker: { address: string };
    };
    await call(svc, 'GET', `/api/balances?addresses=${maker.address},${taker.address}`, 200, {
      headers: { referer: `${svc.url}/demo` },
    });
    await call(svc, 'GET', '/api/pilot', 403);
    await call(svc, 'GET', `/api/balances?addresses=${maker.address}`, 403, {
      headers: { origin: 'https://elsewhere.example' },
    });
    await call(svc, 'GET', '/api/balances?addresses=0x1234', 400, { headers: page });
    await call(svc, 'GET', '/api/balances', 400, { headers: page });
  });
});

describe('the write path matches the contract', () => {
  const intent = (overrides: Record<string, unknown> = {}) => ({
    chain: 'base',
    wallet: '0x90F79bf6EB2c4f870365E785982E1f101E93b906',
    deposits: [
      { symbol: 'USDC', amount: '1000000000' },
      { symbol: 'USDT', amount: '1000000000' },
    ],
    ...overrides,
  });

  it('POST /v1/positions and GET /v1/positions/{positionId}: 200s and every refusal', async () => {
    const idempotencyKey = randomUUID();
    const prepared = await call(
      svc,
      'POST',
      '/v1/positions',
      200,
      json(intent({ makerFeeBps: 30000, checkBalances: true, metadata: { orderRef: 'contract' } }), {
        ...bearer(liveKey),
        'idempotency-key': idempotencyKey,
      }),
    );
    const id = prepared.body.data.strategyHash as string;
    const replay = await call(
      svc,
      'POST',
      '/v1/positions',
      200,
      json(intent({ makerFeeBps: 30000, checkBalances: true, metadata: { orderRef: 'contract' } }), {
        ...bearer(liveKey),
        'idempotency-key': idempotencyKey,
      }),
    );
    expect(replay.body.data.strategyHash).toBe(id);
    await call(svc, 'POST', '/v1/positions', 200, json(intent({ includeApprovals: false }), bearer(liveKey)));
    const status = await call(svc, 'GET', `/v1/positions/${id}`, 200, { headers: bearer(liveKey) });
    expect(status.body.data.status).toBe('prepared');

    // GET /v1/positions: the key's positions, newest first, and a refused cursor.
    const listed = await call(svc, 'GET', '/v1/positions?limit=1', 200, { headers: bearer(liveKey) });
    expect(listed.body.data.positions).toHaveLength(1);
    await call(svc, 'GET', '/v1/positions?cursor=nope', 400, { headers: bearer(liveKey) });
    // The export is CSV (not JSON): its status and headers are checked against the document here.
    const exported = await svc.get('/v1/positions/export?format=csv', { headers: bearer(liveKey) });
    const csv = await exported.text();
    expect(exported.status, csv.slice(0, 300)).toBe(200);
    expect(csv.split('\r\n').filter(Boolean).length).toBeGreaterThanOrEqual(3);
    expect(contractProblems('GET', '/v1/positions/export?format=csv', exported, undefined)).toEqual([]);
    covered.add('GET /v1/positions/export 200');
    await call(svc, 'GET', '/v1/positions/export?format=xlsx', 400, { headers: bearer(liveKey) });

    // 400: not JSON, not the JSON content type, a bad field, a bad Idempotency-Key, a bad id.
    await call(svc, 'POST', '/v1/positions', 400, {
      headers: { ...bearer(liveKey), 'content-type': 'application/json' },
      body: '{"chain":',
    });
    await call(svc, 'POST', '/v1/positions', 400, {
      headers: { ...bearer(liveKey), 'content-type': 'text/plain' },
      body: JSON.stringify(intent()),
    });
    await call(svc, 'POST', '/v1/positions', 400, json(intent({ privateKey: '0x01' }), bearer(liveKey)));
    await call(
      svc,
      'POST',
      '/v1/positions',
      400,
      json(intent(), { ...bearer(liveKey), 'idempotency-key': 'not-a-uuid' }),
    );
    await call(svc, 'GET', '/v1/positions/0x1234', 400, { headers: bearer(liveKey) });
    // 401: no key, a malformed key.
    await call(svc, 'POST', '/v1/positions', 401, json(intent()));
    await call(svc, 'GET', `/v1/positions/${id}`, 401, { headers: bearer('svc_live_nope') });
    // 403: no prepare scope; a test key on a live chain.
    await call(svc, 'POST', '/v1/positions', 403, json(intent(), bearer(noScopeKey)));
    await call(svc, 'POST', '/v1/positions', 403, json(intent(), bearer(testKey)));
    // 404: another key's position looks like no position.
    await call(svc, 'GET', `/v1/positions/${id}`, 404, { headers: bearer(testKey) });
    // 422: a chain outside the catalogue; a token the chain does not list; a reused Idempotency-Key.
    const chain = await call(
      svc,
      'POST',
      '/v1/positions',
      422,
      json(intent({ chain: 'ethereum' }), bearer(liveKey)),
    );
    expect(chain.body.error.code).toBe('UNSUPPORTED_CHAIN');
    const token = await call(
      svc,
      'POST',
      '/v1/positions',
      422,
      json(
        intent({
          deposits: [
            { symbol: 'USDC', amount: '1' },
            { symbol: 'WETH', amount: '1' },
          ],
        }),
        bearer(liveKey),
      ),
    );
    expect(token.body.error.code).toBe('UNPROCESSABLE');
    await call(
      svc,
      'POST',
      '/v1/positions',
      422,
      json(intent({ makerFeeBps: 1 }), { ...bearer(liveKey), 'idempotency-key': idempotencyKey }),
    );
  });
});

describe('health and upstream failures match the contract', () => {
  it('GET /healthz, /readyz', async () => {
    await call(svc, 'GET', '/healthz', 200);
    await call(svc, 'GET', '/readyz', 200);
    // No indexer has written a roll-up for the second service.
    const notReady = await call(down, 'GET', '/readyz', 503);
    expect(notReady.body.error.code).toBe('UPSTREAM_UNAVAILABLE');
  });

  it('504 when the chain node hangs, 503 when it refuses; reads still answer', async () => {
    const page = { origin: down.url };
    const pilot = await call(down, 'GET', '/api/pilot', 504, { headers: page });
    expect(pilot.body.error).toMatchObject({ code: 'UPSTREAM_TIMEOUT', retryable: true });
    await call(down, 'GET', `/api/balances?addresses=0x90F79bf6EB2c4f870365E785982E1f101E93b906`, 504, {
      headers: page,
    });
    const key = (await down.createKey({ environment: 'LIVE' })).key;
    const refused = await call(
      down,
      'POST',
      '/v1/positions',
      503,
      json(
        {
          chain: 'base',
          wallet: '0x90F79bf6EB2c4f870365E785982E1f101E93b906',
          deposits: [
            { symbol: 'USDC', amount: '1' },
            { symbol: 'USDT', amount: '1' },
          ],
        },
        bearer(key),
      ),
    );
    expect(refused.body.error.code).toBe('UPSTREAM_UNAVAILABLE');
    // Before any roll-up: the stats are zeros and the badge says "unavailable", both documented.
    await call(down, 'GET', '/api/stats', 200);
    const badge = await call(down, 'GET', '/api/badge', 200);
    expect(badge.body.isError).toBe(true);
  });
});

describe('position actions and swaps match the contract', () => {
  it('POST /v1/positions/{positionId}/approvals, /dock and POST /v1/swaps: 200s and refusals', async () => {
    const { key, keyId } = await svc.createKey({ environment: 'LIVE' });
    const list = await call(svc, 'GET', '/api/strategies?chain=base&pair=USDC/USDT&limit=100', 200);
    const candidates = (
      list.body.data.strategies as {
        hash: string;
        maker: string;
        verifiedRouter: boolean;
        tokens: { address: string }[];
      }[]
    ).filter((s) => s.verifiedRouter && s.maker.toLowerCase() === maker.toLowerCase());
    // A position of this key on each of the suite's strategies, stored as a prepare stores it. The bot
    // swaps them but never docks them (they are not its makers'), so each stays open.
    expect(candidates.map((c) => c.hash.toLowerCase()).sort()).toEqual(
      mine.map((s) => s.hash.toLowerCase()).sort(),
    );
    for (const c of candidates) {
      await svc.services.db.query(
        `INSERT INTO positions (strategy_hash, key_id, chain_key, chain_id, wallet, token_a, token_b, amount_a,
           amount_b, maker_fee_bps, protocol_fee_bps, request_fingerprint, payload)
         VALUES ($1, $2, 'base', 8453, $3, $4, $5, 1, 1, 0, 5000, 'contract', '{}')`,
        [
          c.hash,
          keyId,
          c.maker.toLowerCase(),
          c.tokens[0]!.address.toLowerCase(),
          c.tokens[1]!.address.toLowerCase(),
        ],
      );
    }
    const first = candidates[0]!.hash;
    await call(svc, 'POST', `/v1/positions/${first}/approvals?approval=unlimited`, 200, {
      headers: bearer(key),
    });
    await call(svc, 'POST', `/v1/positions/${first}/approvals?approval=most`, 400, { headers: bearer(key) });
    const dock = await call(svc, 'POST', `/v1/positions/${first}/dock`, 200, { headers: bearer(key) });
    expect(dock.body.data.transactions).toHaveLength(1);
    await call(svc, 'POST', `/v1/positions/${first}/dock`, 404, { headers: bearer(liveKey) });
    const intent = {
      chain: 'base',
      wallet: candidates[0]!.maker,
      deposits: [
        { symbol: 'USDC', amount: '1000000' },
        { symbol: 'USDT', amount: '1000000' },
      ],
    };
    const moved = await call(svc, 'POST', `/v1/positions/${first}/rebalance`, 200, json(intent, bearer(key)));
    expect(moved.body.data.replaces).toBe(first);
    await call(svc, 'POST', `/v1/positions/${first}/rebalance`, 404, json(intent, bearer(liveKey)));

    const swap = (c: { hash: string; maker: string }, extra: Record<string, unknown> = {}) =>
      json(
        { chain: 'base', hash: c.hash, wallet: c.maker, amount: '1000000', direction: 'aToB', ...extra },
        bearer(liveKey),
      );
    await call(svc, 'POST', '/v1/swaps', 200, swap(candidates[1]!));
  });
});

/**
 * Operations whose answers their own suites check against the published document, every one of them
 * (a stream and a signed delivery flow need a set-up of their own): the suite named.
 */
const VALIDATED_IN_THEIR_SUITE: Record<string, string> = {
  'GET /api/events': 'test/e2e/events.test.ts (each message against CatalogueEventMessage)',
  'POST /v1/webhooks': 'test/e2e/webhooks.test.ts',
  'GET /v1/webhooks': 'test/e2e/webhooks.test.ts',
  'GET /v1/webhooks/{webhookId}': 'test/e2e/webhooks.test.ts',
  'DELETE /v1/webhooks/{webhookId}': 'test/e2e/webhooks.test.ts',
  'POST /v1/webhooks/{webhookId}/rotate': 'test/e2e/webhooks.test.ts',
  'GET /v1/webhooks/{webhookId}/deliveries': 'test/e2e/webhooks.test.ts',
  'POST /v1/webhooks/{webhookId}/deliveries/{deliveryId}/replay': 'test/e2e/webhooks.test.ts',
};

describe('coverage of the document', () => {
  it('validated a 200 of every operation and every error status provoked above', () => {
    const document = buildOpenApi(routes, { publicUrl: svc.url, docsUrl: `${svc.url}/docs` });
    const missing: string[] = [];
    const elsewhere = new Set(Object.keys(VALIDATED_IN_THEIR_SUITE));
    for (const [template, item] of Object.entries(document.paths)) {
      for (const method of Object.keys(item)) {
        const operation = `${method.toUpperCase()} ${template}`;
        if (elsewhere.delete(operation)) continue;
        if (!covered.has(`${operation} 200`)) missing.push(`${method} ${template}`);
      }
    }
    // The list names only operations of the document.
    expect([...elsewhere]).toEqual([]);
    expect(missing).toEqual([]);
    const statuses = new Set([...covered].map((c) => Number(c.split(' ')[2])));
    expect([...statuses].sort()).toEqual([200, 400, 401, 403, 404, 405, 422, 429, 503, 504]);
  });
});

describe('error documentation', () => {
  it('every error.documentation link seen in a live envelope resolves to its page', async () => {
    expect(documentationLinks.size).toBeGreaterThanOrEqual(10);
    for (const link of documentationLinks) {
      const bases = [svc, down].map((service) => `${service.services.config.docsUrl}/errors/`);
      expect(
        bases.some((b) => link.startsWith(b)),
        link,
      ).toBe(true);
      const res = await fetch(link);
      expect(res.status, link).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    }
  });

  it('every code of ERROR_CODES has a page: code, status, retryable, meaning, what to do', async () => {
    const index = await svc.get('/docs/errors');
    expect(index.status).toBe(200);
    const list = await index.text();
    for (const code of ERROR_CODE_LIST) {
      expect(list).toContain(`/docs/errors/${code}`);
      const res = await fetch(`${svc.services.config.docsUrl}/errors/${code}`);
      expect(res.status, code).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      const html = await res.text();
      expect(html).toContain(`<h1><code>${code}</code></h1>`);
      expect(html).toContain(`<dd><code>${ERROR_CODES[code].status}</code></dd>`);
      expect(html).toContain(ERROR_CODES[code].retryable ? 'Yes: the same request' : 'No: the same request');
      expect(html).toMatch(/<dt>Meaning<\/dt><dd>.{20,}<\/dd>/);
      expect(html).toMatch(/<dt>What to do<\/dt><dd>.{20,}<\/dd>/);
    }
  });

  it('an unknown code is a 404 envelope', async () => {
    for (const code of ['NOPE', 'bad_request', 'NOT_FOUND.html']) {
      const res = await svc.get(`/docs/errors/${code}`);
      expect(res.status, code).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      const body = await res.json();
      expect(errorEnvelope.safeParse(body).success).toBe(true);
      expect(body.error.code).toBe('NOT_FOUND');
    }
  });
});

describe('/docs', () => {
  let browser: Browser | undefined;
  afterAll(async () => browser?.close());

  it('renders every operation in Swagger UI from same-origin files, without CSP violations', async () => {
    const res = await svc.get('/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await res.text();
    expect(html).not.toMatch(/https?:\/\//); // no CDN
    for (const asset of ['/docs/swagger-ui.css', '/docs/swagger-ui-bundle.js', '/docs/swagger-init.js']) {
      const file = await svc.get(asset, { headers: { 'accept-encoding': 'gzip' } });
      expect(file.status, asset).toBe(200);
    }
    expect((await svc.get('/docs/package.json')).status).toBe(404);

    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-quic'],
    });
    const page = await browser.newPage();
    const problems: string[] = [];
    const external: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    page.on('request', (r) => {
      if (!r.url().startsWith(svc.url) && !r.url().startsWith('data:')) external.push(r.url());
    });
    await page.goto(`${svc.url}/docs`);
    const operations = routes.length + 2; // + /healthz, /readyz
    // Swagger UI parses a 1.7 MB bundle and resolves the whole document before it draws: on a busy box that
    // took over 20 s. Wait for the operations themselves; a failure says how far it got and what the page said.
    await page
      .waitForFunction((n) => document.querySelectorAll('.opblock').length >= n, operations, {
        timeout: 150_000,
      })
      .catch(async (error: Error) => {
        const shown = await page.locator('.opblock').count();
        throw new Error(
          `Swagger UI showed ${shown} of ${operations} operations; page errors: ${JSON.stringify(problems)}; ${error.message}`,
        );
      });
    const ids = await page.locator('.opblock .opblock-summary-path').allTextContents();
    for (const route of routes)
      expect(ids.map((t) => t.replace(/\u200b/g, ''))).toContain(openApiPath(route.path));
    expect(problems).toEqual([]);
    expect(external).toEqual([]);
    await page.close();
  }, 200_000);
});
