// The badges card of the operator page (web/app.js): a shields.io-like preview per metric of
// GET /api/badge, and the Markdown snippet of the selected one with this service's public URL. The
// previews are drawn from the /api/stats read the Catalogue tiles show (renderBadges, called by
// web/stats.js with the same totals), formatted and coloured as the service formats its badges
// (resolvers/catalogue/badge.ts): fetched apart, each from its own 60 s cache, they showed other numbers
// than the tiles beside them.

import { $, copy, el } from './dom.js';

const PUBLIC_URL = (
  document.querySelector('meta[name="public-url"]')?.getAttribute('content') || location.origin
).replace(/\/+$/, '');

const METRICS = ['volume30', 'volume7', 'volume1', 'strategies', 'makers', 'pairs', 'chains'];

/** Per metric: its label (BADGE_LABELS of the service) and the field of the stats' totals it shows. */
const BADGE = {
  volume30: { label: 'volume 30d', total: 'volume_30d_usd' },
  volume7: { label: 'volume 7d', total: 'volume_7d_usd' },
  volume1: { label: 'volume 24h', total: 'volume_1d_usd' },
  strategies: { label: 'strategies', total: 'strategies' },
  makers: { label: 'makers', total: 'makers' },
  pairs: { label: 'pairs', total: 'pairs' },
  chains: { label: 'chains', total: 'chains' },
};

const UNITS = [
  [1, ''],
  [1e3, 'K'],
  [1e6, 'M'],
  [1e9, 'B'],
  [1e12, 'T'],
];

/** The service's formatCompact: one decimal under 10 of a unit, none from 10 on; 999,999 → "1M". */
function compact(value) {
  if (!Number.isFinite(value)) return '0';
  const sign = value < 0 ? '-' : '';
  const abs = Math.abs(value);
  let i = Math.max(
    0,
    UNITS.findLastIndex(([size]) => abs >= size),
  );
  for (;;) {
    const [size, suffix] = UNITS[i];
    const scaled = abs / size;
    const rounded = scaled < 9.95 ? Math.round(scaled * 10) / 10 : Math.round(scaled);
    if (rounded >= 1000 && i < UNITS.length - 1) {
      i++;
      continue;
    }
    return `${sign}${rounded}${suffix}`;
  }
}

/** The badge body the service renders for `metric` from these totals (a missing total counts 0). */
function badgePayload(metric, totals) {
  const { label, total } = BADGE[metric];
  const value = typeof totals?.[total] === 'number' ? totals[total] : 0;
  const money = metric.startsWith('volume');
  let message;
  if (money) {
    const text = compact(value);
    message = text.startsWith('-') ? `-$${text.slice(1)}` : `$${text}`;
  } else {
    message = Math.abs(value) < 10_000 ? Math.round(value).toLocaleString('en-US') : compact(value);
  }
  return { label, message, color: value > 0 ? (money ? 'brightgreen' : 'blue') : 'lightgrey', value };
}

/** shields.io's colours of the three the service's badges use. */
const SHIELDS_COLORS = { brightgreen: '#4c1', blue: '#007ec6', lightgrey: '#9f9f9f' };

function badgeUrl(metric) {
  return `https://img.shields.io/endpoint?url=${encodeURIComponent(`${PUBLIC_URL}/api/badge?metric=${metric}`)}`;
}

function badgeMarkdown(metric) {
  return `![${BADGE[metric].label}](${badgeUrl(metric)})`;
}

/** The badge as shields.io would draw it: label on grey, message on the payload's colour. */
function pill(payload) {
  const label = el('span', { className: 'badge-label' }, payload.label);
  const message = el('span', { className: 'badge-message' }, payload.message);
  label.style.backgroundColor = '#555';
  message.style.backgroundColor = SHIELDS_COLORS[payload.color];
  return el(
    'span',
    { className: 'badge', title: `${payload.label}: ${payload.message}`, 'data-value': payload.value },
    label,
    message,
  );
}

const badgeRows = new Map();
let selectedMetric = METRICS[0];

function selectMetric(metric) {
  selectedMetric = metric;
  $('#badge-metric').textContent = metric;
  $('#badge-snippet').value = badgeMarkdown(metric);
  $('#badge-link').href = badgeUrl(metric);
  for (const [name, row] of badgeRows) row.node.classList.toggle('selected', name === metric);
}

export function buildBadges() {
  $('#badges-table tbody').replaceChildren(
    ...METRICS.map((metric) => {
      const preview = el('td', { className: 'preview' }, el('span', { className: 'muted' }, '…'));
      const button = el('button', { type: 'button', className: 'secondary small' }, 'Copy');
      button.addEventListener('click', (event) => {
        event.stopPropagation();
        selectMetric(metric);
        copy(badgeMarkdown(metric), button);
      });
      const node = el(
        'tr',
        { 'data-metric': metric },
        el('td', {}, el('code', {}, metric)),
        preview,
        el('td', {}, button),
      );
      node.addEventListener('click', () => selectMetric(metric));
      badgeRows.set(metric, { node, preview });
      return node;
    }),
  );
  selectMetric(selectedMetric);
}

/** The previews of the stats' `totals`: the figures the Catalogue tiles show, as the badges word them. */
export function renderBadges(totals) {
  for (const [metric, row] of badgeRows) row.preview.replaceChildren(pill(badgePayload(metric, totals)));
}
