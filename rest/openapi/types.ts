/** The shapes of the generated OpenAPI document and of what builds it (rest/openapi.ts). */
import type { Response } from './responses.js';
import type { JsonSchema } from './schemaSet.js';

export type OpenApiDocument = Record<string, unknown> & {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, JsonSchema>; [section: string]: unknown };
};
export interface Operation {
  operationId: string;
  responses: Record<string, Response>;
  [field: string]: unknown;
}

export interface OpenApiOptions {
  /** PUBLIC_URL: the one server of the document. */
  publicUrl: string;
  /** DOCS_URL: base of the error documentation links. */
  docsUrl: string;
  /** The service's version (package.json). */
  version?: string;
}
