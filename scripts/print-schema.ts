import { writeFileSync } from 'node:fs';
import { printSchemaFile } from '../schema/print.js';

// Writes the committed SDL; a test compares it with the schema the code builds.
writeFileSync('schema.graphql', printSchemaFile());
console.log('wrote schema.graphql');
