/**
 * A `fetch` for viem's http transport (`fetchFn`) over node:http(s) with keep-alive agents. Node's
 * global fetch (undici, WHATWG streams) costs about 0.7 ms more CPU and wall time per JSON-RPC call
 * than a plain node:http request on the machines measured (bench/quote.ts): that is most of what a
 * quote adds to its one eth_call. It does only what viem's JSON-RPC client uses: POST a string body,
 * read a bounded text body, honour the abort signal. Failures look like undici's (`TypeError('fetch
 * failed', { cause })`), so `classifyRpcError` maps them the same way (503 / 504).
 */
import http from 'node:http';
import https from 'node:https';

const agents = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: 64 }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: 64 }),
};

/** viem's own default bound of a JSON-RPC response body. */
const MAX_BODY_BYTES = 10_485_760;

function abortError(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

/** The part of `Response` that viem's JSON-RPC client reads: status, headers and a text body. */
function textResponse(status: number, statusText: string, headers: Headers, text: string): Response {
  const response = {
    ok: status >= 200 && status < 300,
    status,
    statusText,
    headers,
    body: null,
    text: async () => text,
    json: async () => JSON.parse(text) as unknown,
  };
  return response as unknown as Response;
}

/**
 * A kept-alive socket the server closed just as it was reused fails before any byte of an answer
 * (ECONNRESET, EPIPE): the server's idle timeout and our next call raced, which a busy event loop
 * widens (a Node server closes idle sockets after 5 s). Every call of the gateway's chain clients is a
 * read, so it is sent once more, on a connection of its own: the agent's other idle sockets may be
 * closing in the same turn.
 */
function staleSocket(request: http.ClientRequest, error: unknown, answered: boolean): boolean {
  if (!request.reusedSocket || answered) return false;
  const code = (error as { code?: unknown }).code;
  return code === 'ECONNRESET' || code === 'EPIPE';
}

export function nodeHttpFetch(input: string | URL | Request, init: RequestInit = {}): Promise<Response> {
  const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
  const signal = init.signal ?? undefined;
  return new Promise<Response>((resolve, reject) => {
    if (signal?.aborted) return reject(abortError(signal));
    const transport = url.protocol === 'https:' ? https : http;
    const agent = agents[url.protocol as keyof typeof agents];
    if (!agent)
      return reject(new TypeError('fetch failed', { cause: new Error(`unsupported URL ${url.protocol}`) }));
    const headers = new Headers(init.headers);
    const body = typeof init.body === 'string' ? init.body : undefined;
    if (body !== undefined) headers.set('content-length', String(Buffer.byteLength(body)));
    const send = (retried: boolean): void => {
      let answered = false;
      const request = transport.request(
        url,
        {
          method: init.method ?? 'GET',
          headers: Object.fromEntries(headers),
          agent: retried ? false : agent,
        },
        (res) => {
          answered = true;
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > MAX_BODY_BYTES) {
              request.destroy(new Error(`response body larger than ${MAX_BODY_BYTES} bytes`));
              return;
            }
            chunks.push(chunk);
          });
          res.on('end', () => {
            const responseHeaders = new Headers();
            for (const [name, value] of Object.entries(res.headers)) {
              if (value !== undefined)
                responseHeaders.set(name, Array.isArray(value) ? value.join(', ') : value);
            }
            resolve(
              textResponse(
                res.statusCode ?? 0,
                res.statusMessage ?? '',
                responseHeaders,
                Buffer.concat(chunks).toString('utf8'),
              ),
            );
          });
          res.on('error', (error) => reject(new TypeError('fetch failed', { cause: error })));
        },
      );
      const onAbort = () => request.destroy();
      signal?.addEventListener('abort', onAbort, { once: true });
      request.on('close', () => signal?.removeEventListener('abort', onAbort));
      request.on('error', (error) => {
        if (signal?.aborted) reject(abortError(signal));
        else if (!retried && staleSocket(request, error, answered)) send(true);
        else reject(new TypeError('fetch failed', { cause: error }));
      });
      request.end(body);
    };
    send(false);
  });
}
