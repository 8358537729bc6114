/**
 * The product's imports run down its layers (CONTRIBUTING.md): a change that makes a lower layer reach
 * up, or two modules load each other, fails here with the import named, not later as a load-order bug.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

/** Lower first; a module imports from its own folder or a folder of a lower rank. */
const RANK: Record<string, number> = {
  lib: 0,
  chain: 1,
  store: 1,
  loaders: 2,
  devnet: 2,
  domain: 3,
  indexer: 4,
  delivery: 4,
  resolvers: 5,
  schema: 6,
  // The published contract: the OpenAPI document derived from the operations and docs/api.
  contract: 7,
  rest: 8,
  // The agents' surface: tools derived from the REST facade's published document, run through it.
  mcp: 9,
};

/** Upward imports that are so on purpose, each with its reason in a comment at the import. */
const EXCEPTIONS = new Set([
  // The services bag: type-only, it names what service.ts builds and hands to every layer.
  'lib/services.ts -> chain/clients.ts',
  'lib/services.ts -> chain/prices.ts',
  'lib/services.ts -> chain/registry.ts',
  'lib/services.ts -> store/apiKeyCache.ts',
  'lib/services.ts -> store/db.ts',
  'lib/services.ts -> store/walletStrategies.ts',
]);

interface Import {
  from: string;
  to: string;
  typeOnly: boolean;
}

function sources(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts') && !name.endsWith('.d.ts') && !name.includes('generated'))
    .map((name) => join(folder, name));
}

function importsOf(file: string): Import[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const target = (spec: string) => relative(ROOT, resolve(ROOT, dirname(file), spec)).replace(/\.js$/, '.ts');
  const out: Import[] = [];
  for (const m of text.matchAll(/^(?:import|export)\s+(type\s+)?[^;]*?\sfrom\s+'(\.[^']+)'/gms))
    out.push({ from: file, to: target(m[2] as string), typeOnly: Boolean(m[1]) });
  for (const m of text.matchAll(/^import\s+'(\.[^']+)'|\bimport\('(\.[^']+)'\)/gm))
    out.push({ from: file, to: target((m[1] ?? m[2]) as string), typeOnly: false });
  return out;
}

const files = Object.keys(RANK).flatMap(sources);
const imports = files.flatMap(importsOf);
const folder = (path: string) => path.split('/')[0] as string;
// Outside the layers (service.ts, main.ts, bench/, test/) is above them all: the composition root.
// rest/generated is codegen output (the operations' typed documents): it imports no product module, so
// the contract derived from those documents may read it from below the facade.
const rankOf = (path: string) =>
  path.startsWith('rest/generated/') ? RANK.schema! : (RANK[folder(path)] ?? Number.POSITIVE_INFINITY);

describe('the layers of the product', () => {
  it('reads every import of every layer (the scan itself sees them)', () => {
    // A scan that matched nothing would pass every rule below.
    expect(files.length).toBeGreaterThan(150);
    expect(imports.some((i) => i.from === 'rest/app.ts' && i.to.startsWith('rest/'))).toBe(true);
    expect(imports.some((i) => i.from === 'lib/services.ts' && i.typeOnly)).toBe(true);
  });

  it('imports only from its own folder or a lower layer, but for the exceptions said at the import', () => {
    const upward = imports
      .filter((i) => folder(i.from) !== folder(i.to) && rankOf(i.to) >= rankOf(i.from))
      .map((i) => `${i.from} -> ${i.to}`)
      .filter((edge) => !EXCEPTIONS.has(edge));
    expect(upward).toEqual([]);
  });

  it('keeps every exception type-only and still needed', () => {
    for (const edge of EXCEPTIONS) {
      const found = imports.find((i) => `${i.from} -> ${i.to}` === edge);
      expect(found, edge).toBeDefined();
      expect(found?.typeOnly, edge).toBe(true);
    }
  });

  it('ranks rest/generated as the schema because it imports no product module', () => {
    const generated = readdirSync(join(ROOT, 'rest/generated')).filter((name) => name.endsWith('.ts'));
    expect(generated.length).toBeGreaterThan(0);
    for (const name of generated)
      for (const i of importsOf(join('rest/generated', name)))
        expect(i.to, `rest/generated/${name}`).toMatch(/^rest\/generated\//);
  });

  it('has no import circle among the modules loaded at run time', () => {
    const runtime = new Map<string, string[]>();
    for (const i of imports) if (!i.typeOnly) runtime.set(i.from, [...(runtime.get(i.from) ?? []), i.to]);
    const done = new Set<string>();
    const circles: string[] = [];
    const visit = (file: string, path: string[]) => {
      const at = path.indexOf(file);
      if (at >= 0) {
        circles.push([...path.slice(at), file].join(' -> '));
        return;
      }
      if (done.has(file)) return;
      for (const next of runtime.get(file) ?? []) visit(next, [...path, file]);
      done.add(file);
    };
    for (const file of files) visit(file, []);
    expect(circles).toEqual([]);
  });
});
