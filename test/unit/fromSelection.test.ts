/**
 * The published schema of a body is derived from the operation that answers it
 * (contract/openapi/fromSelection.ts): what a selection says is what the document says.
 */
import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { operationSchema } from '../../contract/openapi/fromSelection.js';
import { strategyDetail } from '../../contract/schemas/catalogue.js';
import { StrategyDetailDocument } from '../../rest/generated/graphql.js';

type Json = Record<string, unknown>;
const json = (schema: z.ZodType) => z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Json;
const properties = (schema: z.ZodType) => json(schema).properties as Record<string, Json>;

describe('a body derived from its operation', () => {
  it('has one property per selected field, in the order selected, named by its alias', () => {
    const schema = operationSchema(
      parse('query { strategy(hash: "0x") { status when: lastSwapAt hash shipped { tx at } } }'),
      ['strategy'],
    );
    expect(Object.keys(properties(schema))).toEqual(['status', 'when', 'hash', 'shipped']);
    expect(Object.keys((properties(schema).shipped as { properties: Json }).properties)).toEqual([
      'tx',
      'at',
    ]);
  });

  it('merges a field selected twice (in a fragment and in the operation) where it first comes, as GraphQL answers it', () => {
    const schema = operationSchema(
      parse(`query { strategy(hash: "0x") { ...F kind priceRange { minUsd } } }
        fragment F on Strategy { hash priceRange { of min } }`),
      ['strategy'],
    );
    expect(Object.keys(properties(schema))).toEqual(['hash', 'priceRange', 'kind']);
    const range = (properties(schema).priceRange!.anyOf as Json[])[0] as { properties: Json };
    expect(Object.keys(range.properties)).toEqual(['of', 'min', 'minUsd']);
  });

  it("takes types, nullability, enum spelling, patterns and descriptions from the graph's fields", () => {
    // An enum's values are explained in the REST spelling, in their declared order.
    expect(
      properties(operationSchema(parse('query { strategy(hash: "0x") { status } }'), ['strategy'])).status!
        .description,
    ).toMatch(/^Open \(active\) or docked\. `active`: .+ `docked`: /);
    const p = properties(
      operationSchema(
        parse('query { strategy(hash: "0x") { hash status swapCount lastSwapAt docked { block } } }'),
        ['strategy'],
      ),
    );
    expect(p.hash).toMatchObject({
      type: 'string',
      pattern: '^0x[0-9a-fA-F]{64}$',
      description: 'keccak256 of the shipped bytes.',
    });
    // The graph's ACTIVE and DOCKED, in the REST spelling the translation at run time gives.
    expect(p.status).toMatchObject({ type: 'string', enum: ['active', 'docked'] });
    expect(p.swapCount).toMatchObject({ type: 'integer', minimum: 0 });
    expect(JSON.stringify(p.lastSwapAt)).toContain('"null"');
    expect(JSON.stringify(p.docked)).toContain('"null"');
  });

  it('adds what the route adds where it adds it, and leaves out what goes to meta', () => {
    const added = z.object({ answer: z.int() });
    const schema = operationSchema(StrategyDetailDocument, ['strategy'], {
      after: { hash: { extra: added } },
      omit: ['recentSwaps'],
    });
    const keys = Object.keys(properties(schema));
    expect(keys.slice(0, 2)).toEqual(['hash', 'extra']);
    expect(keys).not.toContain('recentSwaps');
  });

  it("the published strategy detail is its operation's selection, the decoding after the bytes", () => {
    const keys = Object.keys(properties(strategyDetail));
    expect(keys.slice(0, 3)).toEqual(['hash', 'chain', 'chainId']);
    expect(keys.slice(-7)).toEqual([
      'alsoOnChains',
      'strategy',
      'decoded',
      'recentSwaps',
      'state',
      'liquidity',
      'earnings',
    ]);
    // A field the graph allows null but the detail always has (its row was just read).
    expect(properties(strategyDetail).firstSeenAt).toMatchObject({ type: 'string', format: 'date-time' });
  });

  it('publishes as optional what SPEC keeps optional, and as the graph says everything else', () => {
    const document = parse('query { quote(hash: "0x", amount: "1") { strategyHash pair router } }');
    const schema = operationSchema(document, ['quote'], { optional: ['pair'] });
    // A client may rely on a required member only: one the graph always answers and SPEC does not hedge.
    expect(json(schema).required).toEqual(['strategyHash', 'router']);
    expect(properties(schema).pair).toMatchObject({ type: 'string', examples: ['USDC/USDT'] });
    expect(() =>
      schema.parse({ strategyHash: `0x${'ab'.repeat(32)}`, router: `0x${'cd'.repeat(20)}` }),
    ).not.toThrow();
    // The value formats of the quote's fields: an address is refused when it is not one.
    expect(() => schema.parse({ strategyHash: `0x${'ab'.repeat(32)}`, router: 'base' })).toThrow();
  });

  it('publishes a value the contract fixes as a constant, and a client is held to it', () => {
    const document = parse(
      'mutation { preparePosition(input: { chain: "", wallet: "", deposits: [] }) { fee { protocolFeeBps removable makerFeeBps } } }',
    );
    const fee = operationSchema(document, ['preparePosition', 'fee']);
    expect(properties(fee).protocolFeeBps).toMatchObject({ const: 5000 });
    expect(properties(fee).removable).toMatchObject({ const: false });
    expect(() => fee.parse({ protocolFeeBps: 5000, removable: false, makerFeeBps: 30 })).not.toThrow();
    // A body claiming another protocol fee, or a removable one, is not the documented body.
    expect(() => fee.parse({ protocolFeeBps: 0, removable: false, makerFeeBps: 30 })).toThrow();
    expect(() => fee.parse({ protocolFeeBps: 5000, removable: true, makerFeeBps: 30 })).toThrow();
  });

  it('refuses a selection the schema does not have, instead of publishing a guess', () => {
    expect(() => operationSchema(parse('query { strategy(hash: "0x") { nope } }'), ['strategy'])).toThrow(
      /has no field nope/,
    );
    expect(() => operationSchema(parse('query { stats { source } }'), ['strategy'])).toThrow(/selects no/);
    // An option naming a member the selection lacks (a typo) would publish a guess too.
    expect(() =>
      operationSchema(parse('query { stats { source } }'), ['stats'], { omit: ['sorce'] }),
    ).toThrow(/names sorce/);
  });
});
