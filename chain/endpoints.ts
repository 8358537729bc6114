/**
 * The health of a chain's RPC endpoints, shared by every client of the chain (the gateway's reads,
 * the quote simulation, the indexer): an endpoint that failed is backed off (skipped while another
 * one answers), one that asked to wait (HTTP 429, Retry-After) is not asked before then, and one that
 * serves another chain (eth_chainId) is not used at all until it is checked again.
 *
 * URLs of RPC providers often carry an API key in their path or query: only `redactRpcUrl` forms of
 * them reach logs, metrics and error messages.
 */
import { BaseError, HttpRequestError, RpcRequestError, SocketClosedError, TimeoutError } from 'viem';
import type { Logger } from '../lib/logger.js';
import type { Metrics } from '../lib/metrics.js';
import { rpcHostOf } from '../lib/rpcHost.js';

/** Why an endpoint is backed off (the `reason` label of the metric). */
export type BackoffReason = 'rate_limited' | 'timeout' | 'unavailable' | 'malformed' | 'wrong_chain';

/** `https://host:port`: no user info, path or query (where providers put API keys). */
export function redactRpcUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}`;
  } catch {
    return '(invalid URL)';
  }
}

const URL_IN_TEXT = /\bhttps?:\/\/[^\s"'<>]+/gi;

/** Every URL in a text (an error message of viem names the URL it called) cut to its origin. */
export function redactUrls(text: string): string {
  return text.replace(URL_IN_TEXT, (url) => redactRpcUrl(url.replace(/[.,;)]+$/, '')));
}

/** An endpoint skipped without a request: backed off, rate limited or serving another chain. */
export class RpcEndpointSkippedError extends BaseError {
  constructor(host: string, reason: BackoffReason, waitMs: number) {
    super(`RPC endpoint ${host} is backed off (${reason}) for ${Math.max(0, Math.ceil(waitMs))} ms more.`, {
      name: 'RpcEndpointSkippedError',
    });
  }
}

/** The node answered 2xx with a result that is not of the method's shape. */
export class RpcMalformedAnswerError extends BaseError {
  constructor(host: string, method: string) {
    super(`RPC endpoint ${host} gave a malformed result for ${method}.`, { name: 'RpcMalformedAnswerError' });
  }
}

/** The node serves another chain than the one configured. */
export class RpcWrongChainError extends BaseError {
  constructor(host: string, expected: number, actual: string) {
    super(`RPC endpoint ${host} serves chain ${actual}, not ${expected}.`, { name: 'RpcWrongChainError' });
  }
}

const HEX = /^0x[0-9a-fA-F]*$/;
const HEX_RESULT = new Set([
  'eth_chainId',
  'eth_blockNumber',
  'eth_call',
  'eth_getBalance',
  'eth_getCode',
  'eth_getStorageAt',
  'eth_estimateGas',
  'eth_gasPrice',
  'eth_getTransactionCount',
]);
const OBJECT_OR_NULL = new Set([
  'eth_getBlockByNumber',
  'eth_getBlockByHash',
  'eth_getTransactionReceipt',
  'eth_getTransactionByHash',
]);

/** Whether a result has the shape its method returns (the methods this service calls; others pass). */
export function wellFormed(method: string, result: unknown): boolean {
  if (HEX_RESULT.has(method)) return typeof result === 'string' && HEX.test(result);
  if (method === 'eth_getLogs') return Array.isArray(result);
  if (OBJECT_OR_NULL.has(method))
    return result === null || (typeof result === 'object' && !Array.isArray(result));
  return true;
}

function walk(error: unknown, match: (e: unknown) => boolean): unknown {
  if (error instanceof BaseError) return error.walk(match) ?? undefined;
  return match(error) ? error : undefined;
}

/** Retry-After in ms (seconds or an HTTP date), from an HTTP error of viem. */
function retryAfterMs(error: unknown): number | undefined {
  const http = walk(error, (e) => e instanceof HttpRequestError) as HttpRequestError | undefined;
  const value = http?.headers?.get('retry-after');
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/**
 * What a failed request says of the endpoint: a reason to back it off, or null when the node answered
 * (a revert, invalid params, a refused log range…: the request's fault, not the endpoint's).
 */
export function backoffReasonOf(error: unknown): BackoffReason | null {
  if (walk(error, (e) => e instanceof RpcWrongChainError)) return 'wrong_chain';
  if (walk(error, (e) => e instanceof RpcMalformedAnswerError)) return 'malformed';
  if (walk(error, (e) => e instanceof TimeoutError)) return 'timeout';
  const http = walk(error, (e) => e instanceof HttpRequestError) as HttpRequestError | undefined;
  if (http?.status === 429) return 'rate_limited';
  const rpc = walk(error, (e) => e instanceof RpcRequestError) as RpcRequestError | undefined;
  // Rate limits some providers answer with HTTP 200 (Alchemy batches: 429; QuickNode: -32007).
  if (rpc && (rpc.code === 429 || rpc.code === -32007)) return 'rate_limited';
  if (rpc) return null;
  // A 2xx body that is not JSON (an HTML page of the provider, a truncated answer): a parse error.
  if (walk(error, (e) => e instanceof SyntaxError)) return 'malformed';
  if (http) return 'unavailable';
  if (walk(error, (e) => e instanceof SocketClosedError)) return 'unavailable';
  return error instanceof BaseError ? null : 'unavailable';
}

export interface BackoffOptions {
  /** First backoff of a failed endpoint; doubles per consecutive failure. */
  backoffMs: number;
  /** Longest backoff (and the longest Retry-After honoured). */
  backoffMaxMs: number;
}

/** One RPC URL of a chain and its health. */
export class RpcEndpoint {
  readonly host: string;
  readonly label: string;
  failures = 0;
  /** Date.now() before which the endpoint is skipped. */
  until = 0;
  reason: BackoffReason | null = null;
  /** eth_chainId checked since the last failure (a pending check is shared). */
  verified: boolean | Promise<void> = false;
  /** Asks the endpoint its chain id (set by the first transport built over it). */
  probe: (() => Promise<unknown>) | undefined;

  constructor(readonly url: string) {
    this.host = rpcHostOf(url);
    this.label = redactRpcUrl(url);
  }

  backedOff(now = Date.now()): boolean {
    return this.until > now;
  }
}

/** The endpoints of one chain, in the configured order (the first is preferred). */
export class RpcEndpoints {
  readonly list: readonly RpcEndpoint[];

  constructor(
    readonly chain: { key: string; chainId: number },
    urls: readonly string[],
    private readonly options: BackoffOptions & { logger?: Logger; metrics?: Metrics },
  ) {
    if (urls.length === 0) throw new Error(`chain "${chain.key}" has no RPC URL`);
    this.list = urls.map((url) => new RpcEndpoint(url));
    for (const endpoint of this.list) options.metrics?.rpcEndpointUp(chain.key, endpoint.host, true);
  }

  /**
   * Throws RpcEndpointSkippedError when `endpoint` must not be asked now. When every endpoint is backed
   * off, the last one backed off for a failure (not for a rate limit or another chain) is still asked:
   * a request then fails only after one real try, and with its real error (fallback throws the error
   * of the last endpoint it tried: a timeout stays a 504).
   */
  admit(endpoint: RpcEndpoint): void {
    const now = Date.now();
    if (!endpoint.backedOff(now)) return;
    const reason = endpoint.reason ?? 'unavailable';
    if (reason !== 'rate_limited' && reason !== 'wrong_chain' && this.lastResort(now) === endpoint) return;
    throw new RpcEndpointSkippedError(endpoint.host, reason, endpoint.until - now);
  }

  private lastResort(now: number): RpcEndpoint | undefined {
    if (this.list.some((e) => !e.backedOff(now))) return undefined;
    return this.list.findLast((e) => e.reason !== 'rate_limited' && e.reason !== 'wrong_chain');
  }

  /**
   * Proves the endpoint serves this chain (`eth_chainId`, asked through `ask`) unless it did since its
   * last failure; concurrent callers share one check. Rejects with RpcWrongChainError on another chain.
   */
  verify(endpoint: RpcEndpoint, ask: () => Promise<unknown>): Promise<void> {
    if (endpoint.verified === true) return Promise.resolve();
    if (endpoint.verified === false) {
      const check = ask().then(
        (id) => {
          if (!wellFormed('eth_chainId', id)) throw new RpcMalformedAnswerError(endpoint.host, 'eth_chainId');
          if (Number(id) !== this.chain.chainId) {
            throw new RpcWrongChainError(endpoint.host, this.chain.chainId, String(Number(id)));
          }
          if (endpoint.verified === check) endpoint.verified = true;
        },
        (error: unknown) => {
          if (endpoint.verified === check) endpoint.verified = false;
          throw error;
        },
      );
      endpoint.verified = check;
      // Whoever awaits the check handles its rejection; this reference must not count as unhandled.
      check.catch(() => {});
    }
    return endpoint.verified as Promise<void>;
  }

  /**
   * Checks every endpoint's chain id now (at start): a URL of another chain, or one that is down, is
   * reported and backed off before the first request. Never rejects.
   */
  async verifyAll(): Promise<void> {
    await Promise.all(
      this.list.map(async (endpoint) => {
        if (!endpoint.probe) return;
        try {
          await this.verify(endpoint, endpoint.probe);
        } catch (error) {
          this.failed(endpoint, error);
        }
      }),
    );
  }

  succeeded(endpoint: RpcEndpoint): void {
    if (endpoint.failures === 0 && endpoint.reason === null) return;
    if (endpoint.reason !== null) {
      this.options.logger?.info(
        { chain: this.chain.key, endpoint: endpoint.label, after: endpoint.reason },
        'rpc endpoint answers again',
      );
    }
    endpoint.failures = 0;
    endpoint.until = 0;
    endpoint.reason = null;
    this.options.metrics?.rpcEndpointUp(this.chain.key, endpoint.host, true);
  }

  /** Records a failed request; returns the reason it was backed off for, or null (the node answered). */
  failed(endpoint: RpcEndpoint, error: unknown): BackoffReason | null {
    if (error instanceof RpcEndpointSkippedError) return null;
    const reason = backoffReasonOf(error);
    if (reason === null) return null;
    endpoint.failures++;
    const { backoffMs, backoffMaxMs } = this.options;
    let wait = Math.min(backoffMaxMs, backoffMs * 2 ** (endpoint.failures - 1));
    if (reason === 'rate_limited') wait = Math.min(backoffMaxMs, Math.max(wait, retryAfterMs(error) ?? 0));
    if (reason === 'wrong_chain') wait = backoffMaxMs;
    endpoint.until = Date.now() + wait;
    endpoint.reason = reason;
    // After a failure the endpoint proves its chain again when it comes back.
    endpoint.verified = false;
    this.options.metrics?.rpcEndpointBackoff(this.chain.key, endpoint.host, reason);
    this.options.metrics?.rpcEndpointUp(this.chain.key, endpoint.host, false);
    this.options.logger?.warn(
      {
        chain: this.chain.key,
        endpoint: endpoint.label,
        reason,
        backoffMs: wait,
        failures: endpoint.failures,
      },
      'rpc endpoint backed off',
    );
    return reason;
  }
}
