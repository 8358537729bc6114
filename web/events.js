// The operator page's (web/app.js) live stream: GET /api/events, reopened after a refusal; `stream.open`
// says whether refreshes may follow its events.

import { $ } from './dom.js';

/** After the stream was refused (429, 503) or given up by the browser, the wait before opening it again. */
const STREAM_REOPEN_MS = 30_000;

export const stream = { open: false };

/** Opens GET /api/events; `onEvent(name, data)` for each catalogue event, `onChange()` when it opens or drops. */
export function connectEvents(onEvent, onChange) {
  if (typeof EventSource !== 'function') return;
  const source = new EventSource('/api/events');
  const set = (open) => {
    $('#status').title = open ? 'live events stream open' : 'polling (events stream not open)';
    if (stream.open === open) return;
    stream.open = open;
    onChange();
  };
  source.addEventListener('open', () => set(true));
  source.addEventListener('error', () => {
    set(false);
    // The browser reconnects by itself (with Last-Event-ID) unless the server refused the stream.
    if (source.readyState === EventSource.CLOSED)
      setTimeout(() => connectEvents(onEvent, onChange), STREAM_REOPEN_MS);
  });
  for (const name of ['strategy.shipped', 'strategy.swapped', 'strategy.docked', 'reset']) {
    source.addEventListener(name, (event) => {
      let data = null;
      try {
        data = JSON.parse(event.data);
      } catch {
        data = null;
      }
      onEvent(name, data);
    });
  }
}
