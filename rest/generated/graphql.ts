/* eslint-disable */
/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';
export type ServiceVersionQueryVariables = Exact<{ [key: string]: never; }>;


export type ServiceVersionQuery = { serviceVersion: string };


export const ServiceVersionDocument = {"__meta__":{"hash":"sha256:6e92f903d612bdf6989af8d0f00814ddee30fa82d5aabd65a1d10ec89404e839"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"ServiceVersion"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"serviceVersion"}}]}}]} as unknown as DocumentNode<ServiceVersionQuery, ServiceVersionQueryVariables>;