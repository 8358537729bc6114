/** What a fault suite sends: a named request relative to the service's URL. */
export interface LoadRequest {
  name: string;
  path: string;
  init?: RequestInit;
}

/** One answer (or the lack of one) seen by the load loop. */
export interface Sample {
  name: string;
  /** Epoch ms when the request was sent. */
  at: number;
  /** Milliseconds until the whole body was read, or until the client gave up. */
  ms: number;
  /** 0: no HTTP answer (connection error, or no answer within the client's timeout). */
  status: number;
  code: string | null;
  retryable: boolean | null;
  requestId: boolean;
  /** All four RateLimit-* headers present. */
  rateLimit: boolean;
  body: unknown;
  error: string | null;
}

const RATE_LIMIT_HEADERS = ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'ratelimit-policy'];

export async function send(baseUrl: string, request: LoadRequest, timeoutMs: number): Promise<Sample> {
  const at = Date.now();
  const started = performance.now();
  const sample: Sample = {
    name: request.name,
    at,
    ms: 0,
    status: 0,
    code: null,
    retryable: null,
    requestId: false,
    rateLimit: false,
    body: null,
    error: null,
  };
  try {
    const res = await fetch(`${baseUrl}${request.path}`, {
      ...request.init,
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await res.text();
    sample.status = res.status;
    sample.requestId = res.headers.has('x-request-id');
    sample.rateLimit = RATE_LIMIT_HEADERS.every((h) => res.headers.has(h));
    try {
      sample.body = JSON.parse(text);
    } catch {
      sample.body = text.slice(0, 200);
    }
    const error = (sample.body as { error?: { code?: unknown; retryable?: unknown } } | null)?.error;
    if (error && typeof error === 'object') {
      sample.code = typeof error.code === 'string' ? error.code : null;
      sample.retryable = typeof error.retryable === 'boolean' ? error.retryable : null;
    }
  } catch (error) {
    sample.error = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  }
  sample.ms = Math.round(performance.now() - started);
  return sample;
}

/**
 * A bounded load: `concurrency` workers send `next(i)` back to back until `durationMs` has passed or
 * `until()` says so, whichever is first (each request bounded by `timeoutMs` on the client side); the
 * loop stops by itself. `onSample` sees each answer as it comes (for a caller that waits on the load).
 */
export async function loadLoop(
  baseUrl: string,
  options: {
    durationMs: number;
    concurrency: number;
    timeoutMs: number;
    next: (i: number) => LoadRequest;
    until?: () => boolean;
    onSample?: (sample: Sample) => void;
  },
): Promise<Sample[]> {
  const samples: Sample[] = [];
  const end = Date.now() + options.durationMs;
  let counter = 0;
  const worker = async () => {
    while (Date.now() < end && !options.until?.()) {
      const sample = await send(baseUrl, options.next(counter++), options.timeoutMs);
      samples.push(sample);
      options.onSample?.(sample);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  return samples;
}

/** Counts per `name status code`, for readable failure messages and logs. */
export function tally(samples: readonly Sample[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const s of samples) {
    const key = `${s.name} ${s.status}${s.code ? ` ${s.code}` : ''}${s.error ? ` ${s.error}` : ''}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

/** Polls `check` until it returns true or `timeoutMs` passes; returns the milliseconds it took. */
export async function eventually(
  what: string,
  check: () => Promise<boolean>,
  timeoutMs: number,
  intervalMs = 200,
): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await check().catch(() => false)) return Date.now() - started;
    if (Date.now() - started > timeoutMs) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/**
 * Reads until `done` holds for the value or `timeoutMs` passes, and returns the last value read either
 * way: the caller's assertion on it then says what was there instead.
 */
export async function until<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 20_000,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > end) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
}
