import { z } from 'zod';
import { publishAsInteger } from '../contract/openapi/integers.js';
import { ApiError } from '../lib/errors.js';

/**
 * The rules a query value follows, one way for every route: given once, as plain text (`?a=1&a=2` and
 * `?a[b]=1` are refused), and for a number, one message for every way it can be wrong, the one the
 * documents give ("limit must be an integer from 1 to 100.").
 */

export const queryText = (name: string, max?: number) => {
  const text = z
    .string({ error: `${name} must be given once, as plain text.` })
    .min(1, `${name} must not be empty.`);
  return max === undefined ? text : text.max(max, `${name} must be at most ${max} characters.`);
};

/** An integer from `minimum` to `maximum`, written in decimal; parsed to a number. */
export function queryInteger(name: string, minimum: number, maximum: number, examples?: number[]) {
  const message = `${name} must be an integer from ${minimum} to ${maximum}.`;
  const parsed = z
    .string({ error: `${name} must be given once, as plain text.` })
    .regex(/^[0-9]{1,15}$/, message)
    .transform(Number)
    .refine((n) => n >= minimum && n <= maximum, message);
  const schema = examples ? parsed.meta({ examples }) : parsed;
  publishAsInteger(schema, { minimum, maximum });
  return schema;
}

/**
 * One value through its schema: a refused one is a 400 naming it with its schema's message; a missing
 * one (undefined) is `missing()`'s answer. The one reader of every path and query value.
 */
export function readValue<T>(name: string, schema: z.ZodType<T>, raw: unknown, missing: () => T): T {
  if (raw === undefined) return missing();
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw ApiError.invalid(name, parsed.error.issues[0]?.message ?? `${name} is invalid.`);
  return parsed.data;
}

export const requiredValue = (name: string) => (): never => {
  throw ApiError.invalid(name, `${name} is required.`);
};
