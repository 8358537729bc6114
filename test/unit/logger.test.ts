/**
 * The JSON log lines are written in batches (lib/logger.ts): what a log collector reading the service's
 * stdout must still get. A child process per case, its stdout a pipe as under a container runtime.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Runs `body` (after `const logger = createLogger('info')`) in a child; resolves with its stdout lines as they come. */
function child(body: string) {
  const script = `import { createLogger } from './lib/logger.ts';\nconst logger = createLogger('info');\n${body}`;
  const proc = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: { at: number; entry: Record<string, unknown> }[] = [];
  let rest = '';
  proc.stdout.on('data', (chunk: Buffer) => {
    const text = rest + chunk.toString();
    const parts = text.split('\n');
    rest = parts.pop()!;
    for (const part of parts) if (part) lines.push({ at: Date.now(), entry: JSON.parse(part) });
  });
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  // 'close' comes after the process exited and its stdio streams ended: every byte it wrote was read.
  const closed = new Promise<void>((resolve) => proc.once('close', () => resolve()));
  return { proc, lines, exited, closed };
}

describe('JSON log lines (stdout is a pipe)', () => {
  it('reach the reader at a quiet time while the process runs, not only when it exits', async () => {
    const { proc, lines, exited } = child(
      `setTimeout(() => logger.info({ n: 1 }, 'alone'), 300);\nsetTimeout(() => {}, 30_000);`,
    );
    try {
      const deadline = Date.now() + 15_000;
      while (!lines.some((l) => l.entry.msg === 'alone') && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 20));
      expect(lines.map((l) => l.entry.msg)).toEqual(['alone']);
      expect(proc.exitCode).toBeNull();
    } finally {
      proc.kill('SIGKILL');
      await exited;
    }
  }, 20_000);

  it('are all written when the process exits at once after logging them', async () => {
    const { lines, exited, closed } = child(
      `for (let i = 0; i < 5000; i++) logger.info({ i }, 'line');\nprocess.exit(3);`,
    );
    expect(await exited).toBe(3);
    await closed;
    expect(lines).toHaveLength(5000);
    expect(lines.map((l) => l.entry.i)).toEqual(Array.from({ length: 5000 }, (_, i) => i));
  }, 20_000);

  it('are dropped with a note on stderr, not a crash, once the reader is gone', async () => {
    const { proc, lines, exited } = child(
      `logger.info('first');\nsetTimeout(() => {\n  for (let i = 0; i < 2000; i++) logger.info({ i }, 'after');\n  setTimeout(() => { process.stderr.write('still serving\\n'); process.exit(0); }, 300);\n}, 1000);`,
    );
    let stderr = '';
    proc.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const deadline = Date.now() + 10_000;
    while (lines.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(lines.map((l) => l.entry.msg)).toEqual(['first']);
    proc.stdout.destroy();
    expect(await exited).toBe(0);
    expect(stderr).toContain('log lines dropped');
    expect(stderr).toContain('EPIPE');
    expect(stderr).toContain('still serving');
  }, 20_000);

  it('keep the last line before a crash', async () => {
    const { lines, exited, closed } = child(
      `logger.info({ step: 'before' }, 'working');\nsetImmediate(() => { throw new Error('boom'); });`,
    );
    expect(await exited).not.toBe(0);
    await closed;
    expect(lines.map((l) => l.entry.step)).toEqual(['before']);
  }, 20_000);
});
