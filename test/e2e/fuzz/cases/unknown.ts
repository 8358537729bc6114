/** Paths no route serves: traversal, look-alikes, encodings, extra segments. */
import fc from 'fast-check';
import { encoded, method, nasty, noise, queryOf } from '../arbitraries.js';
import { type Case, request } from '../request.js';

export function unknownCase(): fc.Arbitrary<Case> {
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
