/** The raw request builder: every generator yields a Case (the bytes to send and the endpoint aimed at). */
import type { RawRequest } from '../../helpers/rawHttp.js';
import type { Endpoint } from './config.js';

export interface Case {
  endpoint: Endpoint;
  request: RawRequest;
  /** /graphql with the internal token. */
  internal?: boolean;
  /** The seed that generated it (set by the runner): TEST_SEED=<seed> generates it again. */
  seed?: number;
}

let clientCounter = 0;
/** A fresh client per request (TRUST_PROXY): the per-client buckets do not turn the run into 429s. */
const forwardedFor = () => {
  clientCounter++;
  return `10.${(clientCounter >> 16) & 255}.${(clientCounter >> 8) & 255}.${clientCounter & 255}`;
};

/** A raw request to `endpoint`, from a fresh client (see forwardedFor). */
export function request(
  endpoint: Endpoint,
  verb: string,
  target: string,
  headers: [string, string][],
  extra: Partial<RawRequest> = {},
): Case {
  return {
    endpoint,
    request: { method: verb, target, headers: [['X-Forwarded-For', forwardedFor()], ...headers], ...extra },
  };
}
