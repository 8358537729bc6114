/**
 * zod → JSON Schema 2020-12 for the OpenAPI document: the shared components and the inline schemas of
 * the operations, converted in one pass by zod's own converter (`z.toJSONSchema`).
 */
import { z } from 'zod';
import { COMPONENTS } from '../schemas/common.js';
import { integerQueryOverride } from './integers.js';

export type JsonSchema = Record<string, unknown>;

const SCHEMAS = '#/components/schemas/';

/** Drops what OpenAPI does not need ($schema, $id) and zod's implicit safe-integer bounds. */
function tidy(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(tidy);
  if (node === null || typeof node !== 'object') return node;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '$schema' || key === '$id') continue;
    if (key === 'maximum' && value === Number.MAX_SAFE_INTEGER) continue;
    if (key === 'minimum' && value === Number.MIN_SAFE_INTEGER) continue;
    out[key] = tidy(value);
  }
  return out;
}

/**
 * Converts the components and the inline schemas in one pass, so inline schemas reference components
 * by `$ref` and shared components are emitted once.
 */
export class SchemaSet {
  private readonly inline = new Map<z.ZodType, string>();

  /** A schema for the document: a `$ref` when it is a component, else a placeholder filled by `emit`. */
  ref(schema: z.ZodType): JsonSchema {
    const id = this.idOf(schema);
    if (id) return { $ref: `${SCHEMAS}${id}` };
    let key = this.inline.get(schema);
    if (!key) {
      key = `__inline_${this.inline.size}`;
      this.inline.set(schema, key);
    }
    return { $ref: `${SCHEMAS}${key}` };
  }

  private idOf(schema: z.ZodType): string | undefined {
    for (const [id, s] of COMPONENTS) if (s === schema) return id;
    return undefined;
  }

  /** Converts everything referenced; returns the components and a function that inlines placeholders. */
  emit(): { schemas: Record<string, JsonSchema>; resolve<T>(value: T): T } {
    const registry = z.registry<{ id: string }>();
    for (const [id, schema] of COMPONENTS) registry.add(schema, { id });
    for (const [schema, key] of this.inline) registry.add(schema, { id: key });
    const converted = z.toJSONSchema(registry, {
      target: 'draft-2020-12',
      io: 'input',
      unrepresentable: 'any',
      uri: (id) => `${SCHEMAS}${id}`,
      override: integerQueryOverride,
    }).schemas as Record<string, JsonSchema>;
    const cleaned: Record<string, JsonSchema> = {};
    for (const [id, schema] of Object.entries(converted)) cleaned[id] = tidy(schema) as JsonSchema;
    const resolve = <T>(value: T): T => {
      const walk = (node: unknown): unknown => {
        if (Array.isArray(node)) return node.map(walk);
        if (node === null || typeof node !== 'object') return node;
        const ref = (node as { $ref?: unknown }).$ref;
        if (typeof ref === 'string' && ref.startsWith(`${SCHEMAS}__inline_`)) {
          const { $ref: _ref, ...siblings } = node as JsonSchema;
          return { ...(walk(cleaned[ref.slice(SCHEMAS.length)]) as JsonSchema), ...siblings };
        }
        return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, walk(v)]));
      };
      return walk(value) as T;
    };
    const schemas: Record<string, JsonSchema> = {};
    for (const [id, schema] of Object.entries(cleaned))
      if (!id.startsWith('__inline_')) schemas[id] = resolve(schema);
    return { schemas, resolve };
  }
}
