/**
 * The webhook hosts' lookups (delivery/hostLookup.ts): a receiver whose DNS never answers may hold at
 * most two of libuv's four threads, and its caller gives up at its deadline. The resolver here stands in
 * for such a DNS (a lookup that returns only when the test says): no resolver of this machine hangs.
 */
import { describe, expect, it } from 'vitest';
import {
  createHostLookup,
  type HostAddress,
  LOOKUPS_AT_ONCE,
  LookupTimeout,
} from '../../delivery/hostLookup.js';

function hungDns() {
  const pending = new Map<string, (addresses: HostAddress[]) => void>();
  const asked: string[] = [];
  const resolve = (host: string) =>
    new Promise<HostAddress[]>((answer) => {
      asked.push(host);
      pending.set(host, answer);
    });
  const answer = (host: string) => pending.get(host)!([{ address: '203.0.113.7', family: 4 }]);
  return { resolve, asked, answer };
}

describe('webhook host lookups', () => {
  it('run two at a time; a caller past its deadline is refused while its lookup keeps the slot', async () => {
    const dns = hungDns();
    const lookup = createHostLookup(dns.resolve);
    const slow = ['a.example', 'b.example'].map((host) => lookup(host, 20));
    const queued = lookup('c.example', 60_000);
    expect(dns.asked).toEqual(['a.example', 'b.example']);
    expect(lookup.running()).toBe(LOOKUPS_AT_ONCE);

    for (const answer of slow) await expect(answer).rejects.toBeInstanceOf(LookupTimeout);
    await expect(slow[0]).rejects.toThrow('the host a.example did not resolve within 20 ms');
    // Refused, but the two lookups still hold their threads: the third waits.
    expect(dns.asked).toEqual(['a.example', 'b.example']);
    expect(lookup.running()).toBe(2);

    dns.answer('a.example');
    await new Promise((r) => setImmediate(r));
    expect(dns.asked).toEqual(['a.example', 'b.example', 'c.example']);
    dns.answer('c.example');
    await expect(queued).resolves.toEqual([{ address: '203.0.113.7', family: 4 }]);
    dns.answer('b.example');
    await new Promise((r) => setImmediate(r));
    expect(lookup.running()).toBe(0);
  });

  it('drops a caller that waited its whole deadline in the queue: its host is never looked up', async () => {
    const dns = hungDns();
    const lookup = createHostLookup(dns.resolve);
    const held = ['a.example', 'b.example'].map((host) => lookup(host, 60_000));
    await expect(lookup('late.example', 20)).rejects.toBeInstanceOf(LookupTimeout);
    dns.answer('a.example');
    dns.answer('b.example');
    await Promise.all(held);
    expect(dns.asked).toEqual(['a.example', 'b.example']);
    expect(lookup.running()).toBe(0);
  });
});
