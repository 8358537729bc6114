/**
 * Requests/s of a fixed-body GET behind the real conventions middleware (request id,
 * rate limit, headers) against an express 5 hello-world and bare node:http returning the same bytes,
 * one run, same machine. Target: ≥ 0.9× express. Runs the service on its in-memory store and, when
 * REDIS_URL is set, again with Redis counters.
 *   npm run bench:conventions
 */
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase } from '../test/helpers/postgres.js';
import { type LoadResult, load } from './lib.js';
import { printTable, writeResult } from './measure.js';
import { freePort, spawnReady } from './processes.js';

const body = JSON.stringify({ data: { ok: true, message: 'fixed body of the conventions bench' }, meta: {} });
const bodyFile = join(tmpdir(), 'gw-bench-body.json');
writeFileSync(bodyFile, body);
const duration = Number(process.env.BENCH_SECONDS ?? 8);

const rows: LoadResult[] = [];
const database = await createTestDatabase();
try {
  for (const kind of ['express', 'http'] as const) {
    const port = await freePort();
    const server = await spawnReady('bench/servers/hello.ts', [kind, String(port), bodyFile]);
    await load('warm-up', `http://127.0.0.1:${port}/`, { duration: 2 });
    rows.push(
      await load(
        kind === 'express' ? 'express 5 hello-world' : 'bare node:http',
        `http://127.0.0.1:${port}/`,
        { duration },
      ),
    );
    await server.stop();
  }
  const variants: Array<[string, Record<string, string>]> = [['conventions (memory counters)', {}]];
  if (process.env.REDIS_URL)
    variants.push(['conventions (Redis counters)', { REDIS_URL: process.env.REDIS_URL }]);
  for (const [name, env] of variants) {
    const port = await freePort();
    const server = await spawnReady('bench/servers/conventions.ts', [String(port), bodyFile], {
      DATABASE_URL: database.url,
      REDIS_PREFIX: `bench:${Date.now()}:`,
      ...env,
    });
    await load('warm-up', `http://127.0.0.1:${port}/bench/fixed`, { duration: 2 });
    rows.push(await load(name, `http://127.0.0.1:${port}/bench/fixed`, { duration }));
    await server.stop();
  }
} finally {
  await database.drop();
}

const express = rows.find((r) => r.name.startsWith('express'))!.requestsPerSec;
const http = rows.find((r) => r.name.startsWith('bare'))!.requestsPerSec;
printTable(rows, { express, 'node:http': http });
const ours = rows.filter((r) => r.name.startsWith('conventions'));
for (const r of ours) {
  const ratio = r.requestsPerSec / express;
  console.log(`${r.name}: ${ratio.toFixed(2)}× express (target ≥ 0.90) ${ratio >= 0.9 ? 'MET' : 'MISSED'}`);
}
console.log(`written ${writeResult('conventions', { rows, target: '>= 0.9x express' })}`);
