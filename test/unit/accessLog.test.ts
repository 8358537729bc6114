/**
 * The access-log line is built by hand (lib/accessLog.ts): it must be the line pino itself would write
 * for the same fields, so that a collector parsing the service's logs sees no difference.
 */
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type AccessFields, accessLogWriter } from '../../lib/accessLog.js';
import { BatchedLines } from '../../lib/logDestination.js';

function capture(level: pino.Level = 'info') {
  const lines: string[] = [];
  const logger = pino({ name: 'gateway', level }, { write: (line: string) => lines.push(line) });
  return { logger, lines };
}

const fields: AccessFields = {
  method: 'GET',
  route: '/v1/positions/:positionId',
  status: 401,
  durationMs: 1.234,
  requestId: 'client:42/a.b_c',
  bucket: 'positions',
};

describe('accessLogWriter', () => {
  it("writes the line pino's logger.info(fields, 'request') writes, key for key and in order", () => {
    const ours = capture();
    const theirs = capture();
    const before = Date.now();
    accessLogWriter(ours.logger)(fields);
    theirs.logger.info({ ...fields }, 'request');
    const after = Date.now();
    expect(ours.lines).toHaveLength(1);
    const [a, b] = [JSON.parse(ours.lines[0]!), JSON.parse(theirs.lines[0]!)];
    // Both stamped with the clock of the moment they were written (pino's epoch ms).
    for (const time of [a.time, b.time]) {
      expect(time).toBeGreaterThanOrEqual(before);
      expect(time).toBeLessThanOrEqual(after);
    }
    expect({ ...a, time: 0 }).toEqual({ ...b, time: 0 });
    expect(Object.keys(a)).toEqual(Object.keys(b));
    expect(ours.lines[0]!.endsWith('}\n')).toBe(true);
  });

  it("carries a child logger's bindings, omits absent fields and escapes a request id", () => {
    const { logger, lines } = capture();
    const write = accessLogWriter(logger.child({ component: 'http' }));
    write({ method: 'POST', route: 'unmatched', status: 404, durationMs: 0.5, requestId: 'a"b\\c' });
    const line = JSON.parse(lines[0]!);
    expect(line).toMatchObject({ component: 'http', name: 'gateway', requestId: 'a"b\\c', status: 404 });
    expect('bucket' in line).toBe(false);
  });

  it('writes nothing when info is not enabled, and follows a level changed at run time', () => {
    const { logger, lines } = capture('warn');
    const write = accessLogWriter(logger);
    write(fields);
    expect(lines).toHaveLength(0);
    logger.level = 'info';
    write(fields);
    expect(lines).toHaveLength(1);
  });

  it("writes the health probes' lines at debug, as pino's logger.debug(fields, 'request') would", () => {
    const probes = ['/healthz', '/readyz', '/livez'].map((route) => ({ ...fields, route, status: 200 }));
    const atInfo = capture('info');
    const write = accessLogWriter(atInfo.logger);
    for (const probe of probes) write(probe);
    // Nothing at info: a poll every few seconds neither fills a collector nor scrolls a terminal…
    expect(atInfo.lines).toHaveLength(0);
    // …while every other route keeps its info line, a look-alike raw path included.
    write({ ...fields, route: '/api/stats' });
    write({ ...fields, route: 'unmatched' });
    expect(atInfo.lines.map((l) => JSON.parse(l).level)).toEqual([30, 30]);

    const ours = capture('debug');
    const theirs = capture('debug');
    for (const probe of probes) {
      accessLogWriter(ours.logger)(probe);
      theirs.logger.debug({ ...probe }, 'request');
    }
    expect(ours.lines).toHaveLength(3);
    for (const [i, line] of ours.lines.entries()) {
      const [a, b] = [JSON.parse(line), JSON.parse(theirs.lines[i]!)];
      expect(a.level).toBe(20);
      expect({ ...a, time: 0 }).toEqual({ ...b, time: 0 });
      expect(Object.keys(a)).toEqual(Object.keys(b));
    }
  });

  it("on the service's batched destination, builds the held line when the batch is written, in order", () => {
    const dir = mkdtempSync(join(tmpdir(), 'access-log-'));
    const fd = openSync(join(dir, 'log'), 'w');
    try {
      const destination = new BatchedLines(fd);
      const logger = pino({ name: 'gateway' }, destination);
      const write = accessLogWriter(logger);
      vi.useFakeTimers({ now: 1_700_000_000_000, toFake: ['Date'] });
      logger.info({ step: 1 }, 'before');
      write(fields);
      // The line's time is the request's, not the batch's.
      vi.setSystemTime(1_700_000_005_000);
      logger.info({ step: 2 }, 'after');
      const theirs = capture();
      theirs.logger.info({ ...fields }, 'request');
      // Nothing is written before the batch is.
      expect(readFileSync(join(dir, 'log'), 'utf8')).toBe('');
      destination.flushSync();
      const lines = readFileSync(join(dir, 'log'), 'utf8')
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(lines.map((l) => l.msg)).toEqual(['before', 'request', 'after']);
      const expected = JSON.parse(theirs.lines[0]!);
      expect({ ...lines[1], time: 0, pid: 0, hostname: '' }).toEqual({
        ...expected,
        time: 0,
        pid: 0,
        hostname: '',
      });
      expect(Object.keys(lines[1])).toEqual(Object.keys(expected));
      expect(lines.map((l) => l.time)).toEqual([1_700_000_000_000, 1_700_000_000_000, 1_700_000_005_000]);
    } finally {
      closeSync(fd);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('writes held lines once a batch is full, without waiting for the interval', () => {
    const dir = mkdtempSync(join(tmpdir(), 'access-log-'));
    const fd = openSync(join(dir, 'log'), 'w');
    try {
      const write = accessLogWriter(pino({ name: 'gateway' }, new BatchedLines(fd)));
      // A batch is 16 K characters; a held line counts 256 of them.
      for (let i = 0; i < 63; i++) write({ ...fields, status: 200 });
      expect(readFileSync(join(dir, 'log'), 'utf8')).toBe('');
      write({ ...fields, status: 200 });
      const lines = readFileSync(join(dir, 'log'), 'utf8').trimEnd().split('\n');
      expect(lines).toHaveLength(64);
      expect(lines.every((l) => JSON.parse(l).status === 200)).toBe(true);
    } finally {
      closeSync(fd);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

afterEach(() => {
  vi.useRealTimers();
});
