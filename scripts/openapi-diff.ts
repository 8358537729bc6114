/**
 * `npm run openapi:diff -- <before.json> [after.json]`: what differs between two OpenAPI documents once
 * every `description` is stripped (prose may move or change; the contract may not). Without
 * `after.json`, the document the service builds now (`npm run openapi:print`). Prints one line per
 * difference (its JSON path, then the two values) and exits 1 when there is any; 0 and "no difference"
 * otherwise. Write `before.json` with `npm run openapi:print > before.json` on the commit to compare with.
 */
import { readFileSync } from 'node:fs';
import { buildOpenApi } from '../contract/openapi.js';
import { routes } from '../rest/routes/index.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function stripped(value: Json): Json {
  if (Array.isArray(value)) return value.map(stripped);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      // Prose only: a schema property that happens to be called `description` is part of the contract.
      .filter(([key, v]) => !(key === 'description' && typeof v === 'string'))
      .map(([key, v]) => [key, stripped(v)]),
  );
}

function differences(a: Json, b: Json, path: string, out: string[]): void {
  const kind = (v: Json) => (Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v);
  if (kind(a) !== kind(b) || (typeof a !== 'object' && a !== b)) {
    out.push(`${path || '$'}: ${JSON.stringify(a)?.slice(0, 120)} → ${JSON.stringify(b)?.slice(0, 120)}`);
    return;
  }
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return;
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const key of keys) {
    const left = (a as Record<string, Json>)[key];
    const right = (b as Record<string, Json>)[key];
    const at = Array.isArray(a) ? `${path}[${key}]` : `${path}.${key}`;
    if (left === undefined) out.push(`${at}: (absent) → ${JSON.stringify(right).slice(0, 120)}`);
    else if (right === undefined) out.push(`${at}: ${JSON.stringify(left).slice(0, 120)} → (absent)`);
    else differences(left, right, at, out);
  }
}

const [beforeFile, afterFile] = process.argv.slice(2);
if (!beforeFile) {
  console.error('usage: npm run openapi:diff -- <before.json> [after.json]');
  process.exit(2);
}
const PUBLIC_URL = 'https://liquidity.example.org';
const read = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as Json;
// The same options as `openapi:print` (scripts/openapi-check.ts), so a document printed there compares.
const after: Json = afterFile
  ? read(afterFile)
  : (JSON.parse(
      JSON.stringify(buildOpenApi(routes, { publicUrl: PUBLIC_URL, docsUrl: `${PUBLIC_URL}/docs` })),
    ) as Json);
const out: string[] = [];
differences(stripped(read(beforeFile)), stripped(after), '', out);
for (const line of out) console.log(line);
console.log(out.length === 0 ? 'no difference (descriptions stripped)' : `${out.length} differences`);
process.exit(out.length === 0 ? 0 : 1);
