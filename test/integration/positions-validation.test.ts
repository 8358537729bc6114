/**
 * POST /v1/positions and GET /v1/positions/{id}: every refusal of SPEC §2.4 / §4.9 / §4.10 through a real
 * server, with the chains' RPC behind counting stubs, so the suite also proves that nothing malformed
 * reaches the chain (no round trip) nor the positions table. Then the upstream faults: a dead RPC is a
 * retryable 503, a silent one a retryable 504.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChainConfig } from '../../lib/config.js';
import { query } from '../../store/db.js';
import { testPort } from '../helpers/ports.js';
import { type RpcProxy, startRpcProxy } from '../helpers/rpcProxy.js';
import { startTestService, type TestService } from '../helpers/service.js';

const FAIL_PORT = testPort(19204);
const HANG_PORT = testPort(19205);
const RPC_TIMEOUT_MS = 400;

const addr = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
const USDC = addr(0x1001);
const USDT = addr(0x1002);
const EURC = addr(0x1003);

function chainConfig(key: string, chainId: number, testnet: boolean, rpcUrl: string): ChainConfig {
  return {
    key,
    chainId,
    name: key,
    rpcUrl,
    aqua: addr(0xa0a),
    router: addr(0xb0b),
    multicall: addr(0xc0c),
    feeReceiver: addr(0xfee),
    testnet,
    tokens: [
      { symbol: 'USDC', address: USDC, decimals: 6 },
      { symbol: 'USDT', address: USDT, decimals: 6 },
      ...(testnet ? [] : [{ symbol: 'EURC', address: EURC, decimals: 6 }]),
    ],
    startBlock: 0,
    // As SPEC §2.4 and the devnet: arc lists USDT (its USDC/USDT pool is quoted) but takes no USDT deposit.
    ...(key === 'arc' ? { depositSymbols: ['USDC', 'EURC'] } : {}),
  };
}

let svc: TestService;
let failing: RpcProxy;
let hanging: RpcProxy;
let liveKey: string;
let testKey: string;
let noScopeKey: string;

const WALLET = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const valid = () => ({
  chain: 'base',
  wallet: WALLET,
  deposits: [
    { symbol: 'USDC', amount: '1000000' },
    { symbol: 'USDT', amount: '2000000' },
  ],
});

function post(body: unknown, options: { key?: string; headers?: Record<string, string> } = {}) {
  return svc.get('/v1/positions', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${options.key ?? liveKey}`,
      ...options.headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

interface ErrorBody {
  error: {
    code: string;
    parameter?: string;
    retryable: boolean;
    message: string;
    issues?: { type: string; expected?: string; actual?: string }[];
  };
}

async function refused(res: Response): Promise<[number, string, string | undefined]> {
  const body = (await res.json()) as ErrorBody;
  return [res.status, body.error.code, body.error.parameter];
}

const rpcCalls = () => failing.count() + hanging.count();

beforeAll(async () => {
  failing = await startRpcProxy({ port: FAIL_PORT, mode: 'fail' });
  hanging = await startRpcProxy({ port: HANG_PORT, mode: 'hang' });
  svc = await startTestService({
    chains: [
      chainConfig('base', 8453, false, failing.url),
      chainConfig('arc', 5042, false, hanging.url),
      chainConfig('baseSepolia', 84532, true, failing.url),
    ],
    env: { INDEXER: 'off', RPC_TIMEOUT_MS: String(RPC_TIMEOUT_MS) },
  });
  liveKey = (await svc.createKey({ environment: 'LIVE', prepareLimitPerMinute: 10_000 })).key;
  testKey = (await svc.createKey({ environment: 'TEST', prepareLimitPerMinute: 10_000 })).key;
  noScopeKey = (await svc.createKey({ environment: 'LIVE', scopes: [] })).key;
  // The start-up proof of each RPC URL's chain (eth_chainId, service.ts) is not a request's: counted
  // from here on, only what the requests below send reaches the proxies.
  failing.reset();
  hanging.reset();
}, 60_000);

afterAll(async () => {
  await svc?.stop();
  await failing?.stop();
  await hanging?.stop();
});

const withDeposit = (i: 0 | 1, deposit: unknown) => {
  const body = valid() as Record<string, unknown> & { deposits: unknown[] };
  body.deposits[i] = deposit;
  return body;
};

describe('POST /v1/positions refuses a malformed request with 400 naming the field', () => {
  const cases: [string, unknown, string][] = [
    ['a body that is an array', [valid()], 'body'],
    ['a missing chain', { ...valid(), chain: undefined }, 'chain'],
    ['a chain that is not a string', { ...valid(), chain: 8453 }, 'chain'],
    ['a missing wallet', { ...valid(), wallet: undefined }, 'wallet'],
    ['a short wallet', { ...valid(), wallet: '0x1234' }, 'wallet'],
    ['a wallet without 0x', { ...valid(), wallet: WALLET.slice(2) }, 'wallet'],
    ['a wallet with a non-hex character', { ...valid(), wallet: `${WALLET.slice(0, 41)}g` }, 'wallet'],
    ['missing deposits', { ...valid(), deposits: undefined }, 'deposits'],
    ['one deposit', { ...valid(), deposits: [valid().deposits[0]] }, 'deposits'],
    [
      'three deposits',
      { ...valid(), deposits: [...valid().deposits, { symbol: 'EURC', amount: '1' }] },
      'deposits',
    ],
    ['deposits that are an object', { ...valid(), deposits: { 0: valid().deposits[0] } }, 'deposits'],
    ['a float amount', withDeposit(1, { symbol: 'USDT', amount: '1.5' }), 'deposits[1].amount'],
    ['an exponent amount', withDeposit(1, { symbol: 'USDT', amount: '1e6' }), 'deposits[1].amount'],
    ['a negative amount', withDeposit(1, { symbol: 'USDT', amount: '-5' }), 'deposits[1].amount'],
    ['a zero amount', withDeposit(0, { symbol: 'USDC', amount: '0' }), 'deposits[0].amount'],
    [
      'an amount above uint248',
      withDeposit(1, { symbol: 'USDT', amount: (1n << 248n).toString() }),
      'deposits[1].amount',
    ],
    ['a numeric amount', withDeposit(1, { symbol: 'USDT', amount: 2000000 }), 'deposits[1].amount'],
    ['an empty amount', withDeposit(1, { symbol: 'USDT', amount: '' }), 'deposits[1].amount'],
    ['a missing amount', withDeposit(1, { symbol: 'USDT' }), 'deposits[1].amount'],
    ['a missing symbol', withDeposit(1, { amount: '1' }), 'deposits[1].symbol'],
    ['a symbol with spaces', withDeposit(1, { symbol: 'US DT', amount: '1' }), 'deposits[1].symbol'],
    [
      'an unknown deposit field',
      withDeposit(1, { symbol: 'USDT', amount: '1', price: '1' }),
      'deposits[1].price',
    ],
    ['the same symbol twice', withDeposit(1, { symbol: 'usdc', amount: '1' }), 'deposits[1].symbol'],
    [
      'the same token as symbol and address',
      withDeposit(1, { symbol: USDC, amount: '1' }),
      'deposits[1].symbol',
    ],
    ['a fractional makerFeeBps', { ...valid(), makerFeeBps: 1.5 }, 'makerFeeBps'],
    ['a negative makerFeeBps', { ...valid(), makerFeeBps: -1 }, 'makerFeeBps'],
    ['a makerFeeBps above 2000000', { ...valid(), makerFeeBps: 2_000_001 }, 'makerFeeBps'],
    ['a makerFeeBps string', { ...valid(), makerFeeBps: '30000' }, 'makerFeeBps'],
    ['includeApprovals as a string', { ...valid(), includeApprovals: 'false' }, 'includeApprovals'],
    ['checkBalances as a number', { ...valid(), checkBalances: 1 }, 'checkBalances'],
    ['metadata that is an array', { ...valid(), metadata: ['a'] }, 'metadata'],
    ['metadata that is a string', { ...valid(), metadata: 'note' }, 'metadata'],
    ['a metadata value that is a number', { ...valid(), metadata: { order: 42 } }, 'metadata.order'],
    [
      'a metadata value that is an object',
      { ...valid(), metadata: { nested: { a: 'b' } } },
      'metadata.nested',
    ],
    [
      'more than 20 metadata entries',
      { ...valid(), metadata: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v'])) },
      'metadata',
    ],
    [
      'a metadata key over 64 characters',
      { ...valid(), metadata: { ['k'.repeat(65)]: 'v' } },
      `metadata.${'k'.repeat(65)}`,
    ],
    ['a metadata key with spaces', { ...valid(), metadata: { 'a b': 'v' } }, 'metadata["a b"]'],
    [
      'a metadata value over 256 characters',
      { ...valid(), metadata: { note: 'x'.repeat(257) } },
      'metadata.note',
    ],
    // Found by the fuzzer (test/e2e/fuzz.test.ts): Postgres jsonb holds neither, storing them was a 500.
    ['a NUL character in a metadata value', { ...valid(), metadata: { note: 'a\u0000b' } }, 'metadata.note'],
    [
      'an unpaired surrogate in a metadata value',
      { ...valid(), metadata: { note: 'a\uD800b' } },
      'metadata.note',
    ],
    [
      'a private key in metadata',
      { ...valid(), metadata: { note: `0x${'ab'.repeat(32)}` } },
      'metadata.note',
    ],
    [
      'a bare hex private key in metadata',
      { ...valid(), metadata: { k: `key ${'1f'.repeat(32)}` } },
      'metadata.k',
    ],
    [
      'a 12-word mnemonic in metadata',
      { ...valid(), metadata: { note: 'test test test test test test test test test test test junk' } },
      'metadata.note',
    ],
    [
      'a 24-word mnemonic in metadata',
      {
        ...valid(),
        metadata: {
          backup:
            'abandon ability able about above absent absorb abstract absurd abuse access accident account accuse achieve acid acoustic acquire across act action actor actress actual',
        },
      },
      'metadata.backup',
    ],
    [
      'an API key in metadata',
      { ...valid(), metadata: { note: 'svc_live_abcdefgh1234_abcdefghijklmnopqrstuvwx' } },
      'metadata.note',
    ],
    [
      'a metadata key naming a secret',
      { ...valid(), metadata: { privateKey: 'redacted' } },
      'metadata.privateKey',
    ],
    ['a privateKey field', { ...valid(), privateKey: `0x${'11'.repeat(32)}` }, 'privateKey'],
    ['a mnemonic field', { ...valid(), mnemonic: 'test test test' }, 'mnemonic'],
    ['a signature field', { ...valid(), signature: '0x1234' }, 'signature'],
    ['any unknown field', { ...valid(), slippage: 1 }, 'slippage'],
  ];

  for (const [name, body, parameter] of cases) {
    it(`refuses ${name}`, async () => {
      expect(await refused(await post(body))).toEqual([400, 'INVALID_PARAMETER', parameter]);
    });
  }

  it('refuses an Idempotency-Key that is not a uuid', async () => {
    const res = await post(valid(), { headers: { 'idempotency-key': 'order-42' } });
    expect(await refused(res)).toEqual([400, 'INVALID_PARAMETER', 'Idempotency-Key']);
  });

  it('refuses a body that is not JSON with 400 BAD_REQUEST', async () => {
    expect((await refused(await post('{"chain":')))[1]).toBe('BAD_REQUEST');
  });

  it('never echoes a secret it refuses', async () => {
    const secret = `0x${'cd'.repeat(32)}`;
    const text = await (await post({ ...valid(), metadata: { note: secret } })).text();
    expect(text).not.toContain(secret.slice(2));
  });
});

describe('POST /v1/positions refuses an intent it cannot prepare', () => {
  it('answers a chain outside the live catalogue with 422 UNSUPPORTED_CHAIN and issues', async () => {
    const res = await post({ ...valid(), chain: 'ethereum' });
    const body = (await res.json()) as ErrorBody;
    expect([res.status, body.error.code, body.error.parameter]).toEqual([422, 'UNSUPPORTED_CHAIN', 'chain']);
    expect(body.error.issues).toEqual([
      { type: 'UNSUPPORTED_CHAIN', expected: 'base, arc, baseSepolia', actual: 'ethereum' },
    ]);
  });

  it('answers a symbol the chain does not support with 422 UNPROCESSABLE and issues', async () => {
    const res = await post(withDeposit(1, { symbol: 'DAI', amount: '1' }));
    const body = (await res.json()) as ErrorBody;
    expect([res.status, body.error.code, body.error.parameter]).toEqual([
      422,
      'UNPROCESSABLE',
      'deposits[1].symbol',
    ]);
    expect(body.error.issues).toEqual([
      { type: 'UNSUPPORTED_TOKEN', expected: 'USDC, USDT, EURC', actual: 'DAI' },
    ]);
  });

  it('answers a token that exists elsewhere but not on the named chain with 422', async () => {
    const res = await post(
      { ...withDeposit(1, { symbol: 'EURC', amount: '1' }), chain: 'baseSepolia' },
      { key: testKey },
    );
    expect(await refused(res)).toEqual([422, 'UNPROCESSABLE', 'deposits[1].symbol']);
  });

  it('answers a listed token that the chain takes no deposits of (USDT on arc) with 422', async () => {
    const res = await post({
      ...valid(),
      chain: 'arc',
      deposits: [
        { symbol: 'USDC', amount: '1' },
        { symbol: 'USDT', amount: '1' },
      ],
    });
    const body = (await res.json()) as ErrorBody;
    expect([res.status, body.error.code, body.error.parameter]).toEqual([
      422,
      'UNPROCESSABLE',
      'deposits[1].symbol',
    ]);
    expect(body.error.issues).toEqual([
      { type: 'UNSUPPORTED_TOKEN', expected: 'USDC, EURC', actual: 'USDT' },
    ]);
  });

  it('forbids a test key naming a live chain', async () => {
    expect(await refused(await post(valid(), { key: testKey }))).toEqual([403, 'FORBIDDEN', 'chain']);
  });

  it('forbids a live key naming a test network', async () => {
    expect(await refused(await post({ ...valid(), chain: 'baseSepolia' }))).toEqual([
      403,
      'FORBIDDEN',
      'chain',
    ]);
  });

  it('forbids a key without the prepare scope', async () => {
    expect((await refused(await post(valid(), { key: noScopeKey }))).slice(0, 2)).toEqual([403, 'FORBIDDEN']);
  });

  it('answers a missing key with 401', async () => {
    const res = await svc.get('/v1/positions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(valid()),
    });
    expect((await refused(res)).slice(0, 2)).toEqual([401, 'UNAUTHORIZED']);
  });
});

describe('GET /v1/positions/{positionId}', () => {
  const get = (id: string, key = liveKey) =>
    svc.get(`/v1/positions/${id}`, { headers: { authorization: `Bearer ${key}` } });

  it('refuses an id that is not 0x plus 64 hex characters', async () => {
    for (const id of ['0x1234', `0x${'g'.repeat(64)}`, 'a'.repeat(66), `0x${'a'.repeat(65)}`]) {
      expect(await refused(await get(id))).toEqual([400, 'INVALID_PARAMETER', 'positionId']);
    }
  });

  it('answers an unknown position with 404 and no cache', async () => {
    const res = await get(`0x${'ab'.repeat(32)}`);
    expect(await refused(res)).toEqual([404, 'NOT_FOUND', 'positionId']);
  });

  it('needs a key', async () => {
    const res = await svc.get(`/v1/positions/0x${'ab'.repeat(32)}`);
    expect((await refused(res)).slice(0, 2)).toEqual([401, 'UNAUTHORIZED']);
  });
});

describe('nothing malformed reached the chain or the store', () => {
  it('made no RPC round trip and stored no position', async () => {
    expect(rpcCalls()).toBe(0);
    const { rows } = await query<{ n: string }>(svc.services.db, 'SELECT count(*) AS n FROM positions');
    expect(rows[0]?.n).toBe('0');
  });
});

describe('upstream faults', () => {
  it('answers a dead RPC with a retryable 503 after one round trip', async () => {
    const before = failing.count();
    const res = await post({ ...valid(), checkBalances: true });
    const body = (await res.json()) as ErrorBody;
    expect([res.status, body.error.code, body.error.retryable]).toEqual([503, 'UPSTREAM_UNAVAILABLE', true]);
    expect(failing.count() - before).toBe(1);
  });

  it('answers an RPC that never answers with a retryable 504', async () => {
    const res = await post({
      ...valid(),
      chain: 'arc',
      deposits: [
        { symbol: 'USDC', amount: '1' },
        { symbol: 'EURC', amount: '1' },
      ],
    });
    const body = (await res.json()) as ErrorBody;
    expect([res.status, body.error.code, body.error.retryable]).toEqual([504, 'UPSTREAM_TIMEOUT', true]);
  });

  it('stored nothing for a failed preparation', async () => {
    const { rows } = await query<{ n: string }>(svc.services.db, 'SELECT count(*) AS n FROM positions');
    expect(rows[0]?.n).toBe('0');
  });
});
