/**
 * GET /v1/positions/{id}: ids known (the owner's, another key's), unknown and hostile, with keys good
 * and bad, stray query strings and origins.
 */
import fc from 'fast-check';
import { INTERNAL_TOKEN } from '../../../helpers/service.js';
import { encoded, hash64, method, nasty, noise, queryOf } from '../arbitraries.js';
import type { FuzzContext } from '../context.js';
import { type Case, request } from '../request.js';

export function positionCase(ctx: FuzzContext): fc.Arbitrary<Case> {
  const { known, liveKeys, testKey, noScopeKey, originKey, revokedKey } = ctx;
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
