/**
 * `npm run bench:devnet`: start-to-ready of the in-process devnet (three anvil chains started,
 * contracts deployed, makers, strategies, swaps and docks seeded, manifest written), median of 5 runs.
 * Writes bench/results/devnet.json.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { startDevnet } from '../devnet/devnet.js';
import { median } from './measure.js';

const RUNS = 5;
const TARGET_MS = 5000;
const BASE_PORT = Number(process.env.BENCH_DEVNET_PORT ?? 18945);

interface Run {
  run: number;
  readyMs: number;
  anvilMs: number;
  seedMs: number;
  stopMs: number;
}

const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-devnet-'));
const runs: Run[] = [];
try {
  for (let run = 1; run <= RUNS; run++) {
    const phases: { anvilMs?: number; seedMs?: number } = {};
    const logger = pino(
      { level: 'info' },
      {
        write(line: string) {
          const entry = JSON.parse(line) as { anvilMs?: number; seedMs?: number };
          if (entry.anvilMs !== undefined) Object.assign(phases, entry);
        },
      },
    );
    const started = performance.now();
    // A long activity interval: the bot must not compete with the next run's start.
    const devnet = await startDevnet({ basePort: BASE_PORT, dataDir, activityMs: 60_000, logger });
    const readyMs = performance.now() - started;
    const stopping = performance.now();
    await devnet.stop();
    runs.push({
      run,
      readyMs: Math.round(readyMs),
      anvilMs: phases.anvilMs ?? Number.NaN,
      seedMs: phases.seedMs ?? Number.NaN,
      stopMs: Math.round(performance.now() - stopping),
    });
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}

const medianReadyMs = median(runs.map((r) => r.readyMs));
const result = {
  benchmark: 'devnet start-to-ready (in-process startDevnet: 3 anvil chains deployed and seeded)',
  runs,
  medianReadyMs,
  medianAnvilMs: median(runs.map((r) => r.anvilMs)),
  medianSeedMs: median(runs.map((r) => r.seedMs)),
  targetMs: TARGET_MS,
  pass: medianReadyMs <= TARGET_MS,
  machine: { node: process.version, cpus: cpus().length },
  measuredAt: new Date().toISOString(),
};

console.log('devnet start-to-ready (ms)');
console.log('run  ready  anvils  seed  stop');
for (const r of runs) {
  console.log(
    `${String(r.run).padStart(3)}  ${String(r.readyMs).padStart(5)}  ${String(r.anvilMs).padStart(6)}  ${String(r.seedMs).padStart(4)}  ${String(r.stopMs).padStart(4)}`,
  );
}
console.log(
  `median ready ${medianReadyMs} ms (anvils ${result.medianAnvilMs} ms, seed ${result.medianSeedMs} ms); ` +
    `target ≤ ${TARGET_MS} ms: ${result.pass ? 'PASS' : 'FAIL'}`,
);

const resultsDir = fileURLToPath(new URL('./results/', import.meta.url));
mkdirSync(resultsDir, { recursive: true });
writeFileSync(path.join(resultsDir, 'devnet.json'), `${JSON.stringify(result, null, 2)}\n`);
if (!result.pass) process.exitCode = 1;
