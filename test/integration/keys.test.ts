import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeRoutes } from '../helpers/routes.js';
import { startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ env: { TRUST_PROXY: '1' }, extraRoutes: probeRoutes });
});

/** Each test calls from a client of its own: failed attempts count per client. */
let client = '198.51.100.1';
afterAll(async () => svc?.stop());

function post(authorization: string | undefined, headers: Record<string, string> = {}) {
  return svc.get('/v1/probe', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-forwarded-for': client,
      ...(authorization ? { authorization } : {}),
      ...headers,
    },
    body: '{}',
  });
}

/** POST /v1/swaps with an empty object: refused (400) by its handler, counted by its `write` bucket first. */
async function swap(authorization: string) {
  const res = await svc.get('/v1/swaps', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': client, authorization },
    body: '{}',
  });
  const body = await res.arrayBuffer();
  return {
    status: res.status,
    headers: res.headers,
    json: async () => JSON.parse(Buffer.from(body).toString()),
  };
}

describe('API keys', () => {
  it('creates a key shown once and stores only a hash of its secret', async () => {
    const created = await svc.createKey({ environment: 'TEST', label: 'ci' });
    expect(created.key).toMatch(/^svc_test_[A-Za-z0-9]+_[A-Za-z0-9]{24,}$/);
    expect(created.key).toContain(created.keyId);
    const secret = created.key.split('_')[3]!;
    const { rows } = await svc.services.db.query('SELECT * FROM api_keys WHERE key_id = $1', [created.keyId]);
    expect(JSON.stringify(rows)).not.toContain(secret);
    const listed = await svc.graphql<{ apiKeys: Array<{ keyId: string; scopes: string[] }> }>(
      '{ apiKeys { keyId scopes } }',
    );
    expect(listed.apiKeys.find((k) => k.keyId === created.keyId)?.scopes).toEqual(['prepare']);
  });

  it('answers every bad credential with the same 401 and the bucket headers', async () => {
    client = '198.51.100.2';
    const good = await svc.createKey({ environment: 'LIVE' });
    expect((await post(`Bearer ${good.key}`)).status).toBe(200);
    const revoked = await svc.createKey({ environment: 'LIVE' });
    await svc.graphql('mutation($id: String!) { revokeApiKey(keyId: $id) }', { id: revoked.keyId });
    const [, , keyId, secret] = good.key.split('_');
    const cases = {
      missing: undefined,
      malformed: 'Bearer svc_live_short',
      unknown: `Bearer svc_live_ZZZZZZZZZZZZ_${secret}`,
      wrongSecret: `Bearer svc_live_${keyId}_${'x'.repeat(32)}`,
      wrongEnvironment: `Bearer svc_test_${keyId}_${secret}`,
      revoked: `Bearer ${revoked.key}`,
    };
    const messages = new Set<string>();
    for (const [name, authorization] of Object.entries(cases)) {
      const res = await post(authorization);
      expect(res.status, name).toBe(401);
      expect(res.headers.get('ratelimit-policy'), name).toMatch(/^prepare;w=60;limit=\d+$/);
      const { error } = (await res.json()) as { error: { code: string; message: string } };
      expect(error.code, name).toBe('UNAUTHORIZED');
      messages.add(error.message);
    }
    expect(messages.size).toBe(1);
    // Failed attempts count per client in the same bucket: key guessing is throttled too.
    const throttled = await post(`Basic ${good.key}`);
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get('retry-after')).toBeTruthy();
    // A key this service has seen valid counts in its own bucket and is still served.
    const ok = await post(`Bearer ${good.key}`);
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { data: { keyId: string } }).data.keyId).toBe(good.keyId);
    // One it has not seen is looked up only once the client's window of failed attempts has room.
    const unseen = await svc.createKey({ environment: 'LIVE' });
    expect((await post(`Bearer ${unseen.key}`)).status).toBe(429);
  });

  it('refuses a key without the prepare scope and an Origin outside the key with 403', async () => {
    client = '198.51.100.3';
    const noScope = await svc.createKey({ environment: 'LIVE', scopes: [] });
    const res = await post(`Bearer ${noScope.key}`);
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('FORBIDDEN');
    // A key without the scope still reads its own positions.
    expect(
      (await svc.get(`/v1/probe/abc`, { headers: { authorization: `Bearer ${noScope.key}` } })).status,
    ).toBe(200);

    const pinned = await svc.createKey({ environment: 'LIVE', origins: ['https://app.example'] });
    expect((await post(`Bearer ${pinned.key}`, { origin: 'https://app.example' })).status).toBe(200);
    expect((await post(`Bearer ${pinned.key}`, { origin: 'https://app.example.evil.test' })).status).toBe(
      403,
    );
    expect((await post(`Bearer ${pinned.key}`)).status).toBe(200);
  });

  it('counts the prepare bucket per key at the key agreed limit', async () => {
    client = '198.51.100.4';
    const small = await svc.createKey({ environment: 'LIVE', prepareLimitPerMinute: 3 });
    const other = await svc.createKey({ environment: 'LIVE' });
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await post(`Bearer ${small.key}`)).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const res = await post(`Bearer ${other.key}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('ratelimit-policy')).toBe('prepare;w=60;limit=6');
    expect(res.headers.get('ratelimit-remaining')).toBe('5');
  });

  it('counts the write bucket (swaps, dock, approvals) per key at the key agreed write limit', async () => {
    client = '198.51.100.5';
    // Above the prepare default, so a write counted at the key's prepare limit would be refused at the 7th.
    const raised = await svc.createKey({ environment: 'LIVE', writeLimitPerMinute: 8 });
    const answers = [];
    for (let i = 0; i < 9; i++) answers.push(await swap(`Bearer ${raised.key}`));
    // `{}` is refused by the handler (400), after the bucket has counted it.
    expect(answers.map((r) => r.status)).toEqual([400, 400, 400, 400, 400, 400, 400, 400, 429]);
    expect(answers[0]!.headers.get('ratelimit-limit')).toBe('8');
    expect(answers[0]!.headers.get('ratelimit-policy')).toBe('write;w=60;limit=8');
    expect(answers[7]!.headers.get('ratelimit-remaining')).toBe('0');
    const refused = answers[8]!;
    expect(refused.headers.get('ratelimit-limit')).toBe('8');
    expect(refused.headers.get('retry-after')).toBeTruthy();
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('RATE_LIMITED');
    // Dock counts in the same bucket: refused too, before its handler.
    const dock = await svc.get(`/v1/positions/0x${'ab'.repeat(32)}/dock`, {
      method: 'POST',
      headers: { authorization: `Bearer ${raised.key}`, 'x-forwarded-for': client },
    });
    expect(dock.status).toBe(429);
    expect(dock.headers.get('ratelimit-policy')).toBe('write;w=60;limit=8');
    // The raised write bucket leaves the key's prepare bucket at its own (default) limit.
    const prepare = await post(`Bearer ${raised.key}`);
    expect(prepare.status).toBe(200);
    expect(prepare.headers.get('ratelimit-policy')).toBe('prepare;w=60;limit=6');

    const listed = await svc.graphql<{
      apiKeys: Array<{ keyId: string; prepareLimitPerMinute: number; writeLimitPerMinute: number }>;
    }>('{ apiKeys { keyId prepareLimitPerMinute writeLimitPerMinute } }');
    expect(listed.apiKeys.find((k) => k.keyId === raised.keyId)).toEqual({
      keyId: raised.keyId,
      prepareLimitPerMinute: 6,
      writeLimitPerMinute: 8,
    });
  });

  it('keeps the write bucket at 6 for a key that agreed no write limit, a raised prepare one included', async () => {
    client = '198.51.100.6';
    const key = await svc.createKey({ environment: 'LIVE', prepareLimitPerMinute: 100 });
    const answers = [];
    for (let i = 0; i < 7; i++) answers.push(await swap(`Bearer ${key.key}`));
    expect(answers.map((r) => r.status)).toEqual([400, 400, 400, 400, 400, 400, 429]);
    for (const res of answers) expect(res.headers.get('ratelimit-policy')).toBe('write;w=60;limit=6');
    expect(answers[6]!.headers.get('ratelimit-limit')).toBe('6');
    expect((await post(`Bearer ${key.key}`)).headers.get('ratelimit-policy')).toBe('prepare;w=60;limit=100');
  });

  it('refuses an agreed write limit outside 1..100000, naming input.writeLimitPerMinute', async () => {
    for (const value of [0, -1, 100_001]) {
      const res = await svc.get('/graphql', {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: 'Bearer test-internal-token-0123456789',
        },
        body: JSON.stringify({
          query:
            'mutation($n: Int!) { createApiKey(input: { environment: LIVE, writeLimitPerMinute: $n }) { keyId } }',
          variables: { n: value },
        }),
      });
      const body = (await res.json()) as {
        data: unknown;
        errors: Array<{ extensions: { code: string; parameter: string } }>;
      };
      expect(body.data, String(value)).toBeNull();
      expect(body.errors[0]?.extensions.code, String(value)).toBe('INVALID_PARAMETER');
      expect(body.errors[0]?.extensions.parameter, String(value)).toBe('input.writeLimitPerMinute');
    }
    const edge = await svc.createKey({ environment: 'LIVE', writeLimitPerMinute: 100_000 });
    expect(edge.keyId).toBeTruthy();
  });

  it('rejects bad key administration input as a GraphQL error with a code', async () => {
    const res = await svc.get('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer test-internal-token-0123456789' },
      body: JSON.stringify({
        query: 'mutation { createApiKey(input: { environment: LIVE, scopes: ["sign"] }) { keyId } }',
      }),
    });
    const body = (await res.json()) as { errors: Array<{ extensions: { code: string; parameter: string } }> };
    expect(body.errors[0]?.extensions.code).toBe('INVALID_PARAMETER');
    expect(body.errors[0]?.extensions.parameter).toBe('input.scopes[0]');
  });
});
