/**
 * RPC as it really is: a chain with two RPC URLs, the first behind a proxy that injects faults (429
 * with Retry-After, no answer, 503, a malformed result, a body that is not JSON, another chain's id).
 * Quotes and live reads keep being answered through the second URL, the bad one is backed off (and
 * not asked again meanwhile), and with both URLs down the API answers its 503/504 envelope, never a
 * 500. The first URL carries an API key in its path and query: no log line and no metric shows it.
 */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChainRegistry } from '../../chain/registry.js';
import { type Anvil, startAnvil } from '../../devnet/anvil.js';
import { DEVNET_CHAINS } from '../../devnet/chains.js';
import { type SeededChain, seedChain } from '../../devnet/seed.js';
import { type Indexer, startIndexer } from '../../indexer/index.js';
import type { ChainConfig } from '../../lib/config.js';
import { testPort } from '../helpers/ports.js';
import { type ProxyMode, type RpcProxy, startRpcProxy } from '../helpers/rpcProxy.js';
import { startTestService, type TestService } from '../helpers/service.js';

const ANVIL_PORT = testPort(19840);
const BAD_PORT = testPort(19841);
const GOOD_PORT = testPort(19842);
const WRONG_PORT = testPort(19843);
const METRICS_TOKEN = 'metrics-token-rpc-0123456789abcdef';
const OPERATOR = 'http://operator.example';
const SECRET = 'sk_live_do_not_log_me';
const QUOTE_TIMEOUT_MS = 600;
/**
 * The first backoff of a failing URL: the tests check that it is not asked again meanwhile, over a quote
 * and a read that follow the failure (on a busy box those took more than the 400 ms this used to be).
 */
const BACKOFF_MS = 1_000;
const BACKOFF_MAX_MS = 2_500;
/** Retry-After of the rate-limited URL: longer than BACKOFF_MS, so that it is what keeps the URL out. */
const RETRY_AFTER_S = 2;

let anvil: Anvil;
let seeded: SeededChain;
let bad: RpcProxy;
let good: RpcProxy;
let svc: TestService;
let indexer: Indexer;
let baseline: string;
const logLines: string[] = [];

const chainKey = 'baseSepolia';
const badUrl = () => `${bad.url}/v2/${SECRET}?apikey=${SECRET}`;

function quote(): Promise<Response> {
  const params = new URLSearchParams({
    hash: seeded.pilotStrategy!.hash,
    chain: chainKey,
    amount: '1000000',
    direction: 'aToB',
  });
  return svc.get(`/api/quote?${params}`);
}

function balances(): Promise<Response> {
  const addresses = seeded.roles.pilot.maker;
  return svc.get(`/api/balances?addresses=${addresses}`, { headers: { origin: OPERATOR } });
}

async function metrics(): Promise<string> {
  const res = await svc.get('/metrics', { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  return res.text();
}

function sample(text: string, name: string, labels: Record<string, string>): number {
  const line = text
    .split('\n')
    .find(
      (l) => l.startsWith(`${name}{`) && Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)),
    );
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}

const endpoint = (i: number) => svc.services.clients.endpoints(chainKey).list[i]!;

/** Puts the first URL back in service: both backoffs over, and one request answered through the first. */
async function heal(): Promise<void> {
  bad.setMode('forward');
  good.setMode('forward');
  // The previous test's backoffs end now, as if their time had passed (failures and reasons kept, as a
  // wait would keep them): waiting them out took most of this file's time, and how long a backoff or a
  // Retry-After keeps a URL out is what the two tests that wait for it check.
  for (const e of [endpoint(0), endpoint(1)]) e.until = Math.min(e.until, Date.now());
  expect((await quote()).status).toBe(200);
  expect(endpoint(0).reason).toBeNull();
  bad.reset();
  good.reset();
}

beforeAll(async () => {
  const spec = DEVNET_CHAINS.find((c) => c.key === chainKey)!;
  anvil = await startAnvil({ port: ANVIL_PORT, chainId: spec.chainId });
  seeded = await seedChain(spec, anvil.rpcUrl);
  bad = await startRpcProxy({
    port: BAD_PORT,
    mode: 'forward',
    target: anvil.rpcUrl,
    retryAfterSeconds: RETRY_AFTER_S,
  });
  good = await startRpcProxy({ port: GOOD_PORT, mode: 'forward', target: anvil.rpcUrl });
  const chain: ChainConfig = { ...seeded.config, rpcUrl: badUrl(), fallbackRpcUrls: [good.url] };
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(chunk.toString('utf8'));
      done();
    },
  });
  svc = await startTestService({
    chains: [chain],
    logger: pino({ level: 'debug' }, sink),
    env: {
      INDEXER: 'off',
      METRICS_TOKEN,
      OPERATOR_ORIGINS: OPERATOR,
      RPC_TIMEOUT_MS: String(QUOTE_TIMEOUT_MS),
      RPC_QUOTE_TIMEOUT_MS: String(QUOTE_TIMEOUT_MS),
      RPC_BACKOFF_MS: String(BACKOFF_MS),
      RPC_BACKOFF_MAX_MS: String(BACKOFF_MAX_MS),
    },
  });
  indexer = await startIndexer(
    { ...svc.services, registry: new ChainRegistry([chain]) },
    { background: false },
  );
  await indexer.syncNow();
  const first = await quote();
  expect(first.status).toBe(200);
  baseline = ((await first.json()) as { data: { amountOut: string } }).data.amountOut;
}, 120_000);

afterAll(async () => {
  await indexer?.stop();
  await svc?.stop();
  await bad?.stop();
  await good?.stop();
  await anvil?.stop();
});

const FAULTS: [ProxyMode, string][] = [
  ['rateLimit', 'rate_limited'],
  ['hang', 'timeout'],
  ['fail', 'unavailable'],
  ['malformed', 'malformed'],
  ['garbage', 'malformed'],
];

describe('one of two RPC URLs failing', () => {
  it.each(FAULTS)(
    '%s: quotes and reads go through the other URL; the bad one is backed off (%s)',
    async (mode, reason) => {
      await heal();
      const before = sample(await metrics(), 'gateway_rpc_endpoint_backoffs_total', {
        chain: chainKey,
        host: `127.0.0.1:${BAD_PORT}`,
        reason,
      });
      bad.setMode(mode);

      const first = await quote();
      expect(first.status).toBe(200);
      expect(((await first.json()) as { data: { amountOut: string } }).data.amountOut).toBe(baseline);
      expect(bad.count()).toBe(1);
      expect(good.count()).toBeGreaterThanOrEqual(1);
      expect(endpoint(0).reason).toBe(reason);

      // While backed off the bad URL is not asked: reads and quotes go straight to the other one.
      const read = await balances();
      expect(read.status).toBe(200);
      const again = await quote();
      expect(again.status).toBe(200);
      expect(bad.count()).toBe(1);

      const text = await metrics();
      expect(
        sample(text, 'gateway_rpc_endpoint_backoffs_total', {
          chain: chainKey,
          host: `127.0.0.1:${BAD_PORT}`,
          reason,
        }),
      ).toBe(before + 1);
      expect(
        sample(text, 'gateway_rpc_endpoint_up', { chain: chainKey, host: `127.0.0.1:${BAD_PORT}` }),
      ).toBe(0);
    },
  );

  it('honours Retry-After: a rate-limited URL is not asked again before it, even as the last one', async () => {
    await heal();
    bad.setMode('rateLimit');
    expect((await quote()).status).toBe(200);
    expect(bad.count()).toBe(1);
    // The other URL fails too: the rate-limited one is still not asked (Retry-After 2 s), the API says 503.
    good.setMode('fail');
    const res = await quote();
    expect(res.status).toBe(503);
    expect(bad.count()).toBe(1);
    // Once Retry-After has passed it is asked again, and answers.
    bad.setMode('forward');
    await new Promise((resolve) => setTimeout(resolve, RETRY_AFTER_S * 1000 + 100));
    expect((await quote()).status).toBe(200);
    expect(bad.count()).toBeGreaterThan(1);
  });

  it('uses the first URL again once it answers after its backoff', async () => {
    await heal();
    bad.setMode('fail');
    expect((await quote()).status).toBe(200);
    bad.setMode('forward');
    await new Promise((resolve) => setTimeout(resolve, BACKOFF_MAX_MS + 100));
    good.reset();
    expect((await quote()).status).toBe(200);
    expect((await quote()).status).toBe(200);
    expect(endpoint(0).reason).toBeNull();
    // eth_chainId proves the chain again after a failure, then the calls go to the first URL only.
    expect(good.count()).toBe(0);
  });
});

describe('both RPC URLs down', () => {
  it.each([
    ['fail', 'fail', 503, 'UPSTREAM_UNAVAILABLE'],
    ['rateLimit', 'rateLimit', 503, 'UPSTREAM_UNAVAILABLE'],
    ['malformed', 'garbage', 503, 'UPSTREAM_UNAVAILABLE'],
    ['hang', 'hang', 504, 'UPSTREAM_TIMEOUT'],
  ] as [ProxyMode, ProxyMode, number, string][])(
    '%s + %s: quotes and reads answer %i %s in the envelope',
    async (first, second, status, code) => {
      await heal();
      bad.setMode(first);
      good.setMode(second);
      for (const res of [await quote(), await balances(), await quote()]) {
        const body = (await res.json()) as { error?: { code: string; retryable: boolean } };
        expect({ status: res.status, code: body.error?.code, retryable: body.error?.retryable }).toEqual({
          status,
          code,
          retryable: true,
        });
      }
    },
  );
});

describe('an RPC URL of another chain', () => {
  it('is never used: its eth_chainId is checked before the first call, the calls go to the other URL', async () => {
    // The other URL answers from the start: left hanging by the test before, its check at start waited
    // out a whole RPC timeout.
    await heal();
    const wrong = await startRpcProxy({ port: WRONG_PORT, mode: 'wrongChain', target: anvil.rpcUrl });
    const other = await startTestService({
      chains: [{ ...seeded.config, rpcUrl: wrong.url, fallbackRpcUrls: [good.url] }],
      env: { INDEXER: 'off', DATABASE_URL: svc.services.config.databaseUrl!, RPC_BACKOFF_MAX_MS: '60000' },
    });
    try {
      for (let i = 0; i < 3; i++) {
        const params = new URLSearchParams({
          hash: seeded.pilotStrategy!.hash,
          chain: chainKey,
          amount: '1000000',
          direction: 'aToB',
        });
        const res = await other.get(`/api/quote?${params}`);
        expect(res.status).toBe(200);
        expect(((await res.json()) as { data: { amountOut: string } }).data.amountOut).toBe(baseline);
      }
      expect(wrong.requests().flatMap((r) => r.methods)).toEqual(['eth_chainId']);
      expect(other.services.clients.endpoints(chainKey).list[0]!.reason).toBe('wrong_chain');
    } finally {
      await other.stop();
      await wrong.stop();
    }
  });
});

describe('RPC URLs with an API key', () => {
  it('never appear whole in logs or metrics: only their origin', async () => {
    await heal();
    bad.setMode('fail');
    good.setMode('fail');
    expect((await quote()).status).toBe(503);
    const logs = logLines.join('');
    expect(logs).toContain('rpc endpoint backed off');
    expect(logs).toContain(`http://127.0.0.1:${BAD_PORT}`);
    expect(logs).not.toContain(SECRET);
    expect(await metrics()).not.toContain(SECRET);
  });
});
