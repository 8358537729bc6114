/**
 * The read endpoints' generators (stats, chains, strategies, strategy-detail, quote, badge, pilot,
 * balances): a hostile query string, or a valid one with up to two mutations; hostile methods and headers.
 */
import fc from 'fast-check';
import { getAddress } from 'viem';
import {
  address,
  encoded,
  hash64,
  method,
  NUMBERS,
  nasty,
  noise,
  originHeaders,
  pct,
  queryOf,
} from '../arbitraries.js';
import type { Endpoint } from '../config.js';
import type { FuzzContext } from '../context.js';
import { type Case, request } from '../request.js';

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

/** The reads the fuzz covers: every endpoint but prepare, position, graphql and the unknown paths. */
export type ReadEndpoint = Exclude<Endpoint, 'prepare' | 'position' | 'graphql' | 'unknown'>;

export function readCases(ctx: FuzzContext): Record<ReadEndpoint, fc.Arbitrary<Case>> {
  const { port, strategyHashes, quotable, cursor } = ctx;
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
    pilot: getCase('pilot', ['/api/pilot'], ['x', 'block', 'window'], () => nasty, originHeaders(port)),
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
      originHeaders(port),
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
  };
}
