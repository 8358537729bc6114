import http from 'node:http';

export interface RawReply {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The bytes as they came (still compressed when Content-Encoding says so). */
  body: Buffer;
}

let client = 0;

/**
 * One request over node:http with exactly the headers given (fetch adds Accept-Encoding and decodes,
 * and refuses some headers such as Origin). Each call is a client of its own (an X-Forwarded-For the
 * service trusts with TRUST_PROXY=1), unless the headers name one.
 */
export function rawCall(
  base: string,
  method: string,
  pathAndQuery: string,
  headers: Record<string, string> = {},
): Promise<RawReply> {
  client++;
  const url = new URL(pathAndQuery, base);
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method,
        agent: false,
        headers: { 'x-forwarded-for': `10.77.${(client >> 8) & 255}.${client & 255}`, ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}
