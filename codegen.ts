import type { CodegenConfig } from '@graphql-codegen/cli';

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
      },
    },
  },
};

export default config;
