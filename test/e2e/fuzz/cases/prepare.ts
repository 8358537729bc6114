/**
 * POST /v1/positions: valid intents mutated field by field, hostile JSON texts, keys good and bad,
 * Idempotency-Keys, content types and encodings (gzip, a gzip bomb, broken gzip, br, zstd, chunked).
 */
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { getAddress } from 'viem';
import { POSITION_LIMITS } from '../../../../resolvers/positions/request.js';
import { INTERNAL_TOKEN } from '../../../helpers/service.js';
import { address, codePoints, method, NUMBERS, nasty, noise, queryOf, wtf8 } from '../arbitraries.js';
import type { FuzzContext } from '../context.js';
import { type Case, request } from '../request.js';

/** A few Idempotency-Keys that many requests share: replays and conflicting reuses. */
const idempotencyPool = [
  '3f2b8c1e-5d4a-4e6f-9b7a-1c2d3e4f5a6b',
  '00000000-0000-0000-0000-000000000000',
  'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11',
];
/** The pairs each chain's catalogue has, by symbol. */
const SYMBOLS: Record<string, [string, string][]> = {
  base: [
    ['USDC', 'USDT'],
    ['USDC', 'EURC'],
    ['EURC', 'USDT'],
  ],
  arc: [['USDC', 'EURC']],
  baseSepolia: [['USDC', 'USDT']],
};

let bomb: Buffer | undefined;
/** 20 MB of spaces in 20 kB of gzip: the limit must hold for the inflated size. */
const gzipBomb = () => {
  bomb ??= gzipSync(Buffer.alloc(20_000_000, 0x20));
  return bomb;
};

/** A valid intent, then up to three mutations; serialised straight, or as hostile JSON text. */
export function prepareCase(ctx: FuzzContext): fc.Arbitrary<Case> {
  const { liveKeys, testKey, noScopeKey, originKey, revokedKey } = ctx;
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
