import pino from 'pino';
import pretty from 'pino-pretty';
import { BatchedLines } from './logDestination.js';

export type Logger = pino.Logger;

export interface LoggerOptions {
  /**
   * Human-readable lines (pino-pretty) instead of JSON. Default: when stdout is a terminal, so an
   * operator running `npm start` reads logs, and a collector (pipe, file, container) gets JSON.
   */
  pretty?: boolean;
}

/**
 * Structured logs. Secrets never reach a log line: the redaction list covers every place a key,
 * token or metadata map could appear in a logged object.
 */
export function createLogger(
  level: pino.LevelWithSilent = 'info',
  name = 'gateway',
  options: LoggerOptions = {},
): Logger {
  const settings: pino.LoggerOptions = {
    name,
    level,
    redact: {
      paths: [
        'authorization',
        'req.headers.authorization',
        'headers.authorization',
        'key',
        'apiKey',
        'secret',
        'token',
        'internalToken',
        'metadata',
        '*.metadata',
        'privateKey',
      ],
      censor: '[redacted]',
    },
  };
  const human = options.pretty ?? (process.stdout.isTTY === true && level !== 'silent');
  // Synchronous, in this thread: a terminal is read by a person, not under load. One line per entry, its
  // fields on it as JSON (an error's stack still below it): a field per line made each entry 5-8 lines.
  if (human)
    return pino(
      settings,
      pretty({ sync: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', singleLine: true }),
    );
  return pino(settings, jsonDestination());
}

let shared: BatchedLines | undefined;

/** JSON lines go to stdout in batches (lib/logDestination.ts), one destination per process. */
function jsonDestination(): BatchedLines {
  shared ??= new BatchedLines(1);
  return shared;
}
