// The stats card of the operator page (web/app.js): totals, the per-chain roll-up and the top pairs,
// from GET /api/stats; the badge previews (web/badges.js) are drawn from the same totals.

import { getJson } from './api.js';
import { renderBadges } from './badges.js';
import { $, el, setError } from './dom.js';
import { ago, integer, usd, usdExact } from './format.js';
import { setHealth } from './status.js';

function pairLabel(item) {
  if (typeof item.pair === 'string') return item.pair;
  if (item.tokenA && item.tokenB)
    return `${item.tokenA.symbol ?? item.tokenA}/${item.tokenB.symbol ?? item.tokenB}`;
  if (Array.isArray(item.symbols)) return item.symbols.join('/');
  return item.pair_key ?? '?';
}

function renderRank(selector, items, value) {
  const list = $(selector);
  if (!Array.isArray(items) || items.length === 0) {
    list.replaceChildren(el('li', { className: 'empty' }, 'No pairs yet'));
    return;
  }
  list.replaceChildren(
    ...items
      .slice(0, 5)
      .map((item) =>
        el(
          'li',
          {},
          el('span', { className: 'pair' }, pairLabel(item)),
          el('span', { className: 'num' }, value(item)),
        ),
      ),
  );
}

export async function refreshStats() {
  try {
    const { data, meta } = await getJson('/api/stats');
    const totals = data.totals ?? {};
    for (const node of document.querySelectorAll('[data-kpi]')) {
      const key = node.dataset.kpi;
      const value = totals[key];
      // The figure as read, for whoever compares it with the badge previews.
      node.dataset.value = value ?? '';
      if (key.startsWith('volume')) {
        node.textContent = usd(value);
        node.title = typeof value === 'number' ? usdExact.format(value) : '';
      } else if (key === 'last_activity') {
        node.textContent = ago(value);
        node.title = value ?? '';
      } else {
        node.textContent = typeof value === 'number' ? integer.format(value) : '—';
      }
    }
    renderBadges(totals);
    const updated = totals.rollup_updated_at;
    $('#stats-meta').textContent =
      `roll-up ${updated ? ago(updated) : 'pending'}${meta?.cached ? ' · cached' : ''}`;

    const chains = Array.isArray(data.chains) ? data.chains : [];
    $('#chains tbody').replaceChildren(
      ...(chains.length === 0
        ? [el('tr', { className: 'empty' }, el('td', { colSpan: 4 }, 'No chains yet'))]
        : chains.map((c) =>
            el(
              'tr',
              {},
              el('td', {}, el('span', { className: 'chain' }, c.chain)),
              el('td', { className: 'num' }, integer.format(c.count ?? 0)),
              el(
                'td',
                { className: 'num', title: usdExact.format(c.volume_30d_usd ?? 0) },
                usd(c.volume_30d_usd),
              ),
              el('td', { className: 'num muted', title: c.last_activity ?? '' }, ago(c.last_activity)),
            ),
          )),
    );
    renderRank('#pairs-volume', data.top_pairs_by_volume, (p) => usd(p.volume_30d_usd ?? p.volume_usd));
    renderRank('#pairs-positions', data.top_pairs_by_positions, (p) =>
      integer.format(p.count ?? p.positions ?? p.strategies ?? 0),
    );
    $('#stats').dataset.state = 'ready';
    setError('#stats-error', null);
    setHealth('stats', true);
  } catch (error) {
    setError('#stats-error', error);
    $('#stats').dataset.state = 'error';
    setHealth('stats', false);
    throw error;
  }
}
