/** /graphql: hostile documents and variables, deep and wide queries, with the internal token or without. */
import fc from 'fast-check';
import { INTERNAL_TOKEN } from '../../../helpers/service.js';
import { METHODS, nasty, noise, pct } from '../arbitraries.js';
import type { FuzzContext } from '../context.js';
import { type Case, request } from '../request.js';

/** /graphql: mostly without the token (401 before anything is read), some with it and hostile documents. */
export function graphqlCase(ctx: FuzzContext): fc.Arbitrary<Case> {
  const { liveKeys } = ctx;
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
