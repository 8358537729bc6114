import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { type DocumentNode, type GraphQLSchema, validate } from 'graphql';
import { type CompiledQuery, compileQuery, isCompiledQuery } from 'graphql-jit';
import { ApiError, isApiError, withParameterNames } from '../lib/errors.js';
import type { GraphQLContext } from '../resolvers/context.js';
import { type EnumPlan, enumPlanOf, toGraphQLVariables, toInternalValues } from './enumPlan.js';
import * as generated from './generated/graphql.js';
import manifest from './generated/persisted-documents.json' with { type: 'json' };

export type Persisted<R, V> = TypedDocumentNode<R, V> & { __meta__?: { hash?: string } };

/**
 * Runs the REST facade's persisted operations in-process. Only documents of the codegen manifest can
 * run: each is validated against the schema and compiled (graphql-jit) once, then looked up by its
 * hash. What is compiled is the document as written in rest/operations (codegen's typed document),
 * not the manifest's normalised text, whose selections are sorted: a result's fields come in the
 * order the operation selects them, which is the order its REST body documents
 * (contract/openapi/fromSelection.ts). Compiled, an operation runs its resolvers without graphql-js's walk of the document per
 * request (field collection, argument and variable coercion, completion of every field by type): a
 * prepare's ~150 fields cost a few percent of its CPU that way. Only the
 * manifest's documents are compiled, never a client's text; /graphql keeps graphql-js. Enum values
 * cross in the REST spelling (rest/enumPlan.ts): variables are translated to the graph's names, results
 * back, as the codegen types say (rest/generated/enum-values.json).
 */
export class PersistedOperations {
  private readonly documents = new Map<string, { compiled: CompiledQuery; enums: EnumPlan }>();

  constructor(schema: GraphQLSchema) {
    const allowed = new Set(Object.keys(manifest));
    for (const value of Object.values(generated)) {
      const hash = (value as Persisted<unknown, never>).__meta__?.hash;
      if (typeof hash !== 'string') continue;
      if (!allowed.has(hash)) throw new Error(`operation ${hash} is not in the persisted manifest`);
      const { __meta__: _meta, ...document } = value as DocumentNode & { __meta__: unknown };
      const errors = validate(schema, document);
      if (errors.length > 0) throw new Error(`persisted operation ${hash} is invalid: ${errors[0]?.message}`);
      const compiled = compileQuery(schema, document);
      if (!isCompiledQuery(compiled))
        throw new Error(`persisted operation ${hash} does not compile: ${compiled.errors?.[0]?.message}`);
      this.documents.set(hash, { compiled, enums: enumPlanOf(schema, document) });
    }
  }

  /**
   * `parameters`: the REST name of a variable the route names otherwise (a connection's `first` and
   * `after` are the path's `limit` and `cursor`), so that a refusal names what the client sent.
   */
  async run<R, V extends Record<string, unknown>>(
    operation: Persisted<R, V>,
    variables: V,
    context: GraphQLContext,
    parameters: Readonly<Record<string, string>> = {},
  ): Promise<R> {
    const hash = operation.__meta__?.hash;
    const persisted = hash ? this.documents.get(hash) : undefined;
    if (!persisted) throw new Error(`operation ${hash ?? '(no hash)'} is not in the persisted manifest`);
    const result = await persisted.compiled.query(
      undefined,
      context,
      toGraphQLVariables(persisted.enums, variables),
    );
    if (result.errors && result.errors.length > 0)
      throw withParameterNames(toApiError(result.errors), parameters);
    toInternalValues(persisted.enums.output, result.data);
    return result.data as R;
  }
}

function toApiError(errors: readonly import('graphql').GraphQLError[]): unknown {
  for (const error of errors) {
    if (isApiError(error.originalError)) return error.originalError;
  }
  const first = errors[0];
  if (first?.originalError) return first.originalError;
  // A variable the schema refused: the REST layer validates first, so this names what slipped through.
  const variable = /Variable "\$(\w+)"/.exec(first?.message ?? '')?.[1];
  if (variable) return ApiError.invalid(variable, first?.message ?? 'invalid parameter');
  return new Error(first?.message ?? 'GraphQL execution failed');
}
