/**
 * The REST facade speaks the internal enum values (`recent`, `aToB`, `at_risk`); the graph SCREAMING_CASE
 * names. rest/enumPlan.ts translates variables (also inside input objects and lists) on the way in and
 * results (also through fragments and lists) on the way out.
 */
import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { enumPlanOf, toGraphQLVariables, toInternalValues } from '../../rest/enumPlan.js';
import { schema } from '../../schema/index.js';

describe('enum plan of a persisted operation', () => {
  it('names the variables and input fields to translate, leaving others and unknown values alone', () => {
    const plan = enumPlanOf(
      schema,
      parse(`query ($sort: StrategySort, $chain: String, $d: QuoteDirection, $s: [PositionState!]) {
        serviceVersion
      }`),
    );
    expect(
      toGraphQLVariables(plan, { sort: 'volume', chain: 'base', d: 'aToB', s: ['shipped', 'docked'] }),
    ).toEqual({
      sort: 'VOLUME',
      chain: 'base',
      d: 'A_TO_B',
      s: ['SHIPPED', 'DOCKED'],
    });
    // Left for GraphQL to refuse with its own message (the REST layer validates first).
    expect(toGraphQLVariables(plan, { sort: 'sideways' })).toEqual({ sort: 'sideways' });

    const input = enumPlanOf(
      schema,
      parse('mutation ($input: CreateWebhookInput!) { createWebhook(input: $input) { secret } }'),
    );
    expect(
      toGraphQLVariables(input, { input: { url: 'https://x.example', events: ['position.health_changed'] } }),
    ).toEqual({ input: { url: 'https://x.example', events: ['POSITION_HEALTH_CHANGED'] } });
  });

  it('translates a result back through fragments, interfaces and lists', () => {
    const document = parse(`
      query { positions { edges { node { ...F } } } }
      fragment F on ObservedPosition { status chain }
    `);
    const plan = enumPlanOf(schema, document);
    const data = {
      positions: {
        edges: [
          { node: { status: 'SHIPPED', chain: 'base' } },
          { node: { status: 'DOCKED', chain: 'SHIPPED' } },
        ],
      },
    };
    toInternalValues(plan.output, data);
    expect(data.positions.edges.map((e) => e.node)).toEqual([
      { status: 'shipped', chain: 'base' },
      { status: 'docked', chain: 'SHIPPED' },
    ]);
  });
});
