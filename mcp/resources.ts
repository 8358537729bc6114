/**
 * The MCP resources: the repository's guides (docs/*.md, as /docs/guides serves them) and the OpenAPI
 * document, at the addresses the deployment serves them at.
 */
import type { Guide } from '../rest/guides.js';
import { guidePath } from '../rest/guides.js';

export interface McpResource {
  uri: string;
  name: string;
  title: string;
  description: string;
  mimeType: string;
  text: () => string;
}

export function mcpResources(
  publicUrl: string,
  guides: readonly Guide[],
  openApiText: () => string,
): McpResource[] {
  const base = publicUrl.replace(/\/$/, '');
  return [
    ...guides.map((g) => ({
      uri: `${base}${guidePath(g.name)}`,
      name: g.name,
      title: g.title,
      description: g.summary,
      mimeType: 'text/markdown',
      text: () => g.markdown,
    })),
    {
      uri: `${base}/openapi.json`,
      name: 'openapi',
      title: 'OpenAPI document',
      description:
        'Every REST path, its parameters, bodies, answers and error codes (the tools are derived from it).',
      mimeType: 'application/json',
      text: openApiText,
    },
  ];
}
