/**
 * Compiles devnet/contracts/*.sol with solc-js into devnet/artifacts/<ContractName>.json.
 *
 *   npm run contracts:compile          write the artifacts
 *   npm run contracts:check            compile and exit 1 when a committed artifact differs
 *
 * Settings are fixed (optimizer 200 runs, cancun, no metadata hash) so the output is reproducible.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import solc from 'solc';

const devnetDir = path.dirname(fileURLToPath(import.meta.url));
export const contractsDir = path.join(devnetDir, 'contracts');
export const artifactsDir = path.join(devnetDir, 'artifacts');

export type CompiledArtifact = { contractName: string; abi: unknown[]; bytecode: `0x${string}` };

type SolcMessage = { severity: 'error' | 'warning' | 'info'; formattedMessage?: string; message: string };
type SolcOutput = {
  errors?: SolcMessage[];
  contracts?: Record<string, Record<string, { abi: unknown[]; evm: { bytecode: { object: string } } }>>;
};

export const SOLC_SETTINGS = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: 'cancun',
  metadata: { bytecodeHash: 'none' },
  outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
} as const;

/** Compiles every source; an artifact is produced for each file's same-named deployable contract. */
export function compileContracts(): { artifacts: CompiledArtifact[]; warnings: string[] } {
  const files = readdirSync(contractsDir)
    .filter((f) => f.endsWith('.sol'))
    .sort();
  const sources: Record<string, { content: string }> = {};
  for (const file of files) sources[file] = { content: readFileSync(path.join(contractsDir, file), 'utf8') };

  const input = { language: 'Solidity', sources, settings: SOLC_SETTINGS };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as SolcOutput;
  const messages = output.errors ?? [];
  const errors = messages.filter((m) => m.severity === 'error');
  if (errors.length > 0) {
    throw new Error(`solc failed:\n${errors.map((e) => e.formattedMessage ?? e.message).join('\n')}`);
  }
  const warnings = messages
    .filter((m) => m.severity === 'warning')
    .map((m) => m.formattedMessage ?? m.message);

  const artifacts: CompiledArtifact[] = [];
  for (const file of files) {
    const contractName = path.basename(file, '.sol');
    const compiled = output.contracts?.[file]?.[contractName];
    if (!compiled || compiled.evm.bytecode.object.length === 0) continue; // interfaces
    // A library of internal functions is compiled into the contracts that use it: nothing to deploy.
    if (new RegExp(`\\blibrary\\s+${contractName}\\b`).test(sources[file]!.content)) continue;
    artifacts.push({ contractName, abi: compiled.abi, bytecode: `0x${compiled.evm.bytecode.object}` });
  }
  return { artifacts, warnings };
}

export function serializeArtifact(artifact: CompiledArtifact): string {
  const { contractName, abi, bytecode } = artifact;
  return `${JSON.stringify({ contractName, abi, bytecode }, null, 2)}\n`;
}

function main(): void {
  const check = process.argv.includes('--check');
  const { artifacts, warnings } = compileContracts();
  for (const warning of warnings) process.stderr.write(`${warning}\n`);

  if (check) {
    const problems: string[] = [];
    const expected = new Set<string>();
    for (const artifact of artifacts) {
      const file = `${artifact.contractName}.json`;
      expected.add(file);
      const target = path.join(artifactsDir, file);
      if (!existsSync(target)) problems.push(`missing devnet/artifacts/${file}`);
      else if (readFileSync(target, 'utf8') !== serializeArtifact(artifact)) {
        problems.push(`devnet/artifacts/${file} differs from a fresh compile`);
      }
    }
    if (existsSync(artifactsDir)) {
      for (const file of readdirSync(artifactsDir)) {
        if (file.endsWith('.json') && !expected.has(file)) {
          problems.push(`devnet/artifacts/${file} has no contract source`);
        }
      }
    }
    if (problems.length > 0) {
      process.stderr.write(
        `contracts:check failed: the committed artifacts do not match devnet/contracts.\n  ${problems.join('\n  ')}\n` +
          'Run `npm run contracts:compile` and commit devnet/artifacts.\n',
      );
      process.exit(1);
    }
    process.stdout.write(
      `contracts:check ok (${artifacts.length} artifacts up to date, solc ${solc.version()})\n`,
    );
    return;
  }

  mkdirSync(artifactsDir, { recursive: true });
  for (const artifact of artifacts) {
    writeFileSync(path.join(artifactsDir, `${artifact.contractName}.json`), serializeArtifact(artifact));
  }
  process.stdout.write(
    `compiled ${artifacts.map((a) => a.contractName).join(', ')} into devnet/artifacts (solc ${solc.version()})\n`,
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  try {
    main();
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
}
