// The balances look-up of the operator page (web/app.js): native and demo-token balances of the
// addresses typed, from GET /api/balances.

import { getJson } from './api.js';
import { $, el, mono, setError } from './dom.js';
import { units } from './format.js';

export async function lookUpBalances(text) {
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
