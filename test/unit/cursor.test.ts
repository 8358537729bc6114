import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, isTimestampText } from '../../resolvers/catalogue/cursor.js';
import { seeds } from '../helpers/seeds.js';

const HASH = `0x${'0f'.repeat(32)}`;

describe('isTimestampText', () => {
  it('takes what Postgres writes for a timestamptz', () => {
    for (const text of [
      '2025-06-01 00:06:00+00',
      '2025-06-01 00:06:00.123456+00',
      '2025-06-01T00:06:00.1Z',
      '2024-02-29 23:59:59+05:30',
      '0001-01-01 00:00:00-15:59',
      '9999-12-31 23:59:59+15',
    ])
      expect({ text, ok: isTimestampText(text) }).toEqual({ text, ok: true });
  });

  it('refuses what Postgres would refuse or roll over', () => {
    for (const text of [
      '2024-02-30 00:00:00+00',
      '2023-02-29 00:00:00+00',
      '2024-04-31 00:00:00+00',
      '2024-00-10 00:00:00+00',
      '2024-13-10 00:00:00+00',
      '2024-01-00 00:00:00+00',
      '0000-01-01 00:00:00+00',
      '2024-01-01 24:00:00+00',
      '2024-01-01 00:60:00+00',
      '2024-01-01 23:59:60+00',
      '2024-01-01 00:00:00+16',
      '2024-01-01 00:00:00+05:60',
      '2024-01-01 00:00:00.1234567+00',
      '2024-01-01 00:00:00',
      '20240-01-01 00:00:00+00',
      '2024-01-01 00:00:00+00\u0000',
    ])
      expect({ text, ok: isTimestampText(text) }).toEqual({ text, ok: false });
  });

  it.each(seeds())('agrees with the calendar on every date (seed %i)', (seed) => {
    fc.assert(
      fc.property(
        fc.date({
          min: new Date('0001-01-01T00:00:00Z'),
          max: new Date('9999-12-31T23:59:59Z'),
          noInvalidDate: true,
        }),
        (date) => {
          const text = date.toISOString().replace('T', ' ').replace('Z', '+00');
          expect(isTimestampText(text)).toBe(true);
        },
      ),
      { seed },
    );
  });
});

describe('decodeCursor', () => {
  it.each(seeds())('reads back exactly what it encoded (seed %i)', (seed) => {
    fc.assert(
      fc.property(
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        fc.constantFrom('base', 'arc'),
        (value, chain) => {
          const position = { value, hash: HASH, chain };
          // JSON has no -0: it comes back as 0.
          expect(decodeCursor(encodeCursor('volume', position), 'volume')).toEqual({
            ...position,
            value: value || 0,
          });
        },
      ),
      { seed },
    );
  });

  it('refuses any other spelling of the same position, naming cursor', () => {
    const json = JSON.stringify(['v', 5, HASH, 'base']);
    for (const text of [
      ` ${json}`,
      json.replace('5', '5.0'),
      json.replace('5', '5e0'),
      json.replace('"base"', '"b\\u0061se"'),
    ]) {
      expect(() => decodeCursor(Buffer.from(text).toString('base64url'), 'volume')).toThrow(
        expect.objectContaining({ code: 'INVALID_PARAMETER', parameter: 'cursor' }),
      );
    }
  });
});
