import SchemaBuilder from '@pothos/core';
import DataloaderPlugin from '@pothos/plugin-dataloader';
import { GraphQLError, GraphQLScalarType, Kind } from 'graphql';
import type { GraphQLContext } from '../resolvers/context.js';

/** The one place the schema builder is made: plugins, scalars, context and the root types. */
export const builder = new SchemaBuilder<{
  Context: GraphQLContext;
  DefaultFieldNullability: false;
  Scalars: {
    DateTime: { Input: string; Output: Date | string };
    JSON: { Input: unknown; Output: unknown };
  };
}>({
  plugins: [DataloaderPlugin],
  defaultFieldNullability: false,
});

builder.addScalarType(
  'DateTime',
  new GraphQLScalarType({
    name: 'DateTime',
    description: 'An ISO 8601 date-time string in UTC.',
    serialize: (value) =>
      value instanceof Date ? value.toISOString() : new Date(String(value)).toISOString(),
    parseValue: (value) => {
      if (typeof value !== 'string' || Number.isNaN(Date.parse(value))) {
        throw new GraphQLError('DateTime must be an ISO 8601 string');
      }
      return value;
    },
    parseLiteral: (ast) => {
      if (ast.kind !== Kind.STRING || Number.isNaN(Date.parse(ast.value))) {
        throw new GraphQLError('DateTime must be an ISO 8601 string');
      }
      return ast.value;
    },
  }),
);

builder.addScalarType(
  'JSON',
  new GraphQLScalarType({
    name: 'JSON',
    description: 'An open JSON value (used for program decodings and other open shapes).',
    serialize: (value) => value,
    parseValue: (value) => value,
  }),
);

builder.queryType({
  description:
    'Reads: the catalogue (chains, strategies, stats), analytics (makers, series), quotes and positions.',
});
builder.mutationType({
  description:
    'Prepare-only writes (unsigned transactions; nothing is signed or broadcast) and key administration.',
});
