// The operator page's (web/app.js) status light: live while the stats and the pilot both answer,
// degraded when one of them fails.

import { $ } from './dom.js';

const health = { stats: null, pilot: null };
export function setHealth(part, ok) {
  health[part] = ok;
  const values = Object.values(health).filter((v) => v !== null);
  const state = values.length === 0 ? 'connecting' : values.every(Boolean) ? 'live' : 'degraded';
  $('#status').dataset.state = state;
  $('#status-text').textContent = { connecting: 'connecting…', live: 'live', degraded: 'degraded' }[state];
}
