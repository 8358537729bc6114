import type { ArgBuilder, FieldMap, ObjectRef } from '@pothos/core';
import { withParameterNames } from '../lib/errors.js';
import type { Connection, PageInfo as PageInfoView } from '../resolvers/connection.js';
import { builder } from './builder.js';

/** Relay's PageInfo (forward paging): the analytics lists are Relay connections. */
export const PageInfo = builder.objectRef<PageInfoView>('PageInfo').implement({
  description: 'Where a connection page ends (Relay cursor connections, forward paging).',
  fields: (t) => ({
    hasNextPage: t.exposeBoolean('hasNextPage', {
      description: 'True when another page follows: pass `endCursor` as `after` to read it.',
    }),
    endCursor: t.string({
      nullable: true,
      description: 'The cursor of the last edge of this page; null when the page is empty.',
      resolve: (p) => p.endCursor,
    }),
  }),
});

type BuilderTypes = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer Types> ? Types : never;

/**
 * `<Name>Connection { edges: [<Name>Edge { cursor, node }], pageInfo }` over `node`; `extra` adds fields
 * of the list beside them (a search's reading of its text).
 */
export function connectionOf<T, C extends Connection<T> = Connection<T>>(
  name: string,
  node: ObjectRef<BuilderTypes, T>,
  what: { one: string; many: string },
  extra?: (t: PothosSchemaTypes.ObjectFieldBuilder<BuilderTypes, C>) => FieldMap,
) {
  const Edge = builder.objectRef<Connection<T>['edges'][number]>(`${name}Edge`).implement({
    description: `One ${what.one} of a page, with the cursor that starts the page after it.`,
    fields: (t) => ({
      cursor: t.exposeString('cursor', {
        description: 'Opaque; pass as `after` to read what follows this edge.',
      }),
      node: t.field({
        type: node,
        description: `The ${what.one}.`, // Pothos' resolver result type does not reduce over a generic T; the ref ties node to T.
        resolve: (e) => e.node as never,
      }),
    }),
  });
  return builder.objectRef<C>(`${name}Connection`).implement({
    description: `A page of ${what.many} (Relay cursor connection).`,
    fields: (t) => ({
      edges: t.field({
        type: [Edge],
        description: 'The page, in the order of the list.',
        resolve: (c) => c.edges,
      }),
      pageInfo: t.field({ type: PageInfo, description: 'Whether more follows.', resolve: (c) => c.pageInfo }),
      ...extra?.(t),
    }),
  });
}

const RELAY_NAMES: Record<string, string> = { limit: 'first', cursor: 'after' };

/**
 * The list resolvers name their paging parameters as REST does (`limit`, `cursor`); a connection field
 * takes Relay's `first` and `after`, so their refusals are renamed to name what the caller sent.
 */
export async function relayPaging<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw withParameterNames(error, RELAY_NAMES);
  }
}

/** `first` and `after`, as every connection field takes them. */
export function relayArgs(t: { arg: ArgBuilder<BuilderTypes> }, max = 100, byDefault = 20) {
  return {
    first: t.arg.int({
      required: false,
      defaultValue: byDefault,
      description: `Page size, 1 to ${max} (default ${byDefault}).`,
    }),
    after: t.arg.string({ required: false, description: '`pageInfo.endCursor` of the previous page.' }),
  };
}
