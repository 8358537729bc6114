import { readdirSync, readFileSync } from 'node:fs';
import { type DefinitionNode, Kind, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import manifest from '../../rest/generated/persisted-documents.json' with { type: 'json' };
import { printSchemaFile } from '../../schema/print.js';

const operationNames = (definitions: readonly DefinitionNode[]) =>
  definitions.flatMap((d) => (d.kind === Kind.OPERATION_DEFINITION && d.name ? [d.name.value] : []));

describe('committed GraphQL artefacts', () => {
  it('schema.graphql is the schema the code builds (run npm run schema:print)', () => {
    expect(readFileSync('schema.graphql', 'utf8')).toBe(printSchemaFile());
  });

  it('the persisted manifest holds one document per operation of rest/operations (run npm run codegen)', () => {
    const files = readdirSync('rest/operations').filter((f) => f.endsWith('.graphql'));
    const declared = files.flatMap((f) =>
      operationNames(parse(readFileSync(`rest/operations/${f}`, 'utf8')).definitions),
    );
    const persisted = Object.values(manifest as Record<string, string>).flatMap((d) =>
      operationNames(parse(d).definitions),
    );
    expect(persisted.sort()).toEqual(declared.sort());
  });
});
