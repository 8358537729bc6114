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
    const connections = 6;
    const result = await load('rotation', url, { paths, connections, duration: 1 });
    expect(result.errors).toBe(0);
    expect(result.total).toBeGreaterThan(100);

    // Requests sent together arrive together, in whatever order the box schedules them (on a busy box a
    // path follows itself in up to 9% of arrivals even with one rotation). So the order is not read; what
    // `connections` consecutive arrivals (one round of the connections) hold is. One rotation gives each path
    // about twice per round; connections each walking the list from its start, in step, send six of
    // one path at once, which the gateway's batching would answer with one result.
    let heaviest = 0;
    let rounds = 0;
    for (let i = 0; i + connections <= arrivals.length; i += connections) {
      const round = arrivals.slice(i, i + connections);
      heaviest += Math.max(...paths.map((path) => round.filter((p) => p === path).length));
      rounds++;
    }
    expect(heaviest / rounds).toBeLessThan(4);
    // Each path a third of the requests, give or take one per connection.
    for (const path of paths) {
      const count = arrivals.filter((p) => p === path).length;
      expect(Math.abs(count - arrivals.length / 3)).toBeLessThanOrEqual(6);
    }
  });
});
