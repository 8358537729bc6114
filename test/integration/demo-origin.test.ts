import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Address, getAddress, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { erc20Abi, routerAbi } from '../../chain/abi.js';
import { type ChainClient, createChainClient } from '../../chain/clients.js';
import type { Devnet } from '../../devnet/devnet.js';
import type { ChainConfig } from '../../lib/config.js';
import type { BalancesView } from '../../resolvers/balances.js';
import type { PilotView } from '../../resolvers/pilot.js';
import { startSeededDevnet } from '../helpers/devnetSnapshot.js';
import { testPort } from '../helpers/ports.js';
import { startTestService, type TestService } from '../helpers/service.js';

/**
 * The demo endpoints (SPEC §4.7, §4.8, §5.8): the same-origin matrix, the pilot body, the balances
 * look-up (validation, one multicall round trip) and an unreachable test network. Devnet ports 19400-19402;
 * the counting RPC proxy listens on an ephemeral port.
 */

const BASE_PORT = testPort(19400);
const OPERATOR = 'https://ops.example';
const WINDOW = 200;

let devnet: Devnet;
let dataDir: string;
let svc: TestService;
let sepolia: ChainConfig & { pilot: NonNullable<ChainConfig['pilot']> };
let client: ChainClient;
let clientCounter = 0;

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
  text: string;
}

/**
 * A GET over node:http with exactly the headers given: fetch adds or refuses some (Origin, Referer).
 * Each call counts as its own client (TRUST_PROXY), so the suite stays inside the 30-a-minute buckets
 * except where a test means to share one.
 */
function call(base: string, pathAndQuery: string, headers: Record<string, string> = {}): Promise<Reply> {
  clientCounter++;
  const url = new URL(pathAndQuery, base);
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: 'GET',
        headers: { 'x-forwarded-for': `10.8.${clientCounter >> 8}.${clientCounter & 255}`, ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: Record<string, unknown> = {};
          try {
            body = JSON.parse(text) as Record<string, unknown>;
          } catch {
            body = {};
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, text });
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

const page = () => ({ referer: `${svc.url}/demo` });

function errorOf(reply: Reply): Record<string, unknown> {
  return reply.body.error as Record<string, unknown>;
}

function expectBucket(reply: Reply, bucket: 'pilot' | 'balances') {
  expect(reply.headers['ratelimit-policy']).toBe(`${bucket};w=60;limit=30`);
  expect(reply.headers['ratelimit-limit']).toBe('30');
  expect(reply.headers['ratelimit-remaining']).toBeDefined();
  expect(reply.headers['ratelimit-reset']).toBeDefined();
  expect(reply.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
}

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'demo-origin-'));
  devnet = await startSeededDevnet({ basePort: BASE_PORT, dataDir, activityMs: 400 });
  const chain = devnet.chains.find((c) => c.testnet && c.pilot);
  if (!chain?.pilot) throw new Error('the devnet has no pilot chain');
  sepolia = { ...chain, pilot: chain.pilot };
  client = createChainClient(sepolia, { rpcTimeoutMs: 5000 });
  svc = await startTestService({
    chains: devnet.chains,
    env: {
      OPERATOR_ORIGINS: `${OPERATOR}, https://second.example:8443`,
      PILOT_BLOCK_WINDOW: String(WINDOW),
      TRUST_PROXY: '1',
    },
  });
});

afterAll(async () => {
  await svc?.stop();
  await devnet?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('same-origin check of the demo endpoints', () => {
  const balancesPath = () => `/api/balances?addresses=${sepolia.pilot.maker}`;

  it('refuses a request with neither Origin nor Referer: 403 with the bucket headers', async () => {
    for (const [p, bucket] of [
      ['/api/pilot', 'pilot'],
      [balancesPath(), 'balances'],
    ] as const) {
      const reply = await call(svc.url, p);
      expect(reply.status).toBe(403);
      expect(errorOf(reply).code).toBe('FORBIDDEN');
      expect(errorOf(reply).retryable).toBe(false);
      expect(errorOf(reply).requestId).toBe(reply.headers['x-request-id']);
      expectBucket(reply, bucket);
      expect(reply.headers['access-control-allow-origin']).toBeUndefined();
    }
  });

  it('refuses foreign and look-alike origins, by Origin and by Referer', async () => {
    const port = new URL(svc.url).port;
    const foreign: Record<string, string>[] = [
      { origin: 'https://evil.test' },
      { origin: 'https://ops.example.evil.test' },
      { origin: 'https://evil-ops.example' },
      { origin: 'http://ops.example' },
      { origin: 'https://ops.example:444' },
      { origin: `http://127.0.0.1:${Number(port) + 1}` },
      { origin: `http://127.0.0.1.evil.test:${port}` },
      { origin: 'null' },
      { referer: 'https://ops.example.evil.test/demo' },
      { referer: `http://127.0.0.1:${port}@evil.test/demo` },
      { referer: `https://evil.test/?r=${encodeURIComponent(`${svc.url}/demo`)}` },
      // Origin decides when it is present, whatever the Referer says.
      { origin: 'https://evil.test', referer: `${svc.url}/demo` },
    ];
    for (const headers of foreign) {
      const reply = await call(svc.url, '/api/pilot', headers);
      expect(reply.status, JSON.stringify(headers)).toBe(403);
      expect(errorOf(reply).code).toBe('FORBIDDEN');
      expectBucket(reply, 'pilot');
    }
    const balances = await call(svc.url, balancesPath(), { origin: 'https://ops.example.evil.test' });
    expect(balances.status).toBe(403);
    expectBucket(balances, 'balances');
  });

  it('answers a malformed Referer or Origin with 403, never 500', async () => {
    const malformed: Record<string, string>[] = [
      { referer: 'not a url' },
      { referer: 'http://[::1' },
      { referer: '//127.0.0.1/demo' },
      { referer: 'javascript:alert(1)' },
      { referer: 'file:///etc/passwd' },
      { referer: '' },
      { origin: '%%%' },
      { origin: '' },
    ];
    for (const headers of malformed) {
      const reply = await call(svc.url, '/api/pilot', headers);
      expect(reply.status, JSON.stringify(headers)).toBe(403);
      expect(errorOf(reply).code).toBe('FORBIDDEN');
    }
  });

  it('serves the Referer of an operator page: PUBLIC_URL, 127.0.0.1 and localhost', async () => {
    const port = new URL(svc.url).port;
    for (const referer of [
      `${svc.url}/demo`,
      `http://localhost:${port}/`,
      `http://127.0.0.1:${port}/?x=1#y`,
    ]) {
      const reply = await call(svc.url, '/api/pilot', { referer });
      expect(reply.status, referer).toBe(200);
      expectBucket(reply, 'pilot');
      expect(reply.headers['cache-control']).toBe('no-store');
    }
    const own = await call(svc.url, '/api/pilot', { origin: svc.url });
    expect(own.status).toBe(200);
  });

  it('serves an origin of OPERATOR_ORIGINS exactly, with CORS headers for its page', async () => {
    for (const origin of [OPERATOR, 'https://second.example:8443']) {
      const reply = await call(svc.url, '/api/pilot', { origin });
      expect(reply.status, origin).toBe(200);
      expect(reply.headers['access-control-allow-origin']).toBe(origin);
      expect(String(reply.headers.vary)).toMatch(/Origin/);
    }
    const referred = await call(svc.url, balancesPath(), { referer: `${OPERATOR}/ops/dashboard` });
    expect(referred.status).toBe(200);
    expect(referred.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('GET /api/pilot', () => {
  it('gives the demo wallets, the strategy, recent swaps and the fee receiver balance, never its address', async () => {
    const reply = await call(svc.url, '/api/pilot', page());
    expect(reply.status).toBe(200);
    const { data, meta } = reply.body as {
      data: Omit<PilotView, 'cached'>;
      meta: Record<string, unknown>;
    };
    expect(meta.requestId).toBe(reply.headers['x-request-id']);
    expect(meta.apiVersion).toBe('v1');
    expect(typeof meta.cached).toBe('boolean');

    expect(data.chain).toBe(sepolia.key);
    expect(data.chainId).toBe(84532);
    expect(data.wallets.maker.address).toBe(getAddress(sepolia.pilot.maker));
    expect(data.wallets.taker.address).toBe(getAddress(sepolia.pilot.taker));
    expect(data.wallets.feeWallet.address).toBe(getAddress(sepolia.pilot.feeWallet));
    expect(data.wallets.taker.balances.map((b: { symbol: string }) => b.symbol)).toEqual([
      'ETH',
      'USDC',
      'USDT',
    ]);

    expect(data.strategy.hash).toBe(sepolia.pilot.strategyHash.toLowerCase());
    expect(data.strategy.status).toBe('active');
    expect(data.strategy.app).toBe(getAddress(sepolia.router));
    const symbols = data.strategy.tokens.map((t: { symbol: string }) => t.symbol).sort();
    expect(symbols).toEqual(['USDC', 'USDT']);
    for (const token of data.strategy.tokens) {
      expect(token.decimals).toBe(6);
      expect(BigInt(token.amount)).toBeGreaterThan(0n);
    }

    const swaps = data.swaps;
    expect(swaps.blockWindow).toBe(WINDOW);
    expect(BigInt(swaps.toBlock)).toBe(BigInt(data.blockNumber));
    const from = BigInt(swaps.fromBlock);
    expect(from === 0n || BigInt(swaps.toBlock) - from + 1n === BigInt(WINDOW)).toBe(true);
    expect(swaps.count).toBeGreaterThanOrEqual(2);
    expect(swaps.items.length).toBeGreaterThanOrEqual(2);
    for (const swap of swaps.items) {
      expect(swap.transactionHash).toMatch(/^0x[0-9a-f]{64}$/);
      expect(swap.taker).toBe(getAddress(sepolia.pilot.taker));
      expect(BigInt(swap.tokenIn.amount)).toBeGreaterThan(0n);
      expect(BigInt(swap.tokenOut.amount)).toBeGreaterThan(0n);
      expect(['USDC', 'USDT']).toContain(swap.tokenIn.symbol);
      expect(swap.tokenIn.decimals).toBe(6);
      expect(Number.isNaN(Date.parse(swap.timestamp ?? ''))).toBe(false);
    }
    // Most recent first, and each one is a real Swapped log of the pilot strategy.
    const blocks = swaps.items.map((s: { blockNumber: string }) => BigInt(s.blockNumber));
    expect([...blocks].sort((a, b) => (a > b ? -1 : a < b ? 1 : 0))).toEqual(blocks);
    const latest = swaps.items[0]!;
    const receipt = await client.getTransactionReceipt({ hash: latest.transactionHash as Hex });
    const logs = await client.getContractEvents({
      address: sepolia.router as Address,
      abi: routerAbi,
      eventName: 'Swapped',
      blockHash: receipt.blockHash,
    });
    const log = logs.find((l) => l.transactionHash === latest.transactionHash)!;
    expect(log.args.orderHash).toBe(sepolia.pilot.strategyHash.toLowerCase());
    expect(String(log.args.amountIn)).toBe(latest.tokenIn.amount);
    expect(String(log.args.amountOut)).toBe(latest.tokenOut.amount);

    // The fee receiver: its balances, read on-chain, and nowhere its address.
    const fee = data.feeReceiver.balances as {
      symbol: string;
      amount: string;
      decimals: number;
      address: string;
    }[];
    expect(fee.map((b) => b.symbol)).toEqual(['USDC', 'USDT']);
    for (const balance of fee) {
      const onChain = await client.readContract({
        address: balance.address as Address,
        abi: erc20Abi,
        functionName: 'balanceOf',
        args: [sepolia.feeReceiver as Address],
      });
      expect(BigInt(balance.amount)).toBeLessThanOrEqual(onChain);
      expect(balance.decimals).toBe(6);
    }
    expect(fee.some((b) => BigInt(b.amount) > 0n)).toBe(true);
    const receiver = sepolia.feeReceiver.toLowerCase().slice(2);
    expect(reply.text.toLowerCase()).not.toContain(receiver);
    expect(JSON.stringify(data).toLowerCase()).not.toContain(receiver);
  });

  it('serves a busy page from a short server-side cache', async () => {
    const first = await call(svc.url, '/api/pilot', page());
    const second = await call(svc.url, '/api/pilot', page());
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    const meta = (second.body as { meta: { cached: boolean; freshnessSeconds: number } }).meta;
    expect(meta.cached).toBe(true);
    expect(meta.freshnessSeconds).toBeLessThanOrEqual(5);
    const observed = (r: Reply) => (r.body as { data: { observedAt: string } }).data.observedAt;
    expect(observed(second)).toBe(observed(first));
  });

  it('counts the documented bucket: the 31st request of a client in a minute is a 429', async () => {
    const headers = { ...page(), 'x-forwarded-for': '10.250.0.1' };
    let last: Reply | undefined;
    for (let i = 0; i < 31; i++) last = await call(svc.url, '/api/pilot', headers);
    expect(last!.status).toBe(429);
    expect(errorOf(last!).code).toBe('RATE_LIMITED');
    expect(Number(last!.headers['retry-after'])).toBeGreaterThan(0);
  });
});

describe('GET /api/balances', () => {
  const many = (n: number) =>
    Array.from({ length: n }, (_, i) => `0x${(i + 1).toString(16).padStart(40, '0')}`).join(',');

  it('validates addresses: 1 to 10, each valid, the culprit named', async () => {
    const cases: [string, string][] = [
      ['/api/balances', 'addresses'],
      ['/api/balances?addresses=', 'addresses'],
      [`/api/balances?addresses=${many(11)}`, 'addresses'],
      [`/api/balances?addresses=${many(3)},0xnothex`, 'addresses[3]'],
      [`/api/balances?addresses=${many(1)},,${many(1)}`, 'addresses[1]'],
      [`/api/balances?addresses=0x${'a'.repeat(39)}`, 'addresses[0]'],
      // Mixed case with a wrong checksum is a typo, not an address.
      [
        `/api/balances?addresses=${sepolia.pilot.maker.toLowerCase().replace(/[a-f]/, (c) => c.toUpperCase())}`,
        'addresses[0]',
      ],
      ['/api/balances?addresses[x]=1', 'addresses'],
    ];
    for (const [p, parameter] of cases) {
      const reply = await call(svc.url, p, page());
      expect(reply.status, p).toBe(400);
      expect(errorOf(reply).code).toBe('INVALID_PARAMETER');
      expect(errorOf(reply).parameter, p).toBe(parameter);
      expect(String(errorOf(reply).message)).toContain(parameter);
      expectBucket(reply, 'balances');
    }
  });

  it('reads USDC, USDT and native balances; duplicates are fine and read once', async () => {
    const { maker, taker } = sepolia.pilot;
    // The devnet bot keeps the pilot taker swapping (paying gas): the answer must be the chain's balance
    // at some block during the request, i.e. between the balances read just before and just after.
    const nativeBefore = new Map<string, bigint>();
    for (const a of [maker, taker])
      nativeBefore.set(getAddress(a), await client.getBalance({ address: a as Address }));
    const reply = await call(
      svc.url,
      `/api/balances?addresses=${maker},${taker.toLowerCase()},${maker.toLowerCase()}, ${taker}`,
      page(),
    );
    expect(reply.status).toBe(200);
    const data = (reply.body as { data: BalancesView }).data;
    expect(data.chain).toBe(sepolia.key);
    expect(data.accounts.map((a: { address: string }) => a.address)).toEqual([
      getAddress(maker),
      getAddress(taker),
    ]);
    for (const account of data.accounts) {
      expect(account.native).toMatchObject({ symbol: 'ETH', decimals: 18, address: null });
      const native = BigInt(account.native.amount);
      const after = await client.getBalance({ address: account.address as Address });
      const before = nativeBefore.get(account.address)!;
      expect(native <= before && native >= after, `${native} within [${after}, ${before}]`).toBe(true);
      expect(account.tokens.map((t: { symbol: string }) => t.symbol)).toEqual(['USDC', 'USDT']);
      for (const token of account.tokens) {
        expect(token.decimals).toBe(6);
        expect(token.amount).toMatch(/^\d+$/);
      }
    }
    const empty = await call(svc.url, `/api/balances?addresses=0x${'0'.repeat(39)}1`, page());
    expect(empty.status).toBe(200);
    const account = (empty.body as { data: { accounts: { tokens: { amount: string }[] }[] } }).data
      .accounts[0]!;
    expect(account.tokens.map((t) => t.amount)).toEqual(['0', '0']);
  });
});

describe('the test network through a counting proxy', () => {
  let proxy: http.Server;
  let down = false;
  let requests: string[] = [];
  let viaProxy: TestService;

  beforeAll(async () => {
    const target = new URL(sepolia.rpcUrl);
    proxy = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (down) {
          req.socket.destroy();
          return;
        }
        const body = Buffer.concat(chunks);
        const parsed = JSON.parse(body.toString('utf8')) as { method: string } | { method: string }[];
        requests.push(...(Array.isArray(parsed) ? parsed : [parsed]).map((r) => r.method));
        const upstream = http.request(
          target,
          { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': body.length } },
          (answer) => {
            res.writeHead(answer.statusCode ?? 502, { 'content-type': 'application/json' });
            answer.pipe(res);
          },
        );
        upstream.on('error', () => res.destroy());
        upstream.end(body);
      });
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const proxied = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    viaProxy = await startTestService({
      chains: devnet.chains.map((c) => (c.key === sepolia.key ? { ...c, rpcUrl: proxied } : c)),
      // No indexer: the proxy counts the requests of the demo endpoints only.
      env: { TRUST_PROXY: '1', RPC_TIMEOUT_MS: '2000', INDEXER: 'off' },
    });
  });

  afterAll(async () => {
    await viaProxy?.stop();
    await new Promise<void>((resolve) => {
      proxy?.close(() => resolve());
      proxy?.closeAllConnections();
    });
  });

  it('reads ten addresses in ONE multicall round trip', async () => {
    requests = [];
    const ten = [
      sepolia.pilot.maker,
      sepolia.pilot.taker,
      sepolia.pilot.feeWallet,
      ...Array.from({ length: 7 }, (_, i) => `0x${(i + 7).toString(16).padStart(40, 'c')}`),
    ];
    const reply = await call(viaProxy.url, `/api/balances?addresses=${ten.join(',')}`, {
      referer: `${viaProxy.url}/demo`,
    });
    expect(reply.status).toBe(200);
    expect((reply.body as { data: { accounts: unknown[] } }).data.accounts).toHaveLength(10);
    expect(requests, JSON.stringify(requests)).toEqual(['eth_call']);
  });

  it('answers 503 retryable when the test network is down', async () => {
    down = true;
    try {
      for (const p of ['/api/pilot', `/api/balances?addresses=${sepolia.pilot.maker}`]) {
        const reply = await call(viaProxy.url, p, { referer: `${viaProxy.url}/` });
        expect(reply.status, p).toBe(503);
        expect(errorOf(reply).code).toBe('UPSTREAM_UNAVAILABLE');
        expect(errorOf(reply).retryable).toBe(true);
        expect(reply.text).not.toContain(sepolia.rpcUrl);
      }
    } finally {
      down = false;
    }
    const back = await call(viaProxy.url, '/api/pilot', { referer: `${viaProxy.url}/` });
    expect(back.status).toBe(200);
  });
});
