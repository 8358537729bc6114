import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';

/** One HTTP request the proxy received: the JSON-RPC methods in its body (several for a batch). */
export interface ProxiedRequest {
  methods: string[];
}

export interface RpcProxy {
  url: string;
  /** HTTP POSTs received since the last reset: each is one RPC round trip of the caller. */
  count(): number;
  requests(): ProxiedRequest[];
  reset(): void;
  stop(): Promise<void>;
}

/**
 * A tiny JSON-RPC proxy that counts the round trips made through it. `forward` passes each POST to
 * `target` (a real anvil) and relays the answer; `fail` answers 503 without contacting anything; `hang`
 * accepts and never answers (the caller's timeout must fire).
 */
export async function startRpcProxy(options: {
  port: number;
  mode: 'forward' | 'fail' | 'hang';
  target?: string;
}): Promise<RpcProxy> {
  let requests: ProxiedRequest[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      if (req.method === 'POST') {
        let methods: string[] = [];
        try {
          const parsed = JSON.parse(body) as { method?: string } | { method?: string }[];
          methods = (Array.isArray(parsed) ? parsed : [parsed]).map((p) => String(p.method));
        } catch {
          methods = ['(unparsable)'];
        }
        requests.push({ methods });
      }
      if (options.mode === 'hang') return;
      if (options.mode === 'fail' || !options.target) {
        res.writeHead(503, { 'content-type': 'text/plain' }).end('upstream down');
        return;
      }
      fetch(options.target, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then(
        async (upstream) => {
          const text = await upstream.text();
          res.writeHead(upstream.status, { 'content-type': 'application/json' }).end(text);
        },
        () => res.writeHead(502).end(),
      );
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', () => resolve());
  });
  return {
    url: `http://127.0.0.1:${options.port}`,
    count: () => requests.length,
    requests: () => [...requests],
    reset() {
      requests = [];
    },
    stop: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
