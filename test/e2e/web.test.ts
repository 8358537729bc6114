import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Devnet } from '../../devnet/devnet.js';
import type { ChainConfig } from '../../lib/config.js';
import { startSeededDevnet } from '../helpers/devnetSnapshot.js';
import { testPort } from '../helpers/ports.js';
import { startTestService, type TestService } from '../helpers/service.js';

/**
 * The operator page in a real browser (Debian's Chromium driven by playwright-core) against the
 * service on the devnet: pilot swaps and stats rendered, the balances look-up, the badge snippets.
 * A screenshot is saved under test-results/. Devnet ports 19400-19402.
 */

const BASE_PORT = testPort(19400);
const CHROMIUM = '/usr/bin/chromium';
const SCREENSHOTS = path.resolve('test-results');

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

    mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: path.join(SCREENSHOTS, 'web-operator-page.png'), fullPage: true });

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

  it('fits the page at 1280 px without clipped figures and at 390 px without sideways scroll', async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    for (const width of [1280, 390]) {
      const page = await browser.newPage({ viewport: { width, height: 900 } });
      await page.goto(`${svc.url}/demo`);
      await page.waitForSelector('#pilot[data-state="ready"]', { timeout: 20_000 });
      await page.waitForSelector('#stats[data-state="ready"]', { timeout: 20_000 });
      await page.waitForFunction(
        () => document.querySelectorAll('#badges-table .badge').length === 7,
        undefined,
        {
          timeout: 15_000,
        },
      );
      await page.screenshot({
        path: path.join(SCREENSHOTS, `web-operator-page-${width}.png`),
        fullPage: true,
      });
      const layout = await page.evaluate(() => {
        const root = document.documentElement;
        // A figure is clipped when its text is wider than its box (the KPI values, the pills, the metas).
        const clipped = [...document.querySelectorAll<HTMLElement>('.kpi-value, .pill, .meta, .kpi-label')]
          .filter((el) => el.offsetParent !== null && el.scrollWidth > el.clientWidth + 1)
          .map((el) => `${el.className}: ${el.textContent} (${el.scrollWidth} > ${el.clientWidth})`);
        // Anything reaching past the viewport that is not inside a scrolling box of its own.
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
      expect(layout.clipped, `${width} px`).toEqual([]);
      expect(layout.overflowing, `${width} px`).toEqual([]);
      expect(layout.scrollWidth, `${width} px`).toBeLessThanOrEqual(layout.clientWidth);
      await page.close();
    }
  }, 90_000);
});
