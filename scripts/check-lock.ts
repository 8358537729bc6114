import { readFileSync } from 'node:fs';

/**
 * Fails when package-lock.json has drifted from package.json, as `npm ci` on a fresh clone would
 * (and, unlike a local `npm ci`, also when a platform's optional build is missing from the lock, which
 * only shows on another platform): every spec of package.json is the lock's root spec, and every
 * optional dependency a locked package declares has its own entry.
 */
interface LockEntry {
  version?: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as LockEntry;
const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as {
  packages: Record<string, LockEntry>;
};
const root = lock.packages[''] ?? {};
const problems: string[] = [];

for (const field of ['dependencies', 'devDependencies', 'optionalDependencies'] as const) {
  const wanted = manifest[field] ?? {};
  const locked = root[field] ?? {};
  for (const [name, spec] of Object.entries(wanted)) {
    if (locked[name] !== spec)
      problems.push(`${field}.${name}: package.json says ${spec}, the lock ${locked[name] ?? 'nothing'}`);
    else if (!lock.packages[`node_modules/${name}`]) problems.push(`${name} is not installed by the lock`);
  }
  for (const name of Object.keys(locked))
    if (!(name in wanted)) problems.push(`${field}.${name} is in the lock but not in package.json`);
}

for (const [path, entry] of Object.entries(lock.packages)) {
  for (const name of Object.keys(entry.optionalDependencies ?? {})) {
    // npm places a dependency beside its dependent or hoists it to the top.
    const nested = `${path}/node_modules/${name}`;
    if (!lock.packages[nested] && !lock.packages[`node_modules/${name}`])
      problems.push(`${path || 'the root'} declares optional ${name}, missing from the lock`);
  }
}

if (problems.length > 0) {
  console.error(`package-lock.json has drifted from package.json (run npm install and commit the lock):`);
  for (const problem of problems) console.error(`- ${problem}`);
  process.exit(1);
}
console.log(
  `check:lock: package-lock.json matches package.json (${Object.keys(lock.packages).length - 1} packages)`,
);
