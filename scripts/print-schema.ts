import { writeFileSync } from 'node:fs';
import { enumValuesFile, printSchemaFile } from '../schema/print.js';

// Writes the committed SDL (a test compares it with the schema the code builds) and the enum values the
// REST facade's codegen types use (the internal spelling of each SCREAMING_CASE value, schema/enums.ts).
writeFileSync('schema.graphql', printSchemaFile());
writeFileSync('rest/generated/enum-values.json', enumValuesFile());
console.log('wrote schema.graphql, rest/generated/enum-values.json');
