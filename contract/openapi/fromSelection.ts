import {
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLNamedType,
  GraphQLNonNull,
  type GraphQLOutputType,
  getNullableType,
  isEnumType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { z } from 'zod';
import { schema } from '../../schema/index.js';
import type { ValueExtensions, ValueFormat } from '../../schema/valueFormats.js';
import {
  address,
  baseUnits,
  count,
  dateTime,
  deliveryIdValue,
  hash32,
  usd,
  webhookIdValue,
} from '../schemas/common.js';

/**
 * The published schema of a REST body, derived from the persisted operation that answers it (as The
 * Guild's SOFA derives REST from GraphQL): one property per selected field, in selection order, named by
 * its alias, typed and described by the graph (schema/), enum values in the REST spelling
 * (rest/enumPlan.ts translates them at run time), patterns and bounds from the field's value format
 * (schema/valueFormats.ts). A route states only what the selection cannot: a member it adds or a member
 * it reshapes.
 */

const ATOMS: Record<ValueFormat, () => z.ZodType> = {
  address: () => address,
  hash32: () => hash32,
  baseUnits: () => baseUnits,
  count: () => count,
  usd: () => usd,
  bytes: () => z.string().regex(/^0x[0-9a-fA-F]*$/),
  decimal: () => z.string().regex(/^[0-9]+$/),
  positive: () => z.int().min(1),
  nonNegative: () => z.number().min(0),
  webhookId: () => webhookIdValue,
  deliveryId: () => deliveryIdValue,
  stringMap: () => z.record(z.string(), z.string()),
};

export interface SelectionOptions {
  /** Members a route adds, after the member whose dotted path is the key (`strategy` → after it). */
  after?: Record<string, Record<string, z.ZodType>>;
  /** Members a route reads (for `meta`) and does not publish, by dotted path. */
  omit?: readonly string[];
  /** Members a route publishes in another shape than the selection's, by dotted path. */
  replace?: Record<string, z.ZodType>;
  /**
   * Members the route always has although the graph allows null there (the graph's null covers a read
   * that raced a rewind; the route read the row itself), by dotted path.
   */
  present?: readonly string[];
  /**
   * Members the contract keeps optional although the graph always answers them (SPEC documents them
   * as optional: a client must not rely on them), by dotted path.
   */
  optional?: readonly string[];
  /** A selection that is only `...Name` takes the schema registered for fragment Name (a component). */
  fragments?: Record<string, z.ZodType>;
}

interface Walk {
  fragments: Map<string, FragmentDefinitionNode>;
  options: SelectionOptions;
  /** The paths of the selection walked, to refuse an option naming none (a typo would publish a guess). */
  seen: Set<string>;
}

function walkOf(document: DocumentNode, options: SelectionOptions): Walk {
  return { fragments: fragmentsOf(document), options, seen: new Set() };
}

/** Every path an option names is one of the selection's. */
function checkOptions(walk: Walk, what: string): void {
  const { omit = [], replace = {}, present = [], optional = [], after = {} } = walk.options;
  for (const path of [...omit, ...Object.keys(replace), ...present, ...optional, ...Object.keys(after)])
    if (!walk.seen.has(path)) throw new Error(`${what}: an option names ${path}, which it does not select`);
}

function fragmentsOf(document: DocumentNode): Map<string, FragmentDefinitionNode> {
  return new Map(
    document.definitions
      .filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION)
      .map((d) => [d.name.value, d]),
  );
}

/**
 * The schema of the object at `path` (response keys from the root) of the operation in `document`. A
 * null there is the route's to answer (a 404), so the object itself is not nullable.
 */
export function operationSchema(
  document: DocumentNode,
  path: readonly string[],
  options: SelectionOptions = {},
): z.ZodObject {
  const operation = document.definitions.find(
    (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
  );
  if (!operation) throw new Error('operationSchema: the document holds no operation');
  const root = operation.operation === 'mutation' ? schema.getMutationType() : schema.getQueryType();
  if (!root) throw new Error(`operationSchema: the schema has no ${operation.operation} type`);
  const walk = walkOf(document, options);
  let parent: GraphQLNamedType = root;
  let selectionSet: SelectionSetNode = operation.selectionSet;
  for (const key of path) {
    const found = fieldsOf(parent, selectionSet, walk).find(([k]) => k === key);
    if (!found) throw new Error(`operationSchema: ${operation.name?.value} selects no ${path.join('.')}`);
    const [, def, sub] = found;
    parent = namedOf(def.type);
    if (!sub) throw new Error(`operationSchema: ${path.join('.')} is not an object`);
    selectionSet = sub;
  }
  const out = objectOf(parent, selectionSet, walk, '');
  checkOptions(walk, `operationSchema(${operation.name?.value ?? 'anonymous'})`);
  return out;
}

/** The schema of the fragment in `document` (its type's description on the object). */
export function fragmentSchema(document: DocumentNode, options: SelectionOptions = {}): z.ZodObject {
  const fragment = document.definitions.find(
    (d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION,
  );
  if (!fragment) throw new Error('fragmentSchema: the document holds no fragment');
  const type = schema.getType(fragment.typeCondition.name.value);
  if (!type) throw new Error(`fragmentSchema: no type ${fragment.typeCondition.name.value}`);
  const walk = walkOf(document, options);
  const out = objectOf(type, fragment.selectionSet, walk, '');
  checkOptions(walk, `fragmentSchema(${fragment.name.value})`);
  return out;
}

function namedOf(type: GraphQLOutputType): GraphQLNamedType {
  let t: GraphQLOutputType = type;
  while (isNonNullType(t) || isListType(t)) t = t.ofType;
  return t;
}

/**
 * The selected fields of `parent` in selection order, fragments spread in place: [key, field,
 * sub-selection]. A key selected twice (a fragment's field and the operation's own) is one field, where
 * it first comes, with both sub-selections, as GraphQL executes it.
 */
function fieldsOf(
  parent: GraphQLNamedType,
  selectionSet: SelectionSetNode,
  walk: Walk,
): [string, GraphQLField<unknown, unknown>, SelectionSetNode | undefined][] {
  const merged = new Map<string, [string, GraphQLField<unknown, unknown>, SelectionSetNode | undefined]>();
  for (const [key, field, sub] of selectedFields(parent, selectionSet, walk)) {
    const first = merged.get(key);
    if (!first) merged.set(key, [key, field, sub]);
    else if (first[2] && sub)
      first[2] = { kind: Kind.SELECTION_SET, selections: [...first[2].selections, ...sub.selections] };
  }
  return [...merged.values()];
}

function selectedFields(
  parent: GraphQLNamedType,
  selectionSet: SelectionSetNode,
  walk: Walk,
): [string, GraphQLField<unknown, unknown>, SelectionSetNode | undefined][] {
  const out: [string, GraphQLField<unknown, unknown>, SelectionSetNode | undefined][] = [];
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      if (selection.name.value === '__typename') continue;
      if (!isObjectType(parent)) throw new Error(`fromSelection: ${parent.name} is not an object type`);
      const def = parent.getFields()[selection.name.value];
      if (!def) throw new Error(`fromSelection: ${parent.name} has no field ${selection.name.value}`);
      out.push([selection.alias?.value ?? selection.name.value, def, selection.selectionSet]);
    } else {
      const fragment =
        selection.kind === Kind.FRAGMENT_SPREAD ? walk.fragments.get(selection.name.value) : selection;
      if (!fragment) throw new Error('fromSelection: a fragment spread names no fragment of the document');
      out.push(...selectedFields(parent, fragment.selectionSet, walk));
    }
  }
  return out;
}

function objectOf(
  type: GraphQLNamedType,
  selectionSet: SelectionSetNode,
  walk: Walk,
  path: string,
): z.ZodObject {
  const shape: Record<string, z.ZodType> = {};
  const join = (key: string) => (path ? `${path}.${key}` : key);
  for (const [key, field, sub] of fieldsOf(type, selectionSet, walk)) {
    const at = join(key);
    walk.seen.add(at);
    if (walk.options.omit?.includes(at)) continue;
    const replaced = walk.options.replace?.[at];
    const fieldType =
      walk.options.present?.includes(at) && !isNonNullType(field.type)
        ? new GraphQLNonNull(field.type)
        : field.type;
    let member = replaced ?? typeOf(fieldType, sub, walk, at, field.extensions as ValueExtensions);
    const description = replaced ? undefined : describe(field);
    if (walk.options.optional?.includes(at)) member = member.optional();
    if (description) member = member.meta({ description });
    shape[key] = member;
    for (const [name, added] of Object.entries(walk.options.after?.[at] ?? {})) shape[name] = added;
  }
  const object = z.object(shape);
  return type.description ? object.meta({ description: type.description }) : object;
}

/** A field's description; for an enum, followed by what each value means (in the REST spelling). */
function describe(field: GraphQLField<unknown, unknown>): string | undefined {
  const type = namedOf(field.type);
  if (!isEnumType(type)) return field.description ?? undefined;
  const declared = (type.extensions.declared as string[] | undefined) ?? [];
  const rank = (v: { value: unknown }) => declared.indexOf(String(v.value));
  const values = [...type.getValues()]
    .sort((a, b) => rank(a) - rank(b))
    .filter((v) => v.description)
    .map((v) => `\`${String(v.value)}\`: ${v.description}`);
  if (values.length === 0) return field.description ?? undefined;
  return [field.description, values.join(' ')].filter(Boolean).join(' ');
}

function typeOf(
  type: GraphQLOutputType,
  selectionSet: SelectionSetNode | undefined,
  walk: Walk,
  path: string,
  extensions: ValueExtensions = {},
): z.ZodType {
  const nullable = !isNonNullType(type);
  const inner = getNullableType(type);
  let out: z.ZodType;
  if (isListType(inner)) out = z.array(typeOf(inner.ofType, selectionSet, walk, path, extensions));
  else out = namedSchema(inner, selectionSet, walk, path, extensions);
  return nullable ? out.nullable() : out;
}

function namedSchema(
  type: GraphQLNamedType,
  selectionSet: SelectionSetNode | undefined,
  walk: Walk,
  path: string,
  extensions: ValueExtensions,
): z.ZodType {
  if (isEnumType(type)) {
    // As declared (schema/enums.ts), not as the sorted schema lists them.
    const declared = type.extensions.declared as string[] | undefined;
    const values = declared ?? type.getValues().map((v) => String(v.value));
    return z.enum(values as [string, ...string[]]);
  }
  if (isScalarType(type)) {
    let out =
      extensions.constant === undefined
        ? scalarSchema(type.name, extensions.format)
        : z.literal(extensions.constant);
    if (extensions.examples) out = out.meta({ examples: [...extensions.examples] });
    return out;
  }
  if (!selectionSet) throw new Error(`fromSelection: ${path} of type ${type.name} has no selection`);
  const only = selectionSet.selections.length === 1 ? selectionSet.selections[0] : undefined;
  if (only?.kind === Kind.FRAGMENT_SPREAD) {
    const component = walk.options.fragments?.[only.name.value];
    if (component) return component;
  }
  return objectOf(type, selectionSet, walk, path);
}

function scalarSchema(name: string, format: ValueFormat | undefined): z.ZodType {
  if (format) return ATOMS[format]();
  switch (name) {
    case 'String':
    case 'ID':
      return z.string();
    case 'Int':
      return z.int();
    case 'Float':
      return z.number();
    case 'Boolean':
      return z.boolean();
    case 'DateTime':
      return dateTime;
    default:
      return z.unknown();
  }
}
