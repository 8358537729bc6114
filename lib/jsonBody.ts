/**
 * A JSON request body parsed with its zod schema: the first problem becomes one 400 INVALID_PARAMETER
 * naming its field (`deposits[1].amount`, `metadata.note`), in one wording for every body the service
 * reads. Each route names only what differs: how it calls a body that is not an object, and an unknown
 * field.
 */
import type { z } from 'zod';
import { ApiError } from './errors.js';

export interface BodyTexts {
  /** The message for a body that is not a JSON object. */
  notObject: string;
  /** The message for a field the schema does not list (strict objects). */
  unknownField: (field: string) => string;
}

/** `deposits[1].amount`, `metadata.note`, `metadata["a b"]`; the body itself is `body`. */
export function parameterOf(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else if (out === '') out = String(part);
    else if (/^[A-Za-z_$][\w$]*$/.test(String(part))) out += `.${String(part)}`;
    else out += `[${JSON.stringify(String(part))}]`;
  }
  return out || 'body';
}

function isPresent(body: unknown, path: readonly PropertyKey[]): boolean {
  let node: unknown = body;
  for (const part of path) {
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, part)) return false;
    node = (node as Record<PropertyKey, unknown>)[part];
  }
  return node !== undefined;
}

export function parseJsonBody<S extends z.ZodType>(schema: S, body: unknown, texts: BodyTexts): z.output<S> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw ApiError.invalid('body', texts.notObject);
  }
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  if (issue.code === 'unrecognized_keys') {
    const field = parameterOf([...issue.path, issue.keys[0]!]);
    throw ApiError.invalid(field, texts.unknownField(field));
  }
  const field = parameterOf(issue.path);
  if (issue.code === 'invalid_type' && !isPresent(body, issue.path)) {
    throw ApiError.invalid(field, `${field} is required.`);
  }
  const message = issue.code === 'invalid_key' ? (issue.issues[0]?.message ?? issue.message) : issue.message;
  throw ApiError.invalid(field, `${field}: ${message}.`);
}
