import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { contractsDigest, contractsDigestPath, readSavedChains } from '../../devnet/persist.js';

/** A devnet's saved chains are restored only when they run these contracts (an upgrade reseeds them). */
describe('the saved devnet and its contracts', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'devnet-digest-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const manifest = path.join(dir, 'manifest.json');
  writeFileSync(
    manifest,
    JSON.stringify({
      chains: [
        {
          key: 'base',
          rpcUrls: ['http://127.0.0.1:1'],
          feeReceiver: '0x0000000000000000000000000000000000000fee',
        },
      ],
    }),
  );

  it('restores nothing without the digest of the contracts that deployed them (a data dir of an older run)', () => {
    expect(readSavedChains(manifest)).toEqual([]);
  });

  it('restores nothing when they were deployed from other contracts', () => {
    writeFileSync(contractsDigestPath(manifest), `${'0'.repeat(64)}\n`);
    expect(readSavedChains(manifest)).toEqual([]);
  });

  it('restores the chains deployed from these contracts', () => {
    writeFileSync(contractsDigestPath(manifest), `${contractsDigest()}\n`);
    expect(readSavedChains(manifest).map((c) => c.key)).toEqual(['base']);
  });
});
