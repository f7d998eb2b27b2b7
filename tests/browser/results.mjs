// The results pages in Debian's headless Chromium (playwright-core), as their owner
// reads them: each page at 1280 and 390 px wide (a screenshot of each, no sideways
// scrolling at 390), axe-core (serious and critical violations), CSP violations, ids
// or API syntax in the visible text; then the selection by keyboard only: Tab to a
// row's box, tick it with Space, and download the ticked rows.
//
//   node tests/browser/results.mjs <origin> <cookie name=value> <screenshot dir> <name=path>...
//
// Prints one JSON object: per page, its axe figures, overflow, the words found that no
// one should read; and what the keyboard selection downloaded.
import fs from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { AxeBuilder } from '@axe-core/playwright';

const [origin, cookie, shots, ...pages] = process.argv.slice(2);
fs.mkdirSync(shots, { recursive: true });
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
    '--disable-quic', '--no-first-run', '--disable-component-update', '--disable-sync'],
});
// What no one should read: option ids, the REST query's syntax, operator names, UUIDs.
const FORBIDDEN = [/opt_/, /answers\[/, /\[(gte|lte|gt|lt|eq|in)\]/, /greater_than|less_than|not_equals|any_of|not_answered|page_break/,
  /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i];
const result = { pages: {}, cspViolations: [], error: null };
try {
  const context = await browser.newContext({ acceptDownloads: true, viewport: { width: 1280, height: 900 } });
  const [name, ...value] = cookie.split('=');
  await context.addCookies([{ name, value: value.join('='), url: origin }]);
  const page = await context.newPage();
  page.on('console', (message) => {
    if (message.text().includes('Content Security Policy')) result.cspViolations.push(message.text());
  });
  for (const spec of pages) {
    const [pageName, ...rest] = spec.split('=');
    const url = origin + rest.join('=');
    await page.setViewportSize({ width: 1280, height: 900 });
    const opened = await page.goto(url);
    const axe = await new AxeBuilder({ page })
      .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).analyze();
    const serious = axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    const text = await page.evaluate(() => document.body.innerText);
    const headerHeight = await page.evaluate(() => {
      const th = document.querySelector('table.responses thead tr');
      return th ? Math.round(th.getBoundingClientRect().height) : null;
    });
    await page.screenshot({ path: path.join(shots, `${pageName}-1280.png`), fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    const wide = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    // The smallest text a person reads on the page at 390 px (SVG text included).
    const smallest = await page.evaluate(() => Math.min(...[...document.querySelectorAll('main *')]
      .filter((e) => e.childNodes.length && [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim())
        && e.getClientRects().length && !e.closest('.visually-hidden'))
      .map((e) => {
        const size = parseFloat(getComputedStyle(e).fontSize);
        const svg = e.closest('svg');
        if (!svg || !svg.viewBox.baseVal || !svg.viewBox.baseVal.width) return size;
        return size * svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
      })));
    await page.screenshot({ path: path.join(shots, `${pageName}-390.png`), fullPage: true });
    result.pages[pageName] = {
      status: opened.status(),
      serious: serious.map((v) => `${v.id}: ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`),
      violations: axe.violations.map((v) => `${v.id}:${v.impact}`),
      overflow: wide,
      smallestText: Math.round(smallest * 10) / 10,
      headerHeight,
      forbidden: FORBIDDEN.flatMap((re) => (text.match(re) ? [text.match(re)[0]] : [])),
    };
  }
  // Keyboard only, on the list: Tab to the first row's box, Space ticks it, then the
  // selection's Download CSV button.
  const [, ...listPath] = pages[0].split('=');
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(origin + listPath.join('='));
  let reached = false;
  for (let i = 0; i < 60 && !reached; i += 1) {
    await page.keyboard.press('Tab');
    reached = await page.evaluate(() => document.activeElement?.matches('td.pick input[type=checkbox]') || false);
  }
  result.keyboardReachedBox = reached;
  await page.keyboard.press('Space');
  result.tickedByKeyboard = await page.evaluate(() => document.querySelectorAll('td.pick input:checked').length);
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.locator('.selection-actions button[value=csv]').click(),
  ]);
  const csv = fs.readFileSync(await download.path(), 'utf8');
  result.selectionCsvRows = csv.trim().split('\n').length;
} catch (error) {
  result.error = String(error && error.stack || error);
} finally {
  await browser.close();
}
console.log(JSON.stringify(result));
