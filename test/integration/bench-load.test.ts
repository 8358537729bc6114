import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { load } from '../../bench/lib.js';

/**
 * The list's peak is measured with `paths`: one rotation for all connections, like independent
 * clients. If each connection walked the list from its start, every connection would ask for the
 * same path at once, and the gateway's batching would answer them with one shared result.
 */
describe('bench load with paths', () => {
  const arrivals: string[] = [];
  let server: http.Server;
  let url: string;

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      arrivals.push(req.url ?? '');
      res.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('spreads the requests in flight together over the paths', async () => {
    const paths = ['/a', '/b', '/c'];
    const result = await load('rotation', url, { paths, connections: 6, duration: 1 });
    expect(result.errors).toBe(0);
    expect(result.total).toBeGreaterThan(100);

    // In arrival order, a path rarely follows itself with one rotation (0.005% on a quiet box, up to
    // 2.4% with the CPUs busy); with autocannon's rotation per connection, one request in six did
    // (connections in step send one path), so 8% still tells the two apart.
    let repeats = 0;
    for (let i = 1; i < arrivals.length; i++) if (arrivals[i] === arrivals[i - 1]) repeats++;
    expect(repeats / arrivals.length).toBeLessThan(0.08);
    // Each path a third of the requests, give or take one per connection.
    for (const path of paths) {
      const count = arrivals.filter((p) => p === path).length;
      expect(Math.abs(count - arrivals.length / 3)).toBeLessThanOrEqual(6);
    }
  });
});
