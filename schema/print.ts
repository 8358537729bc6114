import { printSchema } from 'graphql';
import { schema } from './index.js';

export function printSchemaFile(): string {
  return `${printSchema(schema)}\n`;
}
