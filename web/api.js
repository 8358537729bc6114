// The operator page's (web/app.js) calls to the service: same-origin JSON reads; a failure is an
// HttpError (status, the envelope's code and parameter, Retry-After).

export class HttpError extends Error {
  constructor(status, envelope, retryAfter) {
    super(envelope?.error?.message ?? `HTTP ${status}`);
    this.status = status;
    this.code = envelope?.error?.code ?? null;
    this.parameter = envelope?.error?.parameter ?? null;
    this.retryAfter = retryAfter;
  }
}

export async function getJson(path) {
  const res = await fetch(path, {
    headers: { accept: 'application/json' },
    cache: 'no-store',
    credentials: 'same-origin',
    referrerPolicy: 'same-origin',
  });
  let body = null;
  try {
    body = await res.json();
  } catch {
    body = null;
  }
  if (!res.ok) throw new HttpError(res.status, body, Number(res.headers.get('retry-after')) || null);
  return body;
}
