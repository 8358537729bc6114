import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { type DocumentNode, execute, type GraphQLSchema, parse, validate } from 'graphql';
import { ApiError, isApiError } from '../lib/errors.js';
import type { GraphQLContext } from '../schema/context.js';
import manifest from './generated/persisted-documents.json' with { type: 'json' };

type Persisted<R, V> = TypedDocumentNode<R, V> & { __meta__?: { hash?: string } };

/**
 * Runs the REST facade's persisted operations in-process. Only documents of the codegen manifest can
 * run: each is parsed and validated against the schema once, then looked up by its hash.
 */
export class PersistedOperations {
  private readonly documents = new Map<string, DocumentNode>();

  constructor(private readonly schema: GraphQLSchema) {
    for (const [hash, source] of Object.entries(manifest as Record<string, string>)) {
      const document = parse(source);
      const errors = validate(schema, document);
      if (errors.length > 0) throw new Error(`persisted operation ${hash} is invalid: ${errors[0]?.message}`);
      this.documents.set(hash, document);
    }
  }

  async run<R, V extends Record<string, unknown>>(
    operation: Persisted<R, V>,
    variables: V,
    context: GraphQLContext,
  ): Promise<R> {
    const hash = operation.__meta__?.hash;
    const document = hash ? this.documents.get(hash) : undefined;
    if (!document) throw new Error(`operation ${hash ?? '(no hash)'} is not in the persisted manifest`);
    const result = await execute({
      schema: this.schema,
      document,
      variableValues: variables,
      contextValue: context,
    });
    if (result.errors && result.errors.length > 0) throw toApiError(result.errors);
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
