import type { z } from 'zod';

/** The bounds of each integer query value, for the documents (`integerQueryOverride`). */
const INTEGERS = new WeakMap<z.ZodType, { minimum: number; maximum: number }>();

/** Publishes `schema`, which parses the digits of a query value, as the integer it reads. */
export function publishAsInteger(schema: z.ZodType, bounds: { minimum: number; maximum: number }): void {
  INTEGERS.set(schema, bounds);
}

/**
 * For zod's JSON Schema converter: an integer query value is published as the integer it is (a
 * generated client sends `limit: 5`), not as the digits the parser reads.
 */
export function integerQueryOverride(ctx: { zodSchema: unknown; jsonSchema: Record<string, unknown> }) {
  const bounds = INTEGERS.get(ctx.zodSchema as z.ZodType);
  if (!bounds) return;
  for (const key of ['type', 'pattern', 'minLength', 'maxLength', 'format', 'anyOf', 'allOf'])
    delete ctx.jsonSchema[key];
  Object.assign(ctx.jsonSchema, { type: 'integer', ...bounds });
}
