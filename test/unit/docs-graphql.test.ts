/** The GraphQL examples of the guides are documents the schema accepts: they cannot drift from it. */
import { readFileSync } from 'node:fs';
import { parse, validate } from 'graphql';
import { describe, expect, it } from 'vitest';
import { schema } from '../../schema/index.js';

const readme = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8');
const blocks = [...readme.matchAll(/```graphql\n([\s\S]*?)```/g)].map((m) => m[1]!);

describe('the GraphQL examples of docs/operations.md', () => {
  it('has examples, and each one validates against the schema', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(2);
    for (const block of blocks) {
      // A block may hold several anonymous operations, one per line: each is its own document.
      const documents = block.split(/\n(?=mutation|query|\{)/).filter((d) => d.trim());
      for (const document of documents) {
        expect(
          validate(schema, parse(document)).map((e) => e.message),
          document,
        ).toEqual([]);
      }
    }
  });
});
