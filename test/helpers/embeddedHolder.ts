/**
 * A gateway stand-in for test/integration/embedded-restart.test.ts: starts the embedded PostgreSQL on
 * the data directory given, writes one row, prints `{"url":…,"pid":…}` (pid: the postmaster's) as one
 * line and runs until it is killed.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { createLogger } from '../../lib/logger.js';
import { startEmbeddedPostgres } from '../../store/embedded.js';

const dataDir = process.argv[2]!;
const database = await startEmbeddedPostgres({ dataDir, logger: createLogger('silent') });
const client = new pg.Client({ connectionString: database.url });
await client.connect();
await client.query('CREATE TABLE IF NOT EXISTS kept (v text)');
await client.query("INSERT INTO kept VALUES ('written before the kill')");
await client.end();
const pid = Number(readFileSync(join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
process.stdout.write(`${JSON.stringify({ url: database.url, pid })}\n`);
setInterval(() => {}, 1 << 30);
