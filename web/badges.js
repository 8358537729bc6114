// The badges card of the operator page (web/app.js): a shields.io-like preview per metric of
// GET /api/badge, and the Markdown snippet of the selected one with this service's public URL.

import { getJson } from './api.js';
import { $, copy, el } from './dom.js';

const PUBLIC_URL = (
  document.querySelector('meta[name="public-url"]')?.getAttribute('content') || location.origin
).replace(/\/+$/, '');

const METRICS = ['volume30', 'volume7', 'volume1', 'strategies', 'makers', 'pairs', 'chains'];

const SHIELDS_COLORS = {
  brightgreen: '#4c1',
  success: '#4c1',
  green: '#97ca00',
  yellowgreen: '#a4a61d',
  yellow: '#dfb317',
  orange: '#fe7d37',
  important: '#fe7d37',
  red: '#e05d44',
  critical: '#e05d44',
  blue: '#007ec6',
  informational: '#007ec6',
  grey: '#555',
  gray: '#555',
  lightgrey: '#9f9f9f',
  lightgray: '#9f9f9f',
  inactive: '#9f9f9f',
};

function badgeColor(color, fallback) {
  if (typeof color !== 'string') return fallback;
  const named = SHIELDS_COLORS[color.toLowerCase()];
  if (named) return named;
  const hex = color.replace(/^#/, '');
  return /^(?:[0-9a-f]{3}|[0-9a-f]{6})$/i.test(hex) ? `#${hex}` : fallback;
}

function badgeUrl(metric) {
  return `https://img.shields.io/endpoint?url=${encodeURIComponent(`${PUBLIC_URL}/api/badge?metric=${metric}`)}`;
}

function badgeMarkdown(metric, label) {
  return `![${label ?? metric}](${badgeUrl(metric)})`;
}

/** The badge as shields.io would draw it: label on grey, message on the payload's colour. */
function pill(payload) {
  const label = el('span', { className: 'badge-label' }, payload.label ?? '');
  const message = el('span', { className: 'badge-message' }, payload.message ?? '');
  label.style.backgroundColor = badgeColor(payload.labelColor, '#555');
  message.style.backgroundColor = badgeColor(
    payload.isError ? (payload.color ?? 'red') : payload.color,
    '#007ec6',
  );
  return el('span', { className: 'badge', title: `${payload.label}: ${payload.message}` }, label, message);
}

const badgeRows = new Map();
let selectedMetric = METRICS[0];

function selectMetric(metric) {
  selectedMetric = metric;
  const label = badgeRows.get(metric)?.payload?.label;
  $('#badge-metric').textContent = metric;
  $('#badge-snippet').value = badgeMarkdown(metric, label);
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
        copy(badgeMarkdown(metric, badgeRows.get(metric)?.payload?.label), button);
      });
      const node = el(
        'tr',
        { 'data-metric': metric },
        el('td', {}, el('code', {}, metric)),
        preview,
        el('td', {}, button),
      );
      node.addEventListener('click', () => selectMetric(metric));
      badgeRows.set(metric, { node, preview, payload: null });
      return node;
    }),
  );
  selectMetric(selectedMetric);
}

export async function refreshBadges() {
  const results = await Promise.allSettled(
    METRICS.map(async (metric) => {
      const payload = await getJson(`/api/badge?metric=${metric}`);
      const row = badgeRows.get(metric);
      row.payload = payload;
      row.preview.replaceChildren(pill(payload));
    }),
  );
  results.forEach((result, i) => {
    if (result.status === 'rejected') {
      badgeRows.get(METRICS[i]).preview.replaceChildren(el('span', { className: 'muted' }, 'unavailable'));
    }
  });
  selectMetric(selectedMetric);
  const limited = results.find((r) => r.status === 'rejected' && r.reason?.status === 429);
  if (limited) throw limited.reason;
}
