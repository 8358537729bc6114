/**
 * `npm run bench:logs`: what one access-log line costs the process that writes it, by destination
 * (lib/logDestination.ts explains the choice). A child process logs the access line of a request
 * (the fields of lib/metrics.ts `requestObserver`, built by lib/accessLog.ts as the service does) to
 * its stdout, a pipe this process drains as a log shipper would, through:
 *   sonic-boom, sync      pino's default destination: a write(2) per line
 *   sonic-boom, 4 KB      pino.destination({ sync: false, minLength: 4096 })
 *   batched (ours)        BatchedLines: held in an array, joined and written per 16 K characters
 *   discarded             a destination that drops the line: the cost of building it
 * and the same line built by pino's generic path (`logger.info(fields, 'request')` on a child without
 * the redaction pass, what the service did before lib/accessLog.ts):
 *   batched, pino.info    into BatchedLines
 *   discarded, pino.info  dropped
 * in 20 interleaved rounds of 20,000 lines (an event-loop turn every 10 lines, as requests give), and
 * reports each one's CPU (user + system) per line: the lowest round and the median.
 *   BENCH_ROUNDS (20), BENCH_LINES (20000). Writes bench/results/log-lines.json.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { type AccessFields, accessLogWriter } from '../lib/accessLog.js';
import { BatchedLines } from '../lib/logDestination.js';
import { machine, median, writeResult } from './measure.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);
const LINES = Number(process.env.BENCH_LINES ?? 20_000);

type Results = Record<string, number[]>;

async function measure(): Promise<Results> {
  const settings: pino.LoggerOptions = {
    name: 'gateway',
    level: 'info',
    redact: { paths: ['key', 'metadata'], censor: '[redacted]' },
  };
  const destinations: Record<string, pino.DestinationStream> = {
    'sonic-boom, sync': pino.destination({ dest: 1, sync: true }),
    'sonic-boom, 4 KB': pino.destination({ dest: 1, sync: false, minLength: 4096 }),
    'batched (ours)': new BatchedLines(1),
    discarded: { write: () => {} },
  };
  const fields: AccessFields = {
    method: 'GET',
    route: '/api/stats',
    status: 200,
    durationMs: 0.123,
    requestId: '0b7c9f0e-8c1d-4a7e-9f45-1a2b3c4d5e6f',
    bucket: 'stats',
  };
  const viaPino = (destination: pino.DestinationStream) => {
    const logger = pino(settings, destination).child({}, { redact: { paths: [] } });
    return () => logger.info({ ...fields }, 'request');
  };
  const writers: Array<readonly [string, () => void]> = [
    ...Object.entries(destinations).map(([name, destination]) => {
      const write = accessLogWriter(pino(settings, destination));
      return [name, () => write({ ...fields })] as const;
    }),
    ['batched, pino.info', viaPino(new BatchedLines(1))],
    ['discarded, pino.info', viaPino({ write: () => {} })],
  ];
  const results: Results = Object.fromEntries(writers.map(([name]) => [name, []]));
  const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, write] of writers) {
      const before = process.cpuUsage();
      for (let i = 0; i < LINES; i++) {
        write();
        if (i % 10 === 9) await turn();
      }
      const used = process.cpuUsage(before);
      results[name]!.push((used.user + used.system) / LINES);
    }
  }
  return results;
}

if (process.argv[2] === 'child') {
  const results = await measure();
  process.stderr.write(`${JSON.stringify(results)}\n`);
  process.exit(0);
}

const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), 'child'], {
  stdio: ['ignore', 'pipe', 'pipe'],
});
let lines = 0;
child.stdout.on('data', (chunk: Buffer) => {
  for (const byte of chunk) if (byte === 10) lines++;
});
let err = '';
child.stderr.on('data', (chunk: Buffer) => {
  err += chunk.toString();
});
const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
if (code !== 0) throw new Error(`child exited with ${code}: ${err}`);
const results = JSON.parse(err.trim().split('\n').pop()!) as Results;
const table = Object.entries(results).map(([destination, perLine]) => ({
  destination,
  'µs/line (lowest round)': Number(Math.min(...perLine).toFixed(2)),
  'µs/line (median)': Number(median(perLine).toFixed(2)),
}));
console.log(
  `access-log line, CPU of the writing process per line; ${ROUNDS} interleaved rounds of ${LINES} lines; stdout a pipe drained by this process (${lines} lines read)`,
);
console.table(table);
const file = writeResult('log-lines', {
  when: new Date().toISOString(),
  machine: machine(),
  method: { rounds: ROUNDS, lines: LINES, statistic: 'CPU (user + system) per line per round' },
  table,
  results,
});
console.log(`written ${file}`);
