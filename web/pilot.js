// The pilot card of the operator page (web/app.js): the demo wallets, the pilot's strategy, the fee
// receiver's balances and the recent swaps, from GET /api/pilot.

import { getJson } from './api.js';
import { $, amountNode, el, mono, setError } from './dom.js';
import { ago, integer, units } from './format.js';
import { setHealth } from './status.js';

const SWAPS_SHOWN = 12;

export let pilotWallets = [];
/** The pilot's chain id: a catalogue event on it refreshes the pilot. */
export let pilotChainId = null;

function renderPilot(data, meta) {
  pilotChainId = data.chainId;
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

export async function refreshPilot() {
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
