/**
 * A Server-Sent Events client for the suites: fetch over the socket, the body parsed per the HTML
 * standard's event-stream rules (fields id, event, data, retry; `:` comments; a blank line dispatches,
 * and an `id:` without data moves the last event id without an event).
 */

export interface SseMessage {
  id: string;
  event: string;
  data: string;
}

export interface SseStream {
  res: Response;
  messages: SseMessage[];
  comments: string[];
  /** When each comment arrived (Date.now()), index for index with `comments`. */
  commentsAt: number[];
  retry: number | null;
  /** The last event id as a browser would hold it. */
  lastEventId: string;
  /** Resolves when the body ends (the server ended it, or `close()`). */
  ended: Promise<void>;
  /** Waits until `count` messages arrived (or fails after `timeoutMs`). */
  waitForMessages(count: number, timeoutMs?: number): Promise<SseMessage[]>;
  waitFor(check: () => boolean, timeoutMs?: number, what?: string): Promise<void>;
  close(): void;
}

export async function openSse(url: string, headers: Record<string, string> = {}): Promise<SseStream> {
  const abort = new AbortController();
  /** What the body brought, for the failure messages. */
  let received = '';
  const res = await fetch(url, {
    headers: { accept: 'text/event-stream', ...headers },
    signal: abort.signal,
  });
  const stream: SseStream = {
    res,
    messages: [],
    comments: [],
    commentsAt: [],
    retry: null,
    lastEventId: '',
    ended: Promise.resolve(),
    async waitForMessages(count, timeoutMs = 15_000) {
      await stream.waitFor(() => stream.messages.length >= count, timeoutMs, `${count} messages`);
      return stream.messages.slice(0, count);
    },
    async waitFor(check, timeoutMs = 15_000, what = 'condition') {
      const until = Date.now() + timeoutMs;
      while (!check()) {
        if (Date.now() > until)
          throw new Error(
            `timed out waiting for ${what} (${stream.messages.length} messages so far; received: ${JSON.stringify(received.slice(0, 2000))})`,
          );
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    close: () => abort.abort(),
  };
  if (!res.ok || !res.body) return stream;
  let event = '';
  let data: string[] = [];
  const line = (text: string) => {
    if (text === '') {
      if (data.length > 0)
        stream.messages.push({ id: stream.lastEventId, event: event || 'message', data: data.join('\n') });
      event = '';
      data = [];
      return;
    }
    if (text.startsWith(':')) {
      stream.comments.push(text.slice(1).trim());
      stream.commentsAt.push(Date.now());
      return;
    }
    const colon = text.indexOf(':');
    const field = colon < 0 ? text : text.slice(0, colon);
    let value = colon < 0 ? '' : text.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'id') stream.lastEventId = value;
    else if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
    else if (field === 'retry' && /^\d+$/.test(value)) stream.retry = Number(value);
  };
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  stream.ended = (async () => {
    let buffer = '';
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        buffer += value;
        if (received.length < 2000) received += value;
        let at = buffer.indexOf('\n');
        while (at >= 0) {
          line(buffer.slice(0, at).replace(/\r$/, ''));
          buffer = buffer.slice(at + 1);
          at = buffer.indexOf('\n');
        }
      }
    } catch {
      // Aborted by close(), or the connection was cut: the stream ended either way.
    }
  })();
  return stream;
}
