// DOM helpers of the operator page (web/app.js): element lookup and creation (values written as text,
// never as HTML), copyable monospace values, token amounts and the error line of a card.

import { short, units } from './format.js';

export const $ = (selector) => document.querySelector(selector);

/** A DOM element: `attrs` are properties (className, title, href…) or `data-*`; children are nodes or text. */
export function el(tag, attrs = {}, ...children) {
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

/** A copyable monospace value: short text, full value in the title, click copies. */
export function mono(value, head, tail) {
  const node = el(
    'code',
    { className: 'mono copyable', title: `${value} (click to copy)` },
    short(value, head, tail),
  );
  node.addEventListener('click', () => copy(value, node));
  return node;
}

export async function copy(text, node) {
  try {
    await navigator.clipboard.writeText(text);
    node?.classList.add('copied');
    setTimeout(() => node?.classList.remove('copied'), 900);
  } catch {
    // Clipboard refused (insecure context): the value stays selectable in the title.
  }
}

export function amountNode(token) {
  return el(
    'span',
    { className: 'amount', title: `${token.amount} base units (${token.decimals ?? '?'} decimals)` },
    units(token.amount, token.decimals),
    el('span', { className: 'sym' }, ` ${token.symbol}`),
  );
}

export function setError(selector, error) {
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

/**
 * The sideways scroll of the tables (`.table-wrap` > `.table-scroll` > table): the wrap's
 * `data-overflow` says whether its table is wider than the box (CSS then shows the "scroll →" hint and
 * a fading right edge), `data-end` whether it is scrolled to its right end (the fade goes). Followed as
 * the box or the table changes size (a narrower window, new rows) and as it scrolls.
 */
export function watchTableOverflow() {
  for (const wrap of document.querySelectorAll('.table-wrap')) {
    const box = wrap.querySelector('.table-scroll');
    if (!box) continue;
    const update = () => {
      const overflow = box.scrollWidth > box.clientWidth + 1;
      wrap.dataset.overflow = String(overflow);
      wrap.dataset.end = String(!overflow || box.scrollLeft + box.clientWidth >= box.scrollWidth - 1);
    };
    const observer = new ResizeObserver(update);
    observer.observe(box);
    for (const child of box.children) observer.observe(child);
    box.addEventListener('scroll', update, { passive: true });
    update();
  }
}
