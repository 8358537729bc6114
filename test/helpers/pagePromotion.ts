/**
 * Builds `pages` strategy-list-like pages with `pageConnection` (21 rows of ~700 characters each, the
 * shape of a list page) and reads each page's next cursor as the REST list does, keeping none. Run by
 * test/unit/connection-promotion.test.ts under `--trace-gc-nvp`, which counts the bytes the young
 * generation's collections promoted meanwhile, after a warm-up of 5,000 pages (the line `measuring`).
 *   node --trace-gc-nvp --import tsx test/helpers/pagePromotion.ts <pages>
 */
import { nextCursorOf, pageConnection } from '../../resolvers/connection.js';

const pages = Number(process.argv[2] ?? 20_000);
const LIMIT = 20;
let cursors = 0;

function build(p: number): void {
  const rows = Array.from({ length: LIMIT + 1 }, (_, i) => ({
    hash: `0x${p.toString(16).padStart(8, '0')}${i.toString(16).padStart(56, '0')}`,
    entry: `{"hash":"${p}-${i}",${'"field":"value",'.repeat(40)}"end":true}`,
  }));
  const connection = pageConnection(rows, LIMIT, (row) => Buffer.from(row.hash).toString('base64url'));
  if (nextCursorOf(connection.pageInfo) !== null) cursors++;
}

// Start-up promotes what the process keeps (modules, compiled code): counted from this line on only.
for (let p = 0; p < 5_000; p++) build(p);
process.stdout.write('measuring\n');
cursors = 0;
for (let p = 0; p < pages; p++) build(p);
process.stdout.write(`pages ${pages} cursors ${cursors}\n`);
