/**
 * Where the anvil binary of this platform lives. `@foundry-rs/anvil` ships one optional package per
 * platform (`@foundry-rs/anvil-<platform>-<arch>`, with `amd64` for Node's `x64`); npm installs the one
 * that matches, and its own launcher (node_modules/@foundry-rs/anvil/bin.mjs) resolves it the same way.
 * We spawn the binary directly rather than through that launcher, so the pid we hold is anvil's.
 */
import { createRequire } from 'node:module';

/** Node's `process.platform` → `process.arch` → the package suffix, as @foundry-rs/anvil publishes them. */
const BUILDS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  linux: { x64: 'linux-amd64', arm64: 'linux-arm64' },
  darwin: { x64: 'darwin-amd64', arm64: 'darwin-arm64' },
  win32: { x64: 'win32-amd64' },
};

/** The platform package's name, or null when @foundry-rs/anvil publishes no build for it. */
export function anvilPackageFor(platform: string, arch: string): string | null {
  const suffix = BUILDS[platform]?.[arch];
  return suffix ? `@foundry-rs/anvil-${suffix}` : null;
}

function supportedList(): string {
  return Object.entries(BUILDS)
    .flatMap(([platform, arches]) => Object.keys(arches).map((arch) => `${platform}/${arch}`))
    .join(', ');
}

/**
 * The anvil executable for `platform`/`arch` (this process's by default). Throws one clear message
 * when no build exists for the platform, or when its package is not installed.
 */
export function anvilBinaryPath(
  platform: string = process.platform,
  arch: string = process.arch,
  resolve: (request: string) => string = createRequire(import.meta.url).resolve,
): string {
  const pkg = anvilPackageFor(platform, arch);
  if (!pkg) {
    throw new Error(
      `anvil: @foundry-rs/anvil publishes no build for ${platform}/${arch} (builds exist for ${supportedList()}); ` +
        'the devnet and the chain tests need one of those platforms',
    );
  }
  const binary = platform === 'win32' ? 'anvil.exe' : 'anvil';
  try {
    return resolve(`${pkg}/bin/${binary}`);
  } catch {
    throw new Error(
      `anvil: ${pkg} (the build for ${platform}/${arch}) is not installed; run \`npm ci\` (the lock lists every platform's build)`,
    );
  }
}
