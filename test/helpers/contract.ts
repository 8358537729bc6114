import { expect } from 'vitest';
import { buildOpenApi, type OpenApiDocument } from '../../contract/openapi.js';
import { OpenApiValidator, type ResponseLike } from '../../contract/openapiValidator.js';
import { routes } from '../../rest/routes/index.js';

/**
 * The contract hook for e2e suites: checks a live response (status, headers, JSON body) against the
 * OpenAPI document the service publishes (contract/openapi.ts), strictly: a field the document does not
 * name fails too, so a body cannot drift from its documentation unnoticed.
 *
 *   const res = await svc.get('/api/stats');
 *   const body = await res.json();
 *   expectMatchesContract('GET', '/api/stats', res, body);
 *
 * A path without an operation, an undocumented status, a missing `X-Request-Id` / `RateLimit-*` /
 * `Retry-After` header or a body outside its schema all fail with the list of problems.
 */

let validator: OpenApiValidator | undefined;

/** The document as the service builds it (server URLs do not matter for validation). */
export function contractDocument(): OpenApiDocument {
  return buildOpenApi(routes, { publicUrl: 'http://127.0.0.1', docsUrl: 'http://127.0.0.1/docs' });
}

export function contractValidator(): OpenApiValidator {
  validator ??= new OpenApiValidator(contractDocument());
  return validator;
}

/** Problems of a response against the contract; empty when it matches. */
export function contractProblems(method: string, path: string, res: ResponseLike, body: unknown): string[] {
  return contractValidator().responseProblems(method, path, res, body);
}

export function expectMatchesContract(method: string, path: string, res: ResponseLike, body: unknown): void {
  const problems = contractProblems(method, path, res, body);
  expect(problems, `${method} ${path} → ${res.status} against /openapi.json`).toEqual([]);
}

/** Reads the JSON body, checks the response against the contract and returns the body. */
export async function jsonMatchingContract<T = unknown>(
  method: string,
  path: string,
  res: Response,
): Promise<T> {
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`${method} ${path} → ${res.status}: the body is not JSON: ${text.slice(0, 200)}`);
  }
  expectMatchesContract(method, path, res, body);
  return body as T;
}
