import { isEnumType, printSchema } from 'graphql';
import { schema } from './index.js';

export function printSchemaFile(): string {
  return `${printSchema(schema)}\n`;
}

/** `{ Enum: { NAME: internal value } }` for every enum of the schema, sorted, as codegen's enumValues. */
export function enumValuesFile(): string {
  const enums: Record<string, Record<string, unknown>> = {};
  for (const type of Object.values(schema.getTypeMap()).sort((a, b) => a.name.localeCompare(b.name))) {
    if (!isEnumType(type) || type.name.startsWith('__')) continue;
    enums[type.name] = Object.fromEntries(type.getValues().map((v) => [v.name, v.value]));
  }
  return `${JSON.stringify(enums, null, 2)}\n`;
}
