/** /mcp on the app: its tools and resources derived, once and on first use, from the OpenAPI document. */
import type express from 'express';
import type { OpenApiDocument } from '../contract/openapi.js';
import type { MountHooks } from '../rest/app.js';
import { onlyMethods } from '../rest/conventions.js';
import { packageVersion } from '../rest/docs.js';
import type { Guide } from '../rest/guides.js';
import { mcpResources } from './resources.js';
import { serveMcp } from './server.js';
import { mcpTools } from './tools.js';

export function mountMcp(
  app: express.Express,
  hooks: MountHooks,
  options: {
    document: () => OpenApiDocument;
    guides: readonly Guide[];
    publicUrl: string;
    docsUrl: string;
    trustProxy: boolean;
    bodyLimitBytes: number;
  },
): void {
  let tools: ReturnType<typeof mcpTools> | undefined;
  let resources: ReturnType<typeof mcpResources> | undefined;
  serveMcp(app, {
    dispatch: hooks.dispatch,
    tools: () => (tools ??= mcpTools(options.document())),
    resources: () =>
      (resources ??= mcpResources(options.publicUrl, options.guides, () =>
        JSON.stringify(options.document()),
      )),
    limit: hooks.limit('mcp'),
    onlyPost: onlyMethods(['POST']),
    trustProxy: options.trustProxy,
    docsUrl: options.docsUrl,
    bodyLimitBytes: options.bodyLimitBytes,
    version: packageVersion(),
  });
}
