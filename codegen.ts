import { readFileSync } from 'node:fs';
import type { CodegenConfig } from '@graphql-codegen/cli';

/** The REST side speaks the internal enum values (rest/enumPlan.ts translates at the boundary). */
const enumValues = JSON.parse(readFileSync('rest/generated/enum-values.json', 'utf8'));

/**
 * Typed documents and the persisted-operation manifest for the REST facade. The schema is the
 * committed `schema.graphql` (printed by `npm run schema:print`).
 */
const config: CodegenConfig = {
  schema: 'schema.graphql',
  documents: ['rest/operations/*.graphql'],
  ignoreNoDocuments: false,
  generates: {
    'rest/generated/': {
      preset: 'client',
      presetConfig: {
        fragmentMasking: false,
        persistedDocuments: { mode: 'embedHashInDocument', hashAlgorithm: 'sha256' },
      },
      config: {
        emitLegacyCommonJSImports: false,
        useTypeImports: true,
        enumsAsTypes: true,
        scalars: { DateTime: 'string', JSON: 'unknown' },
        enumValues,
      },
    },
  },
};

export default config;
