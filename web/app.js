// The operator page: plain DOM, no framework, no build step. Every value from the API is written with
// textContent, never as HTML. Refreshes pause while the tab is hidden, and back off on 429. While the
// live stream (GET /api/events) is open, the pilot and the stats refresh when an event says something
// changed, with a slow poll as a safety net; without it (refused, unsupported, lost) they poll as before.
// The badge previews are drawn from the stats' totals, so they always show the tiles' figures.

import { buildBadges } from './badges.js';
import { lookUpBalances } from './balances.js';
import { $, copy, watchTableOverflow } from './dom.js';
import { connectEvents, stream } from './events.js';
import { pilotChainId, pilotWallets, refreshPilot } from './pilot.js';
import { every } from './schedule.js';
import { refreshStats } from './stats.js';

const PILOT_EVERY_MS = 5_000;
const STATS_EVERY_MS = 15_000;
/** Polls while the stream is open: events trigger the refreshes, this only catches what they do not say. */
const STREAMING_EVERY_MS = 60_000;
/** Least time between two refreshes of one part that events trigger (stats are cached 60 s anyway). */
const PILOT_MIN_GAP_MS = 1_000;
const STATS_MIN_GAP_MS = 15_000;

$('#balances-form').addEventListener('submit', (event) => {
  event.preventDefault();
  lookUpBalances($('#balances-input').value);
});
$('#balances-pilot').addEventListener('click', () => {
  if (pilotWallets.length === 0) return;
  $('#balances-input').value = pilotWallets.join(', ');
  lookUpBalances($('#balances-input').value);
});
$('#badge-copy').addEventListener('click', (event) => copy($('#badge-snippet').value, event.currentTarget));

buildBadges();
watchTableOverflow();
const streamed = (everyMs) => () => (stream.open ? Math.max(everyMs, STREAMING_EVERY_MS) : everyMs);
const pilot = every(refreshPilot, streamed(PILOT_EVERY_MS), PILOT_MIN_GAP_MS);
const stats = every(refreshStats, streamed(STATS_EVERY_MS), STATS_MIN_GAP_MS);
connectEvents(
  (name, data) => {
    // A reset means events were missed: refresh everything the events would have refreshed.
    if (name === 'reset' || data?.chainId === pilotChainId) pilot.poke();
    stats.poke();
  },
  // Opened: the next refreshes follow events. Dropped: back to polling at once.
  () => {
    if (!stream.open) {
      pilot.poke();
      stats.poke();
    }
  },
);
// Relative times ("12 s ago") age between refreshes too: the next render picks them up.
