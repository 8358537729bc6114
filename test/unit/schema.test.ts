import { readdirSync, readFileSync } from 'node:fs';
import { parse, print } from 'graphql';
import { describe, expect, it } from 'vitest';
import manifest from '../../rest/generated/persisted-documents.json' with { type: 'json' };
import { printSchemaFile } from '../../schema/print.js';

describe('committed GraphQL artefacts', () => {
  it('schema.graphql is the schema the code builds (run npm run schema:print)', () => {
    expect(readFileSync('schema.graphql', 'utf8')).toBe(printSchemaFile());
  });

  it('the persisted manifest holds exactly the documents of rest/operations (run npm run codegen)', () => {
    const files = readdirSync('rest/operations').filter((f) => f.endsWith('.graphql'));
    const committed = Object.values(manifest as Record<string, string>).map((d) => print(parse(d)));
    const sources = files.map((f) => print(parse(readFileSync(`rest/operations/${f}`, 'utf8'))));
    expect(committed.sort()).toEqual(sources.sort());
  });
});
