import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { anvilBinaryPath, anvilPackageFor } from '../../devnet/anvilBinary.js';

describe('anvil binary per platform', () => {
  it("maps Node's platform and arch to @foundry-rs/anvil's build packages", () => {
    expect(anvilPackageFor('linux', 'x64')).toBe('@foundry-rs/anvil-linux-amd64');
    expect(anvilPackageFor('linux', 'arm64')).toBe('@foundry-rs/anvil-linux-arm64');
    expect(anvilPackageFor('darwin', 'x64')).toBe('@foundry-rs/anvil-darwin-amd64');
    expect(anvilPackageFor('darwin', 'arm64')).toBe('@foundry-rs/anvil-darwin-arm64');
    expect(anvilPackageFor('win32', 'x64')).toBe('@foundry-rs/anvil-win32-amd64');
    for (const [platform, arch] of [
      ['win32', 'arm64'],
      ['linux', 'ia32'],
      ['freebsd', 'x64'],
      ['linux', 'amd64'], // Node says x64, never amd64
    ] as const) {
      expect(anvilPackageFor(platform, arch), `${platform}/${arch}`).toBeNull();
    }
  });

  it("resolves this platform's installed binary, and the package's bin path elsewhere", () => {
    const here = anvilBinaryPath();
    expect(existsSync(here)).toBe(true);
    expect(here).toMatch(/@foundry-rs\/anvil-[a-z0-9]+-[a-z0-9]+\/bin\/anvil$/);

    const asked: string[] = [];
    const resolve = (request: string) => {
      asked.push(request);
      return `/nm/${request}`;
    };
    expect(anvilBinaryPath('darwin', 'arm64', resolve)).toBe('/nm/@foundry-rs/anvil-darwin-arm64/bin/anvil');
    expect(anvilBinaryPath('win32', 'x64', resolve)).toBe('/nm/@foundry-rs/anvil-win32-amd64/bin/anvil.exe');
    expect(asked).toHaveLength(2);
  });

  it('says in one message when no build exists for the platform, or when it is not installed', () => {
    expect(() => anvilBinaryPath('freebsd', 'x64')).toThrow(
      /anvil: @foundry-rs\/anvil publishes no build for freebsd\/x64 \(builds exist for linux\/x64, linux\/arm64, darwin\/x64, darwin\/arm64, win32\/x64\)/,
    );
    const missing = () => {
      throw new Error('Cannot find module');
    };
    expect(() => anvilBinaryPath('linux', 'arm64', missing)).toThrow(
      /anvil: @foundry-rs\/anvil-linux-arm64 \(the build for linux\/arm64\) is not installed; run `npm ci`/,
    );
  });
});
