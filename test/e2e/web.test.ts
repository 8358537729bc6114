import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Devnet } from '../../devnet/devnet.js';
import type { ChainConfig } from '../../lib/config.js';
import { ERROR_CODE_LIST } from '../../lib/errors.js';
import {
  BADGE_LABELS,
  BADGE_METRICS,
  type BadgeMetric,
  formatCount,
  formatUsd,
} from '../../resolvers/catalogue/badge.js';
import { startSeededDevnet } from '../helpers/devnetSnapshot.js';
import { testPort } from '../helpers/ports.js';
import { startTestService, type TestService } from '../helpers/service.js';

/**
 * The operator page in a real browser (Debian's Chromium driven by playwright-core) against the
 * service on the devnet: pilot swaps and stats rendered, the balances look-up, the badge snippets; at
 * a phone's width (390 px) and a laptop's (1280 px) nothing clipped, no sideways scroll (a wide table
 * scrolls in its own box, with a hint), the badge previews showing the tiles' figures, and the error
 * pages wrapped. Screenshots of both widths go to test-results/ (the CI artefacts):
 * web-390.png, web-1280.png, docs-error-390.png, docs-error-1280.png. Devnet ports 19400-19402.
 */

const BASE_PORT = testPort(19400);
const CHROMIUM = '/usr/bin/chromium';
const SCREENSHOTS = path.resolve('test-results');

/** The Catalogue tile (`data-kpi`) whose figure each badge metric words. */
const TILE_OF: Record<BadgeMetric, string> = {
  volume30: 'volume_30d_usd',
  volume7: 'volume_7d_usd',
  volume1: 'volume_1d_usd',
  strategies: 'strategies',
  makers: 'makers',
  pairs: 'pairs',
  chains: 'chains',
};

/**
 * What does not fit the viewport: the document's scroll width, the figures wider than their box, and
 * the elements reaching past the right edge outside a box that scrolls or clips them.
 */
function layoutOf(page: Page) {
  return page.evaluate(() => {
    const root = document.documentElement;
    const clipped = [
      ...document.querySelectorAll<HTMLElement>('.kpi-value, .pill, .meta, .kpi-label, .badge'),
    ]
      .filter((el) => el.offsetParent !== null && el.scrollWidth > el.clientWidth + 1)
      .map((el) => `${el.className}: ${el.textContent} (${el.scrollWidth} > ${el.clientWidth})`);
    const overflowing = [...document.querySelectorAll<HTMLElement>('body *')]
      .filter((el) => el.getBoundingClientRect().right > root.clientWidth + 1)
      .filter((el) => {
        for (let p = el.parentElement; p; p = p.parentElement)
          if (/(auto|scroll|hidden)/.test(getComputedStyle(p).overflowX)) return false;
        return true;
      })
      .map((el) => `${el.tagName.toLowerCase()}#${el.id}.${el.className}`)
      .slice(0, 5);
    return { scrollWidth: root.scrollWidth, clientWidth: root.clientWidth, clipped, overflowing };
  });
}

let devnet: Devnet;
let dataDir: string;
let svc: TestService;
let browser: Browser;
let sepolia: ChainConfig;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'web-e2e-'));
  devnet = await startSeededDevnet({ basePort: BASE_PORT, dataDir, activityMs: 500 });
  sepolia = devnet.chains.find((c) => c.testnet && c.pilot)!;
  svc = await startTestService({
    chains: devnet.chains,
    env: { ROLLUP_REFRESH_MS: '1000', INDEXER_POLL_MS: '200' },
  });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
    ],
  });
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await svc?.stop();
  await devnet?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('the page is served by the service', () => {
  it('serves one HTML at / and /demo, with its script and stylesheet, in the web bucket', async () => {
    for (const p of ['/', '/demo']) {
      const res = await svc.get(p);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.headers.get('referrer-policy')).toBe('same-origin');
      expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
      expect(res.headers.get('ratelimit-policy')).toBe('web;w=60;limit=120');
      const html = await res.text();
      expect(html).toContain(`<meta name="public-url" content="${svc.url}" />`);
      expect(html).toContain('/web/app.js');
    }
    // The script and the ES modules it imports (followed from app.js): each served, as JavaScript.
    const modules = new Set<string>();
    const pending = ['app.js'];
    while (pending.length > 0) {
      const name = pending.pop()!;
      if (modules.has(name)) continue;
      modules.add(name);
      const script = await svc.get(`/web/${name}`);
      expect(script.status, name).toBe(200);
      expect(script.headers.get('content-type'), name).toBe('text/javascript; charset=utf-8');
      for (const m of (await script.text()).matchAll(/^import .+ from '\.\/([\w-]+\.js)';$/gm))
        pending.push(m[1]!);
    }
    expect(modules.size).toBeGreaterThan(1);
    const style = await svc.get('/web/style.css');
    expect(style.headers.get('content-type')).toBe('text/css; charset=utf-8');
    const etag = style.headers.get('etag')!;
    expect((await svc.get('/web/style.css', { headers: { 'if-none-match': etag } })).status).toBe(304);
    const icon = await svc.get('/favicon.ico');
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toBe('image/svg+xml');
    expect(await icon.text()).toMatch(/^<svg /);
    const llms = await svc.get('/llms.txt');
    expect(llms.status).toBe(200);
    expect(llms.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    const text = await llms.text();
    expect(text).toMatch(/^# Liquidity catalogue gateway\n\n> /);
    for (const part of [
      '## Endpoints',
      'POST /v1/positions',
      '## Authentication',
      '## Errors',
      `${svc.url}/openapi.json`,
    ])
      expect(text).toContain(part);
    for (const hidden of ['/web/mount.ts', '/web/index.html', '/web/', '/web/../package.json']) {
      const res = await svc.get(hidden);
      expect(res.status, hidden).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/application\/json/);
    }
  });
});

describe('the operator page in Chromium', () => {
  it('renders the pilot swaps and the stats, refreshes on its own, looks up balances and shows the badges', async () => {
    const page = await browser.newPage({ viewport: { width: 1360, height: 1000 } });
    const pageErrors: string[] = [];
    const apiStatuses: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error' && /Content Security Policy/i.test(message.text()))
        pageErrors.push(message.text());
    });
    page.on('response', (response) => {
      const url = new URL(response.url());
      if (url.pathname.startsWith('/api/')) apiStatuses.push(`${url.pathname} ${response.status()}`);
    });

    await page.goto(`${svc.url}/demo`);
    await page.waitForSelector('#pilot[data-state="ready"]', { timeout: 20_000 });
    await page.waitForSelector('#stats[data-state="ready"]', { timeout: 20_000 });

    // The pilot: recent swaps, each one a transaction of /api/pilot.
    const rows = await page.locator('#pilot-swaps tbody tr[data-tx]').count();
    expect(rows).toBeGreaterThanOrEqual(2);
    const txs = await page
      .locator('#pilot-swaps tbody tr[data-tx]')
      .evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-tx')));
    for (const tx of txs) expect(tx).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await page.locator('#pilot-strategy .pill').textContent()).toBe('active');
    expect(await page.locator('#pilot-wallets dt').count()).toBe(3);
    expect(await page.locator('#pilot-fee .fee-row').count()).toBe(2);
    expect((await page.content()).toLowerCase()).not.toContain(sepolia.feeReceiver.toLowerCase().slice(2));

    // The stats: totals and the per-chain roll-up, as /api/stats gives them.
    const stats = (await (await svc.get('/api/stats')).json()) as {
      data: { totals: { strategies: number; chains: number }; chains: { chain: string }[] };
    };
    expect(await page.locator('[data-kpi="strategies"]').textContent()).toMatch(/^\d[\d,]*$/);
    expect(await page.locator('[data-kpi="chains"]').textContent()).toBe(String(stats.data.totals.chains));
    const chainCells = await page.locator('#chains tbody .chain').allTextContents();
    expect(chainCells.sort()).toEqual(stats.data.chains.map((c) => c.chain).sort());
    expect(await page.locator('[data-kpi="volume_30d_usd"]').textContent()).toMatch(/^\$/);

    // Refreshes on its own: the pilot's block moves as the devnet's bot keeps swapping. Once the live
    // stream (GET /api/events) is open the poll waits 60 s, so two moves within 15 s each (the first may
    // be a poll planned before the stream opened) show the refreshes following the stream's events.
    await page.waitForSelector('#status[title="live events stream open"]', { timeout: 10_000 });
    for (let move = 0; move < 2; move++) {
      const before = await page.locator('#pilot-meta').textContent();
      await page.waitForFunction(
        (text) => document.querySelector('#pilot-meta')?.textContent !== text,
        before,
        { timeout: 15_000 },
      );
    }
    await page.waitForSelector('#status[data-state="live"]');

    // Balances look-up of the pilot wallets, and a bad address named by the service.
    await page.click('#balances-pilot');
    await page.waitForSelector('#balances-table:not([hidden]) tbody tr');
    expect(await page.locator('#balances-table tbody tr').count()).toBe(3);
    expect(await page.locator('#balances-table thead th').allTextContents()).toEqual([
      'Address',
      'ETH',
      'USDC',
      'USDT',
    ]);

    // Badges: a preview pill per metric and the shields.io endpoint snippet with this service's URL.
    await page.waitForFunction(
      () => document.querySelectorAll('#badges-table .badge').length === 7,
      undefined,
      {
        timeout: 15_000,
      },
    );
    const snippet = await page.locator('#badge-snippet').inputValue();
    expect(snippet).toContain(
      `https://img.shields.io/endpoint?url=${encodeURIComponent(`${svc.url}/api/badge?metric=volume30`)}`,
    );
    await page.click('#badges-table tr[data-metric="strategies"]');
    expect(await page.locator('#badge-snippet').inputValue()).toContain(
      encodeURIComponent('metric=strategies'),
    );

    await page.fill('#balances-input', `${sepolia.pilot!.maker}, 0x1234`);
    await page.click('#balances-form button[type="submit"]');
    await page.waitForSelector('#balances-error:not([hidden])');
    expect(await page.locator('#balances-error').textContent()).toContain('addresses[1]');

    expect(pageErrors).toEqual([]);
    // The demo endpoints answered the page's same-origin calls (no 403: the Referer is sent).
    expect(apiStatuses.filter((s) => s.startsWith('/api/pilot')).every((s) => s.endsWith(' 200'))).toBe(true);
    expect(apiStatuses).toContain('/api/balances 200');
    expect(apiStatuses).toContain('/api/balances 400');
    expect(apiStatuses).toContain('/api/events 200');
    await page.close();
  }, 90_000);

  it('polls as before when the live stream cannot open', async () => {
    const page = await browser.newPage({ viewport: { width: 1360, height: 1000 } });
    await page.route('**/api/events*', (route) =>
      route.fulfill({
        status: 503,
        contentType: 'application/json',
        body: '{"error":{"code":"UPSTREAM_UNAVAILABLE"}}',
      }),
    );
    await page.goto(`${svc.url}/demo`);
    await page.waitForSelector('#pilot[data-state="ready"]', { timeout: 20_000 });
    await page.waitForSelector('#status[title="polling (events stream not open)"]', { timeout: 10_000 });
    for (let move = 0; move < 2; move++) {
      const before = await page.locator('#pilot-meta').textContent();
      await page.waitForFunction(
        (text) => document.querySelector('#pilot-meta')?.textContent !== text,
        before,
        { timeout: 15_000 },
      );
    }
    await page.close();
  }, 60_000);
});

describe('the operator page and the error pages at 390 px and 1280 px', () => {
  for (const width of [390, 1280]) {
    it(`${width} px: nothing clipped, no sideways scroll, every table reachable, the badge previews show the tiles' figures`, async () => {
      mkdirSync(SCREENSHOTS, { recursive: true });
      const page = await browser.newPage({ viewport: { width, height: 900 } });
      await page.goto(`${svc.url}/demo`);
      await page.waitForSelector('#pilot[data-state="ready"]');
      await page.waitForSelector('#stats[data-state="ready"]');
      await page.waitForSelector('#pilot-swaps tbody tr[data-tx]');
      await page.waitForFunction(() => document.querySelectorAll('#badges-table .badge').length === 7);
      // The widest table on a phone: the balances of the three pilot wallets.
      await page.click('#balances-pilot');
      await page.waitForSelector('#balances-table:not([hidden]) tbody tr');
      // The overflow watcher has caught up with every table (it follows their sizes).
      await page.waitForFunction(() =>
        [...document.querySelectorAll<HTMLElement>('.table-wrap')].every((wrap) => {
          const box = wrap.querySelector<HTMLElement>('.table-scroll')!;
          return wrap.dataset.overflow === String(box.scrollWidth > box.clientWidth + 1);
        }),
      );
      await page.screenshot({ path: path.join(SCREENSHOTS, `web-${width}.png`), fullPage: true });

      const layout = await layoutOf(page);
      expect(layout.clipped, `${width} px`).toEqual([]);
      expect(layout.overflowing, `${width} px`).toEqual([]);
      expect(layout.scrollWidth, `${width} px`).toBeLessThanOrEqual(layout.clientWidth);

      // Every table shown is in a box within its card, and either fits it or scrolls in it sideways
      // with the hint showing; the hint shows only then.
      const tables = await page.evaluate(() =>
        [...document.querySelectorAll<HTMLTableElement>('table')]
          .filter((table) => table.checkVisibility())
          .map((table) => {
            const box = table.closest<HTMLElement>('.table-scroll');
            const card = table.closest<HTMLElement>('.card')!;
            const hint = table.closest('.table-wrap')?.querySelector<HTMLElement>('.scroll-hint');
            const cardRight =
              card.getBoundingClientRect().right - Number.parseFloat(getComputedStyle(card).paddingRight);
            return {
              id: table.id,
              boxed: box !== null,
              withinCard: box !== null && box.getBoundingClientRect().right <= cardRight + 1,
              fits: box !== null && table.getBoundingClientRect().width <= box.clientWidth + 1,
              scrolls: box !== null && getComputedStyle(box).overflowX === 'auto',
              hint: hint?.checkVisibility() ?? false,
            };
          }),
      );
      expect(tables.map((t) => t.id).sort()).toEqual([
        'badges-table',
        'balances-table',
        'chains',
        'pilot-swaps',
      ]);
      for (const table of tables) {
        expect(table, `${width} px`).toMatchObject({ boxed: true, withinCard: true, hint: !table.fits });
        expect(table.fits || (table.scrolls && table.hint), `${width} px ${table.id}`).toBe(true);
      }

      // The previews and the tiles beside them are one read of /api/stats: each preview words the
      // figure of its tile as the service words its badge.
      const figures = await page.evaluate(() => ({
        tiles: Object.fromEntries(
          [...document.querySelectorAll<HTMLElement>('[data-kpi]')].map((node) => [
            node.dataset.kpi,
            { value: node.dataset.value, text: node.textContent },
          ]),
        ),
        previews: Object.fromEntries(
          [...document.querySelectorAll<HTMLElement>('#badges-table tr[data-metric]')].map((row) => [
            row.dataset.metric,
            {
              value: row.querySelector<HTMLElement>('.badge')?.dataset.value,
              label: row.querySelector('.badge-label')?.textContent,
              message: row.querySelector('.badge-message')?.textContent,
            },
          ]),
        ),
      }));
      for (const metric of BADGE_METRICS) {
        const tile = figures.tiles[TILE_OF[metric]]!;
        const preview = figures.previews[metric]!;
        expect(tile.value, metric).toMatch(/^\d+(\.\d+)?$/);
        expect(preview.value, metric).toBe(tile.value);
        expect(preview.label, metric).toBe(BADGE_LABELS[metric]);
        const value = Number(tile.value);
        if (metric.startsWith('volume')) expect(preview.message, metric).toBe(formatUsd(value));
        // A count under 10,000 reads the same on the tile and on the badge.
        else expect(preview.message, metric).toBe(value < 10_000 ? tile.text : formatCount(value));
      }
      await page.close();

      // The error pages (what every envelope's `documentation` links to) and their index: the code
      // blocks wrap, nothing reaches past the edge. All of them on the phone; two on the laptop.
      const errorPage = await browser.newPage({ viewport: { width, height: 900 } });
      const paths =
        width === 390
          ? ['/docs/errors', ...ERROR_CODE_LIST.map((c) => `/docs/errors/${c}`)]
          : ['/docs/errors', '/docs/errors/INVALID_PARAMETER'];
      for (const p of paths) {
        const res = await errorPage.goto(`${svc.url}${p}`);
        expect(res?.status(), p).toBe(200);
        if (p === '/docs/errors/INVALID_PARAMETER')
          await errorPage.screenshot({
            path: path.join(SCREENSHOTS, `docs-error-${width}.png`),
            fullPage: true,
          });
        const docLayout = await layoutOf(errorPage);
        expect(docLayout.overflowing, `${width} px ${p}`).toEqual([]);
        expect(docLayout.scrollWidth, `${width} px ${p}`).toBeLessThanOrEqual(docLayout.clientWidth);
        const wraps = await errorPage.evaluate(() =>
          [...document.querySelectorAll('pre')].map((pre) => getComputedStyle(pre).whiteSpace),
        );
        if (p !== '/docs/errors') expect(wraps, p).toEqual(['pre-wrap']);
      }
      await errorPage.close();
    }, 90_000);
  }
});
