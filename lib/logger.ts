import pino from 'pino';

export type Logger = pino.Logger;

/**
 * Structured logs. Secrets never reach a log line: the redaction list covers every place a key,
 * token or metadata map could appear in a logged object.
 */
export function createLogger(level: pino.LevelWithSilent = 'info', name = 'gateway'): Logger {
  return pino({
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
  });
}
