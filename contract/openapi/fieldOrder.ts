import type { JsonSchema } from './schemaSet.js';

/**
 * Where a JSON body's keys come out of the order its published schema lists them in. The schemas of
 * the bodies are derived from the operations' selections (contract/openapi/fromSelection.ts), so their
 * order is the selection's, and the body must keep it: clients and the SPEC read fields in that order.
 * A key the schema does not name is left to the strict check of additional properties.
 */
export function fieldOrderProblems(
  resolve: (schema: JsonSchema) => JsonSchema,
  schema: JsonSchema,
  value: unknown,
  at: string,
): string[] {
  if (value === null || typeof value !== 'object') return [];
  const node = resolve(schema);
  const branches = branchesOf(resolve, node);
  if (Array.isArray(value)) {
    const items = branches.map((b) => b.items).find((i): i is JsonSchema => typeof i === 'object');
    if (!items) return [];
    return value.flatMap((item, i) => fieldOrderProblems(resolve, items, item, `${at}[${i}]`));
  }
  const keys = Object.keys(value);
  const record = value as Record<string, unknown>;
  const named = branches.find((b) => {
    const properties = b.properties as Record<string, JsonSchema> | undefined;
    return properties !== undefined && keys.every((k) => k in properties);
  });
  if (!named) {
    const values = branches
      .map((b) => b.additionalProperties)
      .find((a): a is JsonSchema => typeof a === 'object' && a !== null);
    if (!values) return [];
    return keys.flatMap((k) => fieldOrderProblems(resolve, values, record[k], `${at}.${k}`));
  }
  const properties = named.properties as Record<string, JsonSchema>;
  const order = Object.keys(properties);

  const problems: string[] = [];
  for (let i = 1; i < keys.length; i++) {
    if (order.indexOf(keys[i]!) < order.indexOf(keys[i - 1]!))
      problems.push(`${at}: ${keys[i]} comes after ${keys[i - 1]}, the document lists it before`);
  }
  for (const k of keys)
    problems.push(...fieldOrderProblems(resolve, properties[k]!, record[k], `${at}.${k}`));
  return problems;
}

/** The schema itself and the branches of its anyOf / oneOf / allOf, references resolved. */
function branchesOf(resolve: (schema: JsonSchema) => JsonSchema, node: JsonSchema): JsonSchema[] {
  const out = [node];
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const list = node[key];
    if (Array.isArray(list))
      for (const b of list as JsonSchema[]) out.push(...branchesOf(resolve, resolve(b)));
  }
  return out;
}
