import { spawnSync } from 'node:child_process';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { PrecompressedPrefix } from '../../rest/precompressed.js';

/** rest/precompressed.ts: a once-compressed prefix plus a per-request suffix is one valid gzip / br body. */
const data = JSON.stringify({
  rows: Array.from({ length: 200 }, (_, i) => ({ i, pair: `T${i}/USDC`, note: 'é✓'.repeat(i % 3) })),
});
const prefix = new PrecompressedPrefix(`{"data":${data}`);

describe('PrecompressedPrefix', () => {
  const suffixes = [
    ',"meta":{"requestId":"8f14e45f-ceea-467a-9af0-2d2c3b1b0f39","cached":true}}',
    ',"ü":"✓"}',
    '}',
    'x'.repeat(65_535),
  ];
  for (const suffix of suffixes) {
    it(`decodes to prefix + suffix (${Buffer.byteLength(suffix)} bytes of suffix)`, () => {
      const text = `{"data":${data}${suffix}`;
      const gzip = prefix.encode('gzip', suffix)!;
      const br = prefix.encode('br', suffix)!;
      expect(gunzipSync(gzip).toString()).toBe(text);
      expect(brotliDecompressSync(br).toString()).toBe(text);
      if (suffix.length < 1000) {
        expect(gzip.length).toBeLessThan(Buffer.byteLength(text) / 3);
        expect(br.length).toBeLessThan(Buffer.byteLength(text) / 3);
      }
    });
  }

  it('declines a suffix one block cannot carry, and an empty one', () => {
    expect(prefix.encode('gzip', 'x'.repeat(65_536))).toBeUndefined();
    expect(prefix.encode('br', '')).toBeUndefined();
  });

  it('is read by gzip(1) too (zlib outside node), when installed', () => {
    const suffix = ',"meta":{"requestId":"r"}}';
    const gunzip = spawnSync('gzip', ['-dc'], { input: prefix.encode('gzip', suffix)! });
    if (gunzip.error) return;
    expect(gunzip.status).toBe(0);
    expect(gunzip.stdout.toString()).toBe(`{"data":${data}${suffix}`);
  });
});
