import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../lib/config.js';
import { createLogger } from '../../lib/logger.js';
import { type RunningService, startService } from '../../service.js';
import { publishedPath } from '../../store/embedded.js';

/**
 * `npm run keys` as an operator runs it: a separate process, against the embedded store of a service
 * running on the same DATA_DIR (it crashed there with a bare `triggerUncaughtException … undefined`),
 * against its own embedded store once the service stopped, and every failure as one sentence, exit 1.
 */

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function keys(args: string[], env: Record<string, string>): Promise<Run> {
  const clean = { ...process.env };
  delete clean.DATABASE_URL;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'scripts/keys.ts', ...args],
      { env: { ...clean, ...env }, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** The one sentence of a failure: one line (the usage may follow it), ending with a full stop or `?`. */
function expectOneSentence(run: Run, pattern: RegExp) {
  expect(run.code).toBe(1);
  const first = run.stderr.split('\n')[0]!;
  expect(first).toMatch(pattern);
  expect(first).toMatch(/[.?]$/);
  expect(run.stderr).not.toMatch(/triggerUncaughtException|at .*\.ts:\d+|undefined$/m);
}

let dataDir: string;
let service: RunningService | undefined;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'keys-cli-'));
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    INTERNAL_TOKEN: 'test-internal-token-0123456789',
    INDEXER: 'off',
    LOG_LEVEL: 'silent',
  });
  service = await startService(config, { chains: [], logger: createLogger('silent') });
}, 120_000);

afterAll(async () => {
  await service?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('npm run keys', () => {
  let keyId = '';

  it('creates and lists keys while the service runs on its embedded store', async () => {
    expect(existsSync(publishedPath(dataDir))).toBe(true);
    const created = await keys(['create', '--env', 'test', '--label', 'cli test', '--write-limit', '30'], {
      DATA_DIR: dataDir,
    });
    expect(created.stderr).toContain('shown once');
    expect(created.code).toBe(0);
    const key = JSON.parse(created.stdout) as { key: string; keyId: string };
    keyId = key.keyId;
    expect(key.key).toMatch(/^svc_test_/);
    // The running service sees the key at once: it is the same store.
    const res = await fetch(`${service!.url}/v1/positions/0x${'0'.repeat(64)}`, {
      headers: { authorization: `Bearer ${key.key}` },
    });
    expect(res.status).not.toBe(401);
    // --write-limit is the key's agreed write bucket.
    const swap = await fetch(`${service!.url}/v1/swaps`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(swap.status).toBe(400);
    expect(swap.headers.get('ratelimit-policy')).toBe('write;w=60;limit=30');
    const listed = await keys(['list'], { DATA_DIR: dataDir });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(`${keyId}\ttest\tprepare\tactive\tprepare 6/min\twrite 30/min\tcli test`);
  });

  it('uses its own embedded store once the service stopped (the published URL is removed)', async () => {
    await service!.stop();
    service = undefined;
    expect(existsSync(publishedPath(dataDir))).toBe(false);
    const revoked = await keys(['revoke', keyId], { DATA_DIR: dataDir });
    expect(revoked.code).toBe(0);
    expect(revoked.stdout.trim()).toBe(`revoked ${keyId}`);
  });

  it('ignores a published URL whose process is gone', async () => {
    writeFileSync(
      publishedPath(dataDir),
      JSON.stringify({ url: 'postgres://postgres:x@127.0.0.1:1/gateway', pid: 2 ** 22 + 1 }),
    );
    const listed = await keys(['list'], { DATA_DIR: dataDir });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(`${keyId}\ttest\tprepare\trevoked\tprepare 6/min\twrite 30/min`);
  });

  it('says in one sentence what is wrong, and exits 1', async () => {
    const notADirectory = path.join(dataDir, 'a-file');
    writeFileSync(notADirectory, '');
    // One process each, run side by side: each costs a node start.
    const cases: Array<[string[], Record<string, string>, RegExp]> = [
      [[], { DATA_DIR: dataDir }, /^Name a command/],
      [['frobnicate'], { DATA_DIR: dataDir }, /^Unknown command "frobnicate"/],
      [['create'], { DATA_DIR: dataDir }, /^create needs --env test or --env live\.$/],
      [
        ['create', '--env', 'test', '--write-limit', 'lots'],
        { DATA_DIR: dataDir },
        /^--write-limit must be a whole number of writes per minute, not "lots"\.$/,
      ],
      [
        ['list'],
        { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' },
        /^Could not open the store at DATABASE_URL: .*ECONNREFUSED/,
      ],
      // A data directory under a regular file cannot be created.
      [
        ['list'],
        { DATA_DIR: `${notADirectory}/data` },
        /^Could not start the embedded store under DATA_DIR=.*ENOTDIR/,
      ],
      [
        ['list'],
        { DATA_DIR: dataDir, PORT: 'eighty' },
        /^The environment is not a valid configuration: PORT/,
      ],
    ];
    const runs = await Promise.all(cases.map(([args, env]) => keys(args, env)));
    for (const [i, run] of runs.entries()) expectOneSentence(run, cases[i]![2]);
  }, 120_000);
});
