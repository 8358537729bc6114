/**
 * `npm run openapi:check`: builds the OpenAPI document exactly as the service does, then
 *   1. every route of `routes` (rest/routes/index.ts) is documented (has a `doc`) and in the document;
 *   2. the document passes @redocly/openapi-core's `recommended` rules (any error fails);
 *   3. every example in it (bodies, parameters, error envelopes) validates against its own schema,
 *      with ajv (JSON Schema 2020-12), undocumented properties refused.
 * Exit code 1 on any problem. `--print` writes the document to stdout instead.
 */
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { buildOpenApi, openApiPath, undocumentedRoutes } from '../contract/openapi.js';
import { exampleProblems } from '../contract/openapiValidator.js';
import { routes } from '../rest/routes/index.js';

const PUBLIC_URL = 'https://liquidity.example.org';

/** Lint findings accepted on purpose, each with its reason. */
const ACCEPTED = [
  {
    rule: 'operation-4xx-response',
    pointer: /^#\/paths\/~1(?:healthz|readyz)\//,
    why: 'health checks take no input: no client error is possible',
  },
];

async function main(): Promise<number> {
  const document = buildOpenApi(routes, { publicUrl: PUBLIC_URL, docsUrl: `${PUBLIC_URL}/docs` });
  if (process.argv.includes('--print')) {
    await new Promise<void>((resolve) =>
      process.stdout.write(`${JSON.stringify(document, null, 2)}\n`, () => resolve()),
    );
    return 0;
  }
  const problems: string[] = [];

  for (const route of undocumentedRoutes(routes)) problems.push(`route without doc: ${route}`);
  for (const route of routes) {
    if (!document.paths[openApiPath(route.path)]?.[route.method.toLowerCase()]) {
      problems.push(`route missing from the document: ${route.method} ${route.path}`);
    }
  }
  const ids = new Map<string, string>();
  for (const route of routes) {
    const id = route.doc?.operationId;
    if (!id) continue;
    if (ids.has(id))
      problems.push(`operationId ${id} used by ${ids.get(id)} and ${route.method} ${route.path}`);
    ids.set(id, `${route.method} ${route.path}`);
  }

  // The service has no public licence to name; every other recommended rule applies as shipped.
  const config = await createConfig({
    extends: ['recommended'],
    rules: { 'info-license': 'off', 'info-license-strict': 'off' },
  });
  const lint = await lintFromString({
    source: JSON.stringify(document, null, 2),
    absoluteRef: 'openapi.json',
    config,
  });
  let warnings = 0;
  for (const problem of lint) {
    const where = problem.location.map((l) => l.pointer).join(', ');
    const line = `${problem.ruleId}: ${problem.message} (${where})`;
    if (
      ACCEPTED.some(
        (a) => a.rule === problem.ruleId && problem.location.every((l) => a.pointer.test(l.pointer ?? '')),
      )
    ) {
      continue;
    }
    if (problem.severity === 'error') problems.push(`lint error ${line}`);
    else {
      warnings++;
      console.warn(`lint ${problem.severity} ${line}`);
    }
  }

  problems.push(...exampleProblems(document));

  const operations = Object.values(document.paths).reduce((n, item) => n + Object.keys(item).length, 0);
  if (problems.length > 0) {
    for (const problem of problems) console.error(problem);
    console.error(`openapi:check: ${problems.length} problem(s), ${warnings} lint warning(s)`);
    return 1;
  }
  console.log(
    `openapi:check: OpenAPI ${String(document.openapi)}, ${operations} operations, ${Object.keys(document.components.schemas).length} schemas; redocly recommended: 0 errors, ${warnings} warnings; examples valid`,
  );
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
