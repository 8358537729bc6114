/**
 * The RPC fetch over node:http keep-alive (chain/nodeFetch.ts) against a real server on a socket: a
 * kept-alive socket the server closes as it is reused (its idle timeout racing our next call, which a
 * busy box widens) costs the caller nothing, while a node that drops a fresh connection still fails.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { nodeHttpFetch } from '../../chain/nodeFetch.js';

interface Node {
  url: string;
  connections: number;
  /** Requests the server dropped without an answer. */
  dropped: number;
  server: Server;
}

/** A JSON-RPC node answering `{"result":"0x1"}`; `drop` decides which requests it drops instead. */
async function startNode(drop: (servedOnSocket: number) => boolean): Promise<Node> {
  const served = new WeakMap<Socket, number>();
  const node: Node = { url: '', connections: 0, dropped: 0, server: createServer() };
  node.server.on('connection', () => node.connections++);
  node.server.on('request', (req, res) => {
    const socket = req.socket;
    const before = served.get(socket) ?? 0;
    served.set(socket, before + 1);
    req.resume();
    req.on('end', () => {
      if (drop(before)) {
        node.dropped++;
        socket.destroy();
        return;
      }
      res.setHeader('content-type', 'application/json');
      res.end('{"jsonrpc":"2.0","id":1,"result":"0x1"}');
    });
  });
  await new Promise<void>((resolve) => node.server.listen(0, '127.0.0.1', resolve));
  node.url = `http://127.0.0.1:${(node.server.address() as AddressInfo).port}`;
  return node;
}

const call = (url: string) =>
  nodeHttpFetch(url, { method: 'POST', body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}' });

let node: Node | undefined;
afterEach(async () => {
  node?.server.closeAllConnections();
  await new Promise((resolve) => node?.server.close(resolve));
  node = undefined;
});

describe('nodeHttpFetch', () => {
  it('sends a call again on a new socket when the server closed the kept-alive one as it was reused', async () => {
    let reusedDrops = 0;
    // Every second request on a socket is dropped, once: the server's idle close won the race.
    node = await startNode((servedOnSocket) => servedOnSocket > 0 && reusedDrops++ === 0);
    expect(await (await call(node.url)).text()).toContain('"result":"0x1"');
    const second = await call(node.url);
    expect(second.status).toBe(200);
    expect(await second.text()).toContain('"result":"0x1"');
    expect(node.dropped).toBe(1);
    expect(node.connections).toBe(2);
  });

  it('still fails when a fresh connection is dropped: that is the node, not a stale socket', async () => {
    node = await startNode(() => true);
    await expect(call(node.url)).rejects.toThrow('fetch failed');
    expect(node.dropped).toBe(1);
  });
});
