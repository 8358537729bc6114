import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { getNamedType, isEnumType, Kind, type OperationDefinitionNode, typeFromAST } from 'graphql';
import { z } from 'zod';
import { MAX_CURSOR_LENGTH } from '../resolvers/catalogue/cursor.js';
import { HASH } from '../resolvers/catalogue/params.js';
import { ADDRESS } from '../resolvers/series.js';
import { schema } from '../schema/index.js';
import { queryInteger, queryText, readValue, requiredValue } from './queryValues.js';
import type { RouteContext } from './route.js';

/**
 * The values the routes take in their path and query, each described once: its rule, its message and
 * its example. A route lists the ones it takes in its documented `query` and `params`; `queryOf` and
 * `paramsOf` read them through that same list, so what is published is what is checked.
 */

const STRATEGY_HASH_EXAMPLE = '0x5f1c3a0e1b6b0f7f2d86d8e3d1c2a0f9c3b4e5d6a7b8c9d0e1f2a3b4c5d6e7f8';

/** A strategy hash, in any case; read lower-cased. */
export const strategyHash = () =>
  z
    .string({ error: 'hash must be given once, as plain text.' })
    .regex(HASH, 'hash must be a strategy hash: 0x followed by 64 hex characters.')
    .transform((h) => h.toLowerCase());

/** A strategy hash in a path, with its example. */
export const strategyHashParam = () => strategyHash().meta({ examples: [STRATEGY_HASH_EXAMPLE] });

/** A maker's address in a path, read lower-cased. */
export const makerAddress = () =>
  z
    .string()
    .regex(ADDRESS, 'address must be an address: 0x followed by 40 hex characters.')
    .transform((a) => a.toLowerCase())
    .meta({ examples: ['0x00000000000000000000000000000000000abc01'] });

/** A chain key (matched in any case by the registry). */
export const chainKey = () => queryText('chain', 64).meta({ examples: ['base'] });

/** A page's size, from 1 to `max`. */
export const pageLimit = (max: number) => queryInteger('limit', 1, max, [20]);

/** The `nextCursor` of the previous page. */
export const pageCursor = (max = MAX_CURSOR_LENGTH) => queryText('cursor', max);

/** One of `values`, named in its message. */
export const oneOf = <const T extends readonly [string, ...string[]]>(name: string, values: T) =>
  z.enum(values, { error: `${name} must be one of ${values.join(', ')}.` });

/**
 * The values of the enum the operation's `variable` is typed with, in the REST spelling and the order the
 * schema declares them (schema/enums.ts): a parameter that passes straight to the graph takes its list
 * from there, not from a copy.
 */
export function variableEnum<V, K extends keyof V & string>(
  document: TypedDocumentNode<unknown, V>,
  variable: K,
  name: string = variable,
) {
  const operation = document.definitions.find(
    (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
  );
  const definition = operation?.variableDefinitions?.find((v) => v.variable.name.value === variable);
  const type = definition ? typeFromAST(schema, definition.type) : undefined;
  const named = type ? getNamedType(type) : undefined;
  if (!isEnumType(named)) throw new Error(`variableEnum: $${variable} is not typed with an enum`);
  const declared = named.extensions.declared as string[] | undefined;
  const values = declared ?? named.getValues().map((v) => String(v.value));
  return oneOf(name, values as [string, ...string[]]) as unknown as z.ZodType<NonNullable<V[K]>, string>;
}

/**
 * The values of `source` that `shape` lists, in the shape's order: a missing one is its default (or
 * undefined when optional), a missing required one a 400 "`name` is required.".
 */
function read<S extends z.ZodObject>(shape: S, source: Record<string, unknown>): z.output<S> {
  const values: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(shape.shape) as [string, z.ZodType][]) {
    values[name] = readValue(name, schema, source[name], () => {
      const absent = schema.safeParse(undefined);
      return absent.success ? absent.data : requiredValue(name)();
    });
  }
  return values as z.output<S>;
}

/** The route's query parameters, as its documented `query` lists them. */
export function queryOf<S extends z.ZodObject>(ctx: RouteContext, query: S): z.output<S> {
  return read(query, ctx.req.query as Record<string, unknown>);
}

/** The route's path parameters, as its documented `params` lists them. */
export function paramsOf<S extends z.ZodObject>(ctx: RouteContext, params: S): z.output<S> {
  return read(params, ctx.req.params as Record<string, unknown>);
}
