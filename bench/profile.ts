/**
 * `npm run bench:profile -- <file.cpuprofile | dir> [rows] [filter]`: what a V8 CPU profile (the
 * services' `--cpu-prof`: BENCH_CPU_PROF of bench/all.ts, BENCH_CPU_PROF_DIR of the other benches,
 * BENCH_PROFILE of bench:prepare) spent its busy samples on, as shares of the busy time (idle and
 * `(program)` left out):
 *   groups     by package (node_modules), node internal module, or file of this repository
 *   self       by function (where the sample was taken)
 *   inclusive  by function, with everything it called (each function counted once per sample)
 * A directory means its largest profile (the service's main thread). `filter`: a regular expression
 * the function rows must match. How RESULTS.md's profile shares were read.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
}

const [target, rowsText = '40', filterText] = process.argv.slice(2);
if (!target) {
  console.error('usage: npm run bench:profile -- <file.cpuprofile | dir> [rows] [filter]');
  process.exit(2);
}
const file = statSync(target).isDirectory()
  ? join(
      target,
      readdirSync(target)
        .filter((name) => name.endsWith('.cpuprofile'))
        .sort((a, b) => statSync(join(target, b)).size - statSync(join(target, a)).size)[0] ?? '',
    )
  : target;
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const rows = Number(rowsText);
const filter = filterText ? new RegExp(filterText) : undefined;

const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parentOf = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);

/** `name file:line`, the file shortened to its package or to its path in this repository. */
function functionKey({ callFrame: { functionName, url, lineNumber } }: ProfileNode): string {
  const short = url
    .replace(/^.*\/node_modules\/((@[^/]+\/)?[^/]+)\//, '$1/')
    .replace(/^file:\/\/.*?\/(?=[^/]+\/[^/]+$)/, '');
  return `${functionName || '(anonymous)'} ${short}:${lineNumber}`;
}

function groupKey({ callFrame: { functionName, url } }: ProfileNode): string {
  const pkg = /node_modules\/((@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  if (url.startsWith('node:')) return url.split('/').slice(0, 2).join('/');
  if (url.startsWith('file://'))
    return url.replace(
      /^file:\/\/.*?\/(?=(bench|chain|delivery|devnet|indexer|lib|loaders|resolvers|rest|schema|scripts|store|web)\/)/,
      '',
    );
  return functionName.startsWith('(') ? functionName : url || '(native)';
}

const perSample = new Map<number, number>();
for (const id of profile.samples) perSample.set(id, (perSample.get(id) ?? 0) + 1);
const self = new Map<string, number>();
const inclusive = new Map<string, number>();
const groups = new Map<string, number>();
const add = (map: Map<string, number>, key: string, n: number) => map.set(key, (map.get(key) ?? 0) + n);
let busy = 0;
for (const [id, n] of perSample) {
  const node = byId.get(id)!;
  if (node.callFrame.functionName === '(idle)' || node.callFrame.functionName === '(program)') continue;
  busy += n;
  add(self, functionKey(node), n);
  add(groups, groupKey(node), n);
  const seen = new Set<string>();
  for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) {
    const key = functionKey(byId.get(at)!);
    if (!seen.has(key)) {
      seen.add(key);
      add(inclusive, key, n);
    }
  }
}

function print(title: string, map: Map<string, number>, filtered: boolean): void {
  console.log(`\n${title} (% of ${busy} busy samples)`);
  const entries = [...map].filter(([key]) => !filtered || !filter || filter.test(key));
  for (const [key, n] of entries.sort((a, b) => b[1] - a[1]).slice(0, rows)) {
    console.log(`${((100 * n) / busy).toFixed(2).padStart(6)}  ${key}`);
  }
}
console.log(file);
print('groups', groups, false);
print('self', self, true);
print('inclusive', inclusive, true);
