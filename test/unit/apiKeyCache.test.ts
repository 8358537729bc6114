/**
 * What the key cache may keep, checked where timing cannot be arranged against a real store: a look-up
 * that straddles a change notice, the feed going away, a row's age limit. The same class against the
 * real Postgres and its trigger is in test/integration/api-key-cache.test.ts.
 */
import { describe, expect, it, vi } from 'vitest';
import { ApiKeyCache } from '../../store/apiKeyCache.js';
import type { ApiKeyRow } from '../../store/apiKeys.js';

function row(keyId: string, revoked = false): ApiKeyRow {
  return {
    key_id: keyId,
    environment: 'test',
    secret_hash: Buffer.alloc(32),
    scopes: ['positions:write'],
    origins: null,
    label: null,
    prepare_limit_per_minute: 6,
    write_limit_per_minute: 6,
    created_at: new Date(0),
    revoked_at: revoked ? new Date(1) : null,
  };
}

/** A store of rows whose reads are counted, and can be held until released. */
function store() {
  const rows = new Map<string, ApiKeyRow>();
  let reads = 0;
  let hold: Promise<void> | null = null;
  return {
    rows,
    get reads() {
      return reads;
    },
    holdNext(): () => void {
      let release!: () => void;
      hold = new Promise((resolve) => {
        release = resolve;
      });
      return release;
    },
    load: async (keyId: string) => {
      reads++;
      // The snapshot is taken when the read starts; it arrives when released.
      const snapshot = rows.get(keyId);
      if (hold) {
        const waiting = hold;
        hold = null;
        await waiting;
      }
      return snapshot;
    },
  };
}

describe('ApiKeyCache', () => {
  it('reads a key once while the feed is up, and again after its notice', async () => {
    const s = store();
    s.rows.set('k1', row('k1'));
    const cache = new ApiKeyCache({ connected: true }, s.load);
    expect((await cache.find('k1'))?.revoked_at).toBeNull();
    expect((await cache.find('k1'))?.revoked_at).toBeNull();
    expect(s.reads).toBe(1);
    s.rows.set('k1', row('k1', true));
    cache.forget('k1');
    expect((await cache.find('k1'))?.revoked_at).not.toBeNull();
    expect(s.reads).toBe(2);
  });

  it('does not keep what a look-up read before a notice that came while it ran', async () => {
    const s = store();
    s.rows.set('k1', row('k1'));
    const cache = new ApiKeyCache({ connected: true }, s.load);
    const release = s.holdNext();
    const straddling = cache.find('k1');
    // The revocation commits and its notice arrives while the read's (older) answer is on its way.
    s.rows.set('k1', row('k1', true));
    cache.forget('k1');
    release();
    expect((await straddling)?.revoked_at).toBeNull();
    // The stale answer was not kept: the next request reads the revoked row.
    expect((await cache.find('k1'))?.revoked_at).not.toBeNull();
    expect(s.reads).toBe(2);
  });

  it('neither uses nor keeps rows while the feed is down, and starts empty when it is back', async () => {
    const s = store();
    s.rows.set('k1', row('k1'));
    const feed = { connected: true };
    const cache = new ApiKeyCache(feed, s.load);
    await cache.find('k1');
    feed.connected = false;
    // A change the feed cannot announce now.
    s.rows.set('k1', row('k1', true));
    expect((await cache.find('k1'))?.revoked_at).not.toBeNull();
    expect((await cache.find('k1'))?.revoked_at).not.toBeNull();
    expect(s.reads).toBe(3);
    feed.connected = true;
    cache.forgetAll();
    expect(cache.size).toBe(0);
    await cache.find('k1');
    await cache.find('k1');
    expect(s.reads).toBe(4);
  });

  it('never keeps an unknown key, and keeps a row no longer than its age limit', async () => {
    const s = store();
    const cache = new ApiKeyCache({ connected: true }, s.load, 1_000);
    expect(await cache.find('nobody')).toBeUndefined();
    expect(await cache.find('nobody')).toBeUndefined();
    expect(s.reads).toBe(2);
    vi.useFakeTimers({ now: 1_700_000_000_000, toFake: ['Date'] });
    try {
      s.rows.set('k2', row('k2'));
      await cache.find('k2');
      vi.setSystemTime(1_700_000_000_999);
      await cache.find('k2');
      expect(s.reads).toBe(3);
      vi.setSystemTime(1_700_000_001_000);
      await cache.find('k2');
      expect(s.reads).toBe(4);
    } finally {
      vi.useRealTimers();
    }
  });
});
