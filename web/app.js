// The operator page: plain DOM, no framework, no build step. Every value from the API is written with
// textContent, never as HTML. Refreshes pause while the tab is hidden, and back off on 429.

const PUBLIC_URL = (
  document.querySelector('meta[name="public-url"]')?.getAttribute('content') || location.origin
).replace(/\/+$/, '');
const PILOT_EVERY_MS = 5_000;
const STATS_EVERY_MS = 15_000;
const BADGES_EVERY_MS = 60_000;
const SWAPS_SHOWN = 12;
const METRICS = ['volume30', 'volume7', 'volume1', 'strategies', 'makers', 'pairs', 'chains'];

const $ = (selector) => document.querySelector(selector);

/** A DOM element: `attrs` are properties (className, title, href…) or `data-*`; children are nodes or text. */
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null) continue;
    if (name.startsWith('data-') || name.startsWith('aria-')) node.setAttribute(name, String(value));
    else node[name] = value;
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

class HttpError extends Error {
  constructor(status, envelope, retryAfter) {
    super(envelope?.error?.message ?? `HTTP ${status}`);
    this.status = status;
    this.code = envelope?.error?.code ?? null;
    this.parameter = envelope?.error?.parameter ?? null;
    this.retryAfter = retryAfter;
  }
}

async function getJson(path) {
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

// ---- formatting -------------------------------------------------------------------------------

const usdCompact = new Intl.NumberFormat('en-US', {
  style: 'currency',
  currency: 'USD',
  notation: 'compact',
  maximumFractionDigits: 2,
});
const usdExact = new Intl.NumberFormat('en-US', {
  style: 'currency',
  currency: 'USD',
  maximumFractionDigits: 2,
});
const integer = new Intl.NumberFormat('en-US');

function usd(value) {
  if (typeof value !== 'number' || !Number.isFinite(value)) return '—';
  return Math.abs(value) >= 100_000 ? usdCompact.format(value) : usdExact.format(value);
}

/** A base-unit integer string as a decimal with `shown` fraction digits, grouped by thousands (no floats). */
function units(amount, decimals, shown = 2) {
  if (amount === null || amount === undefined) return '—';
  if (decimals === null || decimals === undefined) return String(amount);
  let value;
  try {
    value = BigInt(amount);
  } catch {
    return String(amount);
  }
  const negative = value < 0n;
  if (negative) value = -value;
  const digits = Math.min(shown, decimals);
  const step = 10n ** BigInt(decimals - digits);
  const rounded = (value + step / 2n) / step;
  const whole = rounded / 10n ** BigInt(digits);
  const fraction = rounded % 10n ** BigInt(digits);
  const text = integer.format(whole) + (digits > 0 ? `.${fraction.toString().padStart(digits, '0')}` : '');
  return (
    (negative ? '-' : '') + (value > 0n && rounded === 0n ? `<${(1 / 10 ** digits).toFixed(digits)}` : text)
  );
}

function ago(iso) {
  if (!iso) return '—';
  const seconds = Math.round((Date.now() - Date.parse(iso)) / 1000);
  if (!Number.isFinite(seconds)) return '—';
  if (seconds < 5) return 'just now';
  if (seconds < 60) return `${seconds} s ago`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)} h ago`;
  return `${Math.floor(seconds / 86_400)} d ago`;
}

function short(hex, head = 6, tail = 4) {
  if (typeof hex !== 'string' || hex.length <= head + tail + 1) return hex ?? '—';
  return `${hex.slice(0, head)}…${hex.slice(-tail)}`;
}

/** A copyable monospace value: short text, full value in the title, click copies. */
function mono(value, head, tail) {
  const node = el(
    'code',
    { className: 'mono copyable', title: `${value} (click to copy)` },
    short(value, head, tail),
  );
  node.addEventListener('click', () => copy(value, node));
  return node;
}

async function copy(text, node) {
  try {
    await navigator.clipboard.writeText(text);
    node?.classList.add('copied');
    setTimeout(() => node?.classList.remove('copied'), 900);
  } catch {
    // Clipboard refused (insecure context): the value stays selectable in the title.
  }
}

function amountNode(token) {
  return el(
    'span',
    { className: 'amount', title: `${token.amount} base units (${token.decimals ?? '?'} decimals)` },
    units(token.amount, token.decimals),
    el('span', { className: 'sym' }, ` ${token.symbol}`),
  );
}

function setError(selector, error) {
  const node = $(selector);
  if (!error) {
    node.hidden = true;
    node.textContent = '';
    return;
  }
  node.hidden = false;
  const where = error.parameter ? ` (${error.parameter})` : '';
  node.textContent = `${error.code ? `${error.code}: ` : ''}${error.message}${where}`;
}

// ---- status -----------------------------------------------------------------------------------

const health = { stats: null, pilot: null };
function setHealth(part, ok) {
  health[part] = ok;
  const values = Object.values(health).filter((v) => v !== null);
  const state = values.length === 0 ? 'connecting' : values.every(Boolean) ? 'live' : 'degraded';
  $('#status').dataset.state = state;
  $('#status-text').textContent = { connecting: 'connecting…', live: 'live', degraded: 'degraded' }[state];
}

// ---- stats ------------------------------------------------------------------------------------

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

async function refreshStats() {
  try {
    const { data, meta } = await getJson('/api/stats');
    const totals = data.totals ?? {};
    for (const node of document.querySelectorAll('[data-kpi]')) {
      const key = node.dataset.kpi;
      const value = totals[key];
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

// ---- pilot ------------------------------------------------------------------------------------

let pilotWallets = [];

function renderPilot(data, meta) {
  $('#pilot-network').textContent = `${data.name} · ${data.chainId}`;
  $('#pilot-meta').textContent =
    `block ${integer.format(Number(data.blockNumber))} · ${meta?.cached ? 'cached' : 'fresh'} ${ago(data.observedAt)}`;

  const roles = [
    ['maker', 'Maker'],
    ['taker', 'Taker'],
    ['feeWallet', 'Fee wallet'],
  ];
  pilotWallets = roles.map(([key]) => data.wallets?.[key]?.address).filter(Boolean);
  $('#pilot-wallets').replaceChildren(
    ...roles.flatMap(([key, label]) => {
      const wallet = data.wallets?.[key];
      if (!wallet) return [];
      return [
        el('dt', {}, label, ' ', mono(wallet.address)),
        el('dd', {}, ...wallet.balances.map((b) => el('span', { className: 'chip' }, amountNode(b)))),
      ];
    }),
  );

  const s = data.strategy;
  $('#pilot-strategy').replaceChildren(
    el(
      'div',
      { className: 'strategy-head' },
      mono(s.hash, 10, 8),
      el('span', { className: `pill pill-${s.status}` }, s.status.replace('_', ' ')),
    ),
    el(
      'div',
      { className: 'reserves' },
      ...s.tokens.map((t) =>
        el('div', { className: 'reserve' }, el('span', { className: 'sym-big' }, t.symbol), amountNode(t)),
      ),
    ),
    el('div', { className: 'muted small' }, 'maker ', mono(s.maker), ' · router ', mono(s.app)),
  );

  $('#pilot-fee').replaceChildren(
    ...data.feeReceiver.balances.map((b) =>
      el('div', { className: 'fee-row' }, el('span', { className: 'sym-big' }, b.symbol), amountNode(b)),
    ),
  );

  const swaps = data.swaps;
  const volume = swaps.volume.map((v) => `${units(v.amount, v.decimals)} ${v.symbol}`).join(' + ');
  $('#pilot-window').textContent =
    `${swaps.count} swap${swaps.count === 1 ? '' : 's'} in the last ${integer.format(swaps.blockWindow)} blocks` +
    (volume ? ` · ${volume} in` : '');
  $('#pilot-swaps tbody').replaceChildren(
    ...(swaps.items.length === 0
      ? [el('tr', { className: 'empty' }, el('td', { colSpan: 6 }, 'No swaps in the window yet'))]
      : swaps.items
          .slice(0, SWAPS_SHOWN)
          .map((swap) =>
            el(
              'tr',
              { 'data-tx': swap.transactionHash },
              el('td', { className: 'muted', title: swap.timestamp ?? '' }, ago(swap.timestamp)),
              el('td', { className: 'muted' }, integer.format(Number(swap.blockNumber))),
              el('td', { className: 'num' }, amountNode(swap.tokenIn)),
              el('td', { className: 'arrow', 'aria-hidden': 'true' }, '→'),
              el('td', { className: 'num' }, amountNode(swap.tokenOut)),
              el('td', {}, mono(swap.transactionHash, 10, 6)),
            ),
          )),
  );
}

async function refreshPilot() {
  try {
    const { data, meta } = await getJson('/api/pilot');
    renderPilot(data, meta);
    $('#pilot').dataset.state = 'ready';
    setError('#pilot-error', null);
    setHealth('pilot', true);
  } catch (error) {
    setError('#pilot-error', error);
    if ($('#pilot').dataset.state !== 'ready') $('#pilot').dataset.state = 'error';
    setHealth('pilot', false);
    throw error;
  }
}

// ---- balances ---------------------------------------------------------------------------------

async function lookUpBalances(text) {
  const addresses = text
    .split(/[\s,]+/)
    .map((a) => a.trim())
    .filter(Boolean)
    .join(',');
  const table = $('#balances-table');
  try {
    const { data } = await getJson(`/api/balances?addresses=${encodeURIComponent(addresses)}`);
    const symbols = [
      data.accounts[0]?.native.symbol ?? 'ETH',
      ...(data.accounts[0]?.tokens ?? []).map((t) => t.symbol),
    ];
    table.tHead.replaceChildren(
      el('tr', {}, el('th', {}, 'Address'), ...symbols.map((s) => el('th', { className: 'num' }, s))),
    );
    table.tBodies[0].replaceChildren(
      ...data.accounts.map((a) =>
        el(
          'tr',
          {},
          el('td', {}, mono(a.address, 10, 6)),
          ...[a.native, ...a.tokens].map((t) =>
            el('td', { className: 'num', title: `${t.amount} base units` }, units(t.amount, t.decimals, 4)),
          ),
        ),
      ),
    );
    table.hidden = false;
    setError('#balances-error', null);
  } catch (error) {
    table.hidden = true;
    setError('#balances-error', error);
  }
}

// ---- badges -----------------------------------------------------------------------------------

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

function buildBadges() {
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

async function refreshBadges() {
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

// ---- scheduling -------------------------------------------------------------------------------

/** Runs `task` now and every `everyMs`, waiting while the tab is hidden and for Retry-After on 429. */
function every(task, everyMs) {
  let timer = null;
  const run = async () => {
    timer = null;
    if (document.hidden) return;
    let wait = everyMs;
    try {
      await task();
    } catch (error) {
      if (error?.status === 429 && error.retryAfter) wait = Math.max(everyMs, error.retryAfter * 1000);
    }
    if (!document.hidden) timer = setTimeout(run, wait);
  };
  document.addEventListener('visibilitychange', () => {
    if (!document.hidden && timer === null) run();
  });
  run();
}

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
every(refreshPilot, PILOT_EVERY_MS);
every(refreshStats, STATS_EVERY_MS);
every(refreshBadges, BADGES_EVERY_MS);
// Relative times ("12 s ago") age between refreshes too: the next render picks them up.
