/**
 * The parts of webhook delivery that need no chain: which addresses are refused (SSRF), that a request
 * goes to the address checked whatever the host name says (DNS rebinding), sealed secrets, the retry
 * schedule's syntax.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newSecret, openSecret, sealSecret } from '../../delivery/secrets.js';
import { postSigned } from '../../delivery/send.js';
import { checkTarget, forbiddenAddress } from '../../delivery/ssrf.js';
import { parseRetrySchedule } from '../../lib/configValues.js';
import { type Receiver, startReceiver, verified } from '../helpers/webhookReceiver.js';

describe('forbiddenAddress', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.5.4', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'linkLocal'],
    ['fc00::1', 'uniqueLocal'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:192.168.0.1', 'private'],
    // IPv4-compatible (deprecated), site-local (deprecated), NAT64, documentation, 6to4, ORCHID: not global.
    ['::7f00:1', 'not global unicast'],
    ['fec0::1', 'not global unicast'],
    ['64:ff9b::a00:1', 'rfc6052'],
    ['2001:db8::1', 'reserved'],
    ['2002:c0a8:101::1', '6to4'],
    ['2001:20::1', 'orchid2'],
    ['2001:2:0:1::1', 'benchmarking'],
    ['2001:0:4136:e378::1', 'teredo'],
    ['2001:100::1', 'reserved'],
    ['3fff::1', 'special-purpose'],
    ['198.51.100.7', 'reserved'],
  ])('refuses %s (%s)', (address, range) => {
    expect(forbiddenAddress(address)).toBe(range);
  });

  it.each(['1.1.1.1', '93.184.216.34', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('allows %s', (address) => {
    expect(forbiddenAddress(address)).toBeNull();
  });

  it('refuses a host name with a forbidden address, naming the parameter', async () => {
    await expect(
      checkTarget(new URL('https://localhost/x'), {
        allowPrivate: false,
        allowHttp: false,
        timeoutMs: 5_000,
      }),
    ).rejects.toMatchObject({ code: 'INVALID_PARAMETER', parameter: 'url' });
  });
});

describe('postSigned', () => {
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver.stop();
  });

  it('connects to the checked address, not to what the host name resolves to (DNS rebinding)', async () => {
    const port = new URL(receiver.url).port;
    const secret = newSecret();
    const result = await postSigned(
      // `.invalid` never resolves (RFC 2606): only the pinned address can be reached.
      { url: new URL(`http://rebind.invalid:${port}/hook`), address: '127.0.0.1', family: 4 },
      { id: 'msg_0123456789abcdef0123456789abcdef', body: '{"type":"position.shipped"}', secrets: [secret] },
      2000,
    );
    expect(result).toMatchObject({ statusCode: 200, error: null });
    expect(receiver.received.at(-1)!.headers.host).toBe(`rebind.invalid:${port}`);
    expect(verified(secret, receiver.received.at(-1)!)).toEqual({ type: 'position.shipped' });
  });

  it('counts a non-2xx answer and a silent receiver as failed attempts', async () => {
    const target = { url: new URL(receiver.url), address: '127.0.0.1', family: 4 as const };
    const message = { id: 'msg_0123456789abcdef0123456789abcdef', body: '{}', secrets: [newSecret()] };
    receiver.answer = 503;
    expect(await postSigned(target, message, 2000)).toMatchObject({
      statusCode: 503,
      error: 'the receiver answered HTTP 503',
    });
    receiver.answer = 'hang';
    expect(await postSigned(target, message, 300)).toMatchObject({
      statusCode: null,
      error: 'no answer within 300 ms',
    });
    receiver.answer = 200;
  });
});

describe('secrets at rest', () => {
  const key = Buffer.alloc(32, 7);
  it('seals with AES-256-GCM and opens only with the key, untampered', () => {
    const secret = newSecret();
    const sealed = sealSecret(secret, key);
    expect(sealed).not.toContain(secret.slice(6));
    expect(openSecret(sealed, key)).toBe(secret);
    expect(() => openSecret(sealed, Buffer.alloc(32, 8))).toThrow();
    const [v, iv, tag, body] = sealed.split(':');
    const flipped = Buffer.from(body!, 'base64url');
    flipped[0]! ^= 1;
    expect(() => openSecret([v, iv, tag, flipped.toString('base64url')].join(':'), key)).toThrow();
    expect(() => openSecret(sealed, undefined)).toThrow(/WEBHOOK_SECRETS_KEY/);
  });
});

describe('WEBHOOK_RETRY_SCHEDULE', () => {
  it('reads durations and refuses anything else', () => {
    expect(parseRetrySchedule('300ms, 5s,2m,1h,1d')).toEqual([300, 5000, 120_000, 3_600_000, 86_400_000]);
    expect(() => parseRetrySchedule('5s,soon')).toThrow(/WEBHOOK_RETRY_SCHEDULE/);
    expect(() => parseRetrySchedule('0s')).toThrow(/WEBHOOK_RETRY_SCHEDULE/);
  });
});
