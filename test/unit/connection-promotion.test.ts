import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { nvpField } from '../../bench/measure.js';
import { SERVER_NODE_FLAGS } from '../../bench/processes.js';

/**
 * A page of a list is garbage once its response is written: a young-generation collection must not
 * carry it into the old generation, where only a mark-compact (a pause of the whole process, what sets
 * the strategy list's p99) frees it. A getter written in an object literal did exactly that: V8 keeps
 * the literal's accessor pair in the old generation, and through its closure every page it was built
 * for, rows and all (~2.2 KB promoted per list request; resolvers/connection.ts LazyPageInfo).
 */
describe('a page built by pageConnection', () => {
  it('dies young: its rows are not promoted to the old generation', () => {
    const pages = 20_000;
    const out = execFileSync(
      process.execPath,
      [
        ...SERVER_NODE_FLAGS,
        '--trace-gc-nvp',
        '--import',
        'tsx',
        'test/helpers/pagePromotion.ts',
        String(pages),
      ],
      { encoding: 'utf8' },
    );
    expect(out).toContain(`pages ${pages} cursors ${pages}`);
    let promoted = 0;
    let scavenges = 0;
    const lines = out.split('\n');
    expect(lines).toContain('measuring');
    for (const line of lines.slice(lines.indexOf('measuring'))) {
      if (!line.includes(' gc=s ')) continue;
      scavenges++;
      promoted += nvpField(line, 'promoted');
    }
    // ~320 MB of pages in all: a hundred scavenges meet pages in the making.
    expect(scavenges).toBeGreaterThan(0);
    // A page holds ~16 KB of rows: a getter in an object literal promoted ~890 bytes of it per page here
    // (all of it, in the service), the class ~18.
    expect(promoted / pages).toBeLessThan(200);
  });
});
