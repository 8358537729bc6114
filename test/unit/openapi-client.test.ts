import openapiTS, { astToString } from 'openapi-typescript';
import { describe, expect, it } from 'vitest';
import { buildOpenApi } from '../../contract/openapi.js';
import { routes } from '../../rest/routes/index.js';

/**
 * What an integrator's generated client sees: types from the published document through
 * openapi-typescript (its JS API, default options). A request field or query parameter with a default
 * must be optional there, or every client has to send what the service would assume anyway.
 */

const document = buildOpenApi(routes, {
  publicUrl: 'https://liquidity.example.org',
  docsUrl: 'https://liquidity.example.org/docs',
});

describe('generated client types (openapi-typescript)', async () => {
  // biome-ignore lint/suspicious/noExplicitAny: openapi-typescript types its input as its own OpenAPI3 shape.
  const text = astToString(await openapiTS(document as any));

  /** The type text of an operation (`operations["<id>"]`). */
  function operation(id: string): string {
    const start = text.indexOf(`    ${id}: {`);
    expect(start, id).toBeGreaterThan(0);
    const end = text.indexOf('\n    };', start);
    return text.slice(start, end);
  }

  it('keeps the request body fields with a default optional, the others required', () => {
    const prepare = operation('preparePosition');
    for (const field of ['makerFeeBps', 'includeApprovals', 'checkBalances', 'metadata'])
      expect(prepare).toMatch(new RegExp(`\\b${field}\\?: `));
    for (const field of ['chain', 'wallet', 'deposits']) expect(prepare).toMatch(new RegExp(`\\b${field}: `));
    const swap = operation('prepareSwap');
    for (const field of ['slippageBps', 'deadlineSeconds'])
      expect(swap).toMatch(new RegExp(`\\b${field}\\?: `));
  });

  it('keeps query parameters with a default optional', () => {
    expect(operation('getQuote')).toMatch(/\bdirection\?: /);
    expect(operation('getBadge')).toMatch(/\bmetric\?: /);
  });

  it('shares one Error component among the error responses', () => {
    expect(text).toMatch(/\n {8}Error: \{/);
    expect(text.match(/components\["schemas"\]\["Error"\]/g)?.length ?? 0).toBeGreaterThan(20);
    expect(JSON.stringify(document).match(/"Human-readable; may change without notice\."/g)).toHaveLength(1);
  });
});
