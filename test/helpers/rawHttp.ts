import net from 'node:net';

/**
 * A bare HTTP/1.1 client over a socket, for requests that fetch refuses to send: CR/LF in header
 * values, unknown methods, raw bytes in the path, bodies that disagree with their Content-Length,
 * oversized head sections. `rawRequest`: one connection per request (`Connection: close`);
 * `KeepAliveConnection`: one persistent connection for well-formed requests. Chunked answers are decoded.
 */

export interface RawResponse {
  status: number;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: Buffer;
  /** The server closed the socket without any answer. */
  empty: boolean;
  /** Bytes of the answer (interim answers included): what follows belongs to the next one. */
  size: number;
}

export interface RawRequest {
  method: string;
  /** The request target exactly as sent (no encoding is applied). */
  target: string;
  /** Header lines as sent, in order; names and values are not validated. */
  headers?: [string, string][];
  body?: string | Buffer;
  /** Adds `Content-Length` of the body unless a header of that name (or Transfer-Encoding) is given. */
  autoLength?: boolean;
}

export function serialise(request: RawRequest, host: string): Buffer {
  const headers = request.headers ?? [];
  const names = new Set(headers.map(([name]) => name.toLowerCase()));
  const body = request.body === undefined ? Buffer.alloc(0) : Buffer.from(request.body);
  const lines = [`${request.method} ${request.target} HTTP/1.1`];
  if (!names.has('host')) lines.push(`Host: ${host}`);
  for (const [name, value] of headers) lines.push(`${name}: ${value}`);
  if (!names.has('connection')) lines.push('Connection: close');
  if ((request.autoLength ?? true) && !names.has('content-length') && !names.has('transfer-encoding')) {
    if (body.length > 0 || request.method === 'POST' || request.method === 'PUT')
      lines.push(`Content-Length: ${body.length}`);
  }
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), body]);
}

/**
 * The response in `raw`, or null while it is incomplete. Without Content-Length or chunked encoding the
 * body runs to the close (`closed`). A HEAD answer has no body whatever its Content-Length says.
 */
export function parseResponse(
  data: Buffer,
  options: { head?: boolean; closed?: boolean } = {},
): RawResponse | null {
  let raw = data;
  const none = (): RawResponse | null =>
    options.closed ? { status: 0, headers: {}, body: Buffer.alloc(0), empty: true, size: data.length } : null;
  if (raw.length === 0) return none();
  // Interim answers (100 Continue) precede the response.
  while (/^HTTP\/1\.[01] 1\d\d /.test(raw.subarray(0, 16).toString('latin1'))) {
    const interimEnd = raw.indexOf('\r\n\r\n');
    if (interimEnd < 0) break;
    raw = raw.subarray(interimEnd + 4);
    if (raw.length === 0) return none();
  }
  const skipped = data.length - raw.length;
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) {
    if (options.closed)
      throw new Error(`incomplete response head: ${JSON.stringify(raw.toString('latin1'))}`);
    return null;
  }
  const [statusLine, ...lines] = raw.subarray(0, end).toString('latin1').split('\r\n');
  const match = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '');
  if (!match) throw new Error(`bad status line: ${JSON.stringify(statusLine)}`);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  const status = Number(match[1]);
  const rest = raw.subarray(end + 4);
  const done = (body: Buffer, bodySize: number): RawResponse => ({
    status,
    headers,
    body,
    empty: false,
    size: skipped + end + 4 + bodySize,
  });
  if (options.head || status === 204 || status === 304) return done(Buffer.alloc(0), 0);
  if (/\bchunked\b/i.test(headers['transfer-encoding'] ?? '')) {
    const chunked = dechunk(rest);
    if (chunked) return done(chunked.body, chunked.size);
    return options.closed ? done(Buffer.alloc(0), rest.length) : null;
  }
  if (headers['content-length'] !== undefined) {
    const length = Number(headers['content-length']);
    if (rest.length >= length) return done(rest.subarray(0, length), length);
    return options.closed ? done(rest, rest.length) : null;
  }
  return options.closed ? done(rest, rest.length) : null;
}

/** The decoded chunks and the bytes they took, or null until the last chunk has arrived. */
function dechunk(data: Buffer): { body: Buffer; size: number } | null {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = data.indexOf('\r\n', at);
    if (lineEnd < 0) return null;
    const size = Number.parseInt(data.subarray(at, lineEnd).toString('latin1'), 16);
    if (!Number.isFinite(size)) return null;
    if (size === 0) {
      // The last chunk, then optional trailers, then an empty line.
      const end = data.indexOf('\r\n\r\n', lineEnd);
      return end < 0 ? null : { body: Buffer.concat(parts), size: end + 4 };
    }
    if (data.length < lineEnd + 2 + size + 2) return null;
    parts.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}

/**
 * Sends one request on a new connection and resolves with the answer as soon as it is complete (or
 * when the server closes the socket: `empty` when it said nothing).
 */
export function rawRequest(
  port: number,
  request: RawRequest | Buffer,
  options: { host?: string; timeoutMs?: number; head?: boolean } = {},
): Promise<RawResponse> {
  const host = options.host ?? '127.0.0.1';
  const bytes = Buffer.isBuffer(request) ? request : serialise(request, `${host}:${port}`);
  const head = options.head ?? (!Buffer.isBuffer(request) && request.method === 'HEAD');
  const timeoutMs = options.timeoutMs ?? 20_000;
  return new Promise((resolve, reject) => {
    let received = Buffer.alloc(0);
    let settled = false;
    const socket = net.connect({ port, host });
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      fn();
    };
    const timer = setTimeout(
      () => settle(() => reject(new Error(`no complete answer within ${timeoutMs} ms`))),
      timeoutMs,
    );
    const attempt = (closed: boolean) => {
      try {
        const response = parseResponse(received, { head, closed });
        if (response) settle(() => resolve(response));
      } catch (error) {
        settle(() => reject(error));
      }
    };
    socket.on('data', (chunk) => {
      received = Buffer.concat([received, chunk]);
      attempt(false);
    });
    // The server may answer and close before it has read the whole request (a body over the limit).
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'ECONNRESET' && error.code !== 'EPIPE') settle(() => reject(error));
    });
    socket.on('close', () => attempt(true));
    // No half-close: node's server drops a request whose client has ended its side (httpAllowHalfOpen).
    socket.write(bytes);
  });
}

/**
 * One persistent connection (`Connection: keep-alive`), one request at a time, for well-formed
 * requests only: a request that can desynchronise the stream (CR/LF in a header, its own framing
 * headers) belongs on `rawRequest`. A connection the server closed, or that carried more bytes than
 * the answer, is replaced by a new one.
 */
export class KeepAliveConnection {
  private socket: net.Socket | null = null;
  private received = Buffer.alloc(0);
  private wake: (() => void) | null = null;
  private closed = false;

  constructor(
    private readonly port: number,
    private readonly host = '127.0.0.1',
  ) {}

  private open(): net.Socket {
    const socket = net.connect({ port: this.port, host: this.host });
    this.received = Buffer.alloc(0);
    this.closed = false;
    socket.on('data', (chunk) => {
      this.received = this.received.length === 0 ? chunk : Buffer.concat([this.received, chunk]);
      this.wake?.();
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      if (this.socket === socket) this.closed = true;
      this.wake?.();
    });
    this.socket = socket;
    return socket;
  }

  async send(request: RawRequest, options: { timeoutMs?: number } = {}): Promise<RawResponse> {
    const reused = this.socket !== null && !this.closed;
    if (!reused) this.drop();
    const socket = reused ? this.socket! : this.open();
    this.received = Buffer.alloc(0);
    const headers: [string, string][] = [...(request.headers ?? []), ['Connection', 'keep-alive']];
    socket.write(serialise({ ...request, headers }, `${this.host}:${this.port}`));
    const head = request.method === 'HEAD';
    const deadline = Date.now() + (options.timeoutMs ?? 20_000);
    for (;;) {
      const response = parseResponse(this.received, { head, closed: this.closed });
      if (response) {
        if (response.empty && reused) {
          // The server closed the idle connection as the request went out: once more, on a new one.
          this.drop();
          return this.send(request, options);
        }
        if (
          this.closed ||
          response.size !== this.received.length ||
          /\bclose\b/i.test(response.headers.connection ?? '')
        )
          this.drop();
        return response;
      }
      const left = deadline - Date.now();
      if (left <= 0) {
        this.drop();
        throw new Error('no complete answer in time');
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.wake = () => {
          clearTimeout(timer);
          this.wake = null;
          resolve();
        };
      });
    }
  }

  private drop(): void {
    this.socket?.destroy();
    this.socket = null;
    this.closed = false;
    this.received = Buffer.alloc(0);
  }

  close(): void {
    this.drop();
  }
}
