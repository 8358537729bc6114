import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';

/** One HTTP request the proxy received: the JSON-RPC methods in its body (several for a batch). */
export interface ProxiedRequest {
  methods: string[];
}

/**
 * What the proxy does with each POST: `forward` relays to the target; `fail` answers 503; `hang` never
 * answers; `rateLimit` answers 429 with `Retry-After`; `wrongChain` relays all but `eth_chainId`, which
 * it answers with another chain's id; `malformed` answers 200 with a result that is not hex; `garbage`
 * answers 200 with a body that is not JSON.
 */
export type ProxyMode = 'forward' | 'fail' | 'hang' | 'rateLimit' | 'wrongChain' | 'malformed' | 'garbage';

/** How the proxy refuses an `eth_getLogs` wider than its limit: in the words of a real provider. */
export type RangeRefusal = 'results' | 'range' | 'alchemy' | 'http413';

export interface RpcProxy {
  url: string;
  /** Changes what the proxy does from the next request on. */
  setMode(mode: ProxyMode): void;
  /**
   * From now on, refuse every `eth_getLogs` of more than `blocks` blocks as `style` says (null: serve
   * every range again).
   */
  limitLogRange(limit: { blocks: number; style: RangeRefusal } | null): void;
  /** Block spans of the `eth_getLogs` calls received since the last reset, with whether each was refused. */
  logRanges(): { blocks: number; refused: boolean }[];
  /**
   * From now on, answer every call of these methods as a node without them does (JSON-RPC -32601, in
   * geth's words) instead of relaying it; an empty list relays every method again.
   */
  refuseMethods(methods: readonly string[]): void;
  /** HTTP POSTs received since the last reset: each is one RPC round trip of the caller. */

  count(): number;
  requests(): ProxiedRequest[];
  reset(): void;
  stop(): Promise<void>;
}

interface RpcCall {
  id?: unknown;
  method?: string;
  params?: unknown[];
}

const REFUSALS: Record<Exclude<RangeRefusal, 'http413'>, (limit: number, from: number) => object> = {
  // geth and Infura
  results: () => ({ code: -32005, message: 'query returned more than 10000 results' }),
  // Ankr, public endpoints
  range: (limit) => ({ code: -32000, message: `block range is too large (max ${limit})` }),
  // Alchemy: names a range that would work
  alchemy: (limit, from) => ({
    code: -32602,
    message: `Log response size exceeded. You can make eth_getLogs requests with up to a ${limit} block range. Based on your parameters, this block range should work: [0x${from.toString(16)}, 0x${(from + limit - 1).toString(16)}]`,
  }),
};

/**
 * A tiny JSON-RPC proxy in front of a real node (anvil) that counts round trips and injects faults
 * (`ProxyMode`). With `limitLogRange`, `eth_getLogs` calls
 * wider than the limit are refused as real providers refuse them (each member of a batch on its own,
 * or the whole request with HTTP 413).
 */
export async function startRpcProxy(options: {
  port: number;
  mode: ProxyMode;
  target?: string;
  /** `Retry-After` of `rateLimit` answers, in seconds. */
  retryAfterSeconds?: number;
  /** The chain id `wrongChain` claims. */
  wrongChainId?: number;
}): Promise<RpcProxy> {
  let mode = options.mode;
  let requests: ProxiedRequest[] = [];
  let logRanges: { blocks: number; refused: boolean }[] = [];
  let limit: { blocks: number; style: RangeRefusal } | null = null;
  let refusedMethods = new Set<string>();
  /** The span of a getLogs call and whether it is over the limit. */
  const overLimit = (call: RpcCall): boolean => {
    if (call.method !== 'eth_getLogs') return false;
    const filter = (call.params?.[0] ?? {}) as { fromBlock?: string; toBlock?: string };
    const blocks = Number(filter.toBlock) - Number(filter.fromBlock) + 1;
    const refused = limit !== null && blocks > limit.blocks;
    logRanges.push({ blocks, refused });
    return refused;
  };
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let calls: RpcCall[] = [];
      let batch = false;
      if (req.method === 'POST') {
        let methods: string[] = [];
        try {
          const parsed = JSON.parse(body) as RpcCall | RpcCall[];
          batch = Array.isArray(parsed);
          calls = Array.isArray(parsed) ? parsed : [parsed];
          methods = calls.map((p) => String(p.method));
        } catch {
          methods = ['(unparsable)'];
        }
        requests.push({ methods });
      }
      if (mode === 'hang') return;
      if (mode === 'fail' || !options.target) {
        res.writeHead(503, { 'content-type': 'text/plain' }).end('upstream down');
        return;
      }
      if (mode === 'rateLimit') {
        res
          .writeHead(429, {
            'content-type': 'text/plain',
            'retry-after': String(options.retryAfterSeconds ?? 1),
          })
          .end('rate limited');
        return;
      }
      if (mode === 'garbage') {
        res.writeHead(200, { 'content-type': 'text/html' }).end('<html>provider maintenance</html>');
        return;
      }
      const answer = (result: (call: RpcCall) => unknown) => {
        const replies = calls.map((call) => ({ jsonrpc: '2.0', id: call.id, result: result(call) }));
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify(batch ? replies : replies[0]));
      };
      if (mode === 'malformed') return answer(() => '0xnot-hex');
      if (mode === 'wrongChain' && calls.length > 0 && calls.every((c) => c.method === 'eth_chainId')) {
        return answer(() => `0x${(options.wrongChainId ?? 1).toString(16)}`);
      }
      if (calls.some((c) => refusedMethods.has(String(c.method)))) {
        // A call of a method the node lacks is answered by the proxy; a batch mixing it with others is
        // not something this service sends.
        const replies = calls.map((call) => ({
          jsonrpc: '2.0',
          id: call.id,
          error: { code: -32601, message: `the method ${call.method} does not exist/is not available` },
        }));
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify(batch ? replies : replies[0]));
        return;
      }
      const refused = calls.map(overLimit);
      const active = limit;
      if (active?.style === 'http413' && refused.some(Boolean)) {
        res.writeHead(413, { 'content-type': 'text/plain' }).end('request entity too large');
        return;
      }
      fetch(options.target, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then(
        async (upstream) => {
          let text = await upstream.text();
          if (active && active.style !== 'http413' && refused.some(Boolean)) {
            const answers = JSON.parse(text) as object | object[];
            const list = Array.isArray(answers) ? answers : [answers];
            const replaced = list.map((answer) => {
              // Answers of a batch are matched to their calls by id, whatever their order.
              const i = calls.findIndex((c) => c.id === (answer as { id?: unknown }).id);
              if (i < 0 || !refused[i]) return answer;
              const filter = (calls[i]!.params?.[0] ?? {}) as { fromBlock?: string };
              const error = REFUSALS[active.style as keyof typeof REFUSALS](
                active.blocks,
                Number(filter.fromBlock),
              );
              return { jsonrpc: '2.0', id: calls[i]!.id, error };
            });
            text = JSON.stringify(batch ? replaced : replaced[0]);
          }
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
    setMode(next) {
      mode = next;
    },
    count: () => requests.length,
    requests: () => [...requests],
    limitLogRange(next) {
      limit = next;
    },
    logRanges: () => [...logRanges],
    refuseMethods(methods) {
      refusedMethods = new Set(methods);
    },
    reset() {
      requests = [];
      logRanges = [];
    },
    stop: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
