// The dashboard's pages in Debian's headless Chromium, each at 1280 and at 390 px wide,
// with a session cookie: axe-core's serious and critical violations, the CSP
// violations reported, whether the page scrolls sideways, and the layout of the one
// navigation pattern (the bar's rows, the breadcrumb trail, the form's tabs, the
// title's lines, the gap between the forms list's filter and its table), and the ids
// or API syntax in its visible words (there should be none). Prints JSON;
// with SCREENSHOTS=<dir>, saves each page there as <name>-<width>.png.
//
//   node tests/browser/dashboard_pages.mjs <base url> <cookie name=value> <name=path>...
import { chromium } from 'playwright-core';
import { AxeBuilder } from '@axe-core/playwright';

const [base, cookie, ...pages] = process.argv.slice(2);
const shots = process.env.SCREENSHOTS;
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
    '--disable-quic', '--no-first-run', '--disable-component-update', '--disable-sync'],
});
// What no one should read on a page (issue 31 §5): option ids, the REST query's syntax,
// operator and kind names, UUIDs (link addresses are not text, and are not scanned).
const FORBIDDEN = [/opt_[0-9a-z]/, /answers\[/, /\[(gte|lte|gt|lt|eq|in)\]/,
  /\b(greater_than|less_than|not_equals|any_of|none_of|not_answered|not_contains|page_break|short_text|long_text|single_choice|multiple_choice|file_upload)\b/,
  /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i];
// The rules every page is held to, closed and with its folds open.
const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'];
const seen = {};
try {
  for (const width of [1280, 390]) {
    const context = await browser.newContext({ viewport: { width, height: 900 } });
    const [name, ...value] = cookie.split('=');
    await context.addCookies([{ name, value: value.join('='), url: base }]);
    for (const entry of pages) {
      const [label, ...path] = entry.split('=');
      const page = await context.newPage();
      const csp = [];
      page.on('console', (m) => { if (m.text().includes('Content Security Policy')) csp.push(m.text()); });
      const opened = await page.goto(base + path.join('='));
      const layout = await page.evaluate(() => {
        const box = (el) => (el ? el.getBoundingClientRect() : null);
        const brand = box(document.querySelector('header.top .brand'));
        const out = box(document.querySelector('header.top .sign-out'));
        const links = [...document.querySelectorAll('header.top .sections a')].map(box);
        const h1 = document.querySelector('main h1');
        const lineHeight = h1 ? parseFloat(getComputedStyle(h1).lineHeight) : 0;
        const filter = box(document.querySelector('.list-filter'));
        const table = box(document.querySelector('.list-filter ~ .table-wrap'));
        const tabs = document.querySelector('nav.subnav[aria-label=Form]');
        return {
          sideways: document.documentElement.scrollWidth > window.innerWidth,
          signOutBesideBrand: !!(brand && out && Math.abs(brand.top - out.top) < 8),
          sectionsOneRow: links.length > 0 && links.every((l) => Math.abs(l.top - links[0].top) < 4),
          crumbs: [...document.querySelectorAll('nav.crumbs li')].map((li) => li.textContent.trim()),
          tabs: tabs ? [...tabs.querySelectorAll('a')].map((a) => a.textContent.trim()) : null,
          currentTab: tabs ? (tabs.querySelector('[aria-current=page]') || {}).textContent || null : null,
          tabsOneRow: tabs ? [...tabs.querySelectorAll('a')].every((a, _, all) =>
            Math.abs(a.getBoundingClientRect().top - all[0].getBoundingClientRect().top) < 4) : null,
          titleLines: h1 && lineHeight ? Math.round(h1.getBoundingClientRect().height / lineHeight) : null,
          filterGap: filter && table ? Math.round(table.top - filter.bottom) : null,
          text: document.body.innerText,
        };
      });
      const text = layout.text;
      delete layout.text;
      layout.forbidden = FORBIDDEN.flatMap((re) => (text.match(re) ? [text.match(re)[0]] : []));
      const axe = await new AxeBuilder({ page }).withTags(AXE_TAGS).analyze();
      if (shots) await page.screenshot({ path: `${shots}/${label}-${width}.png`, fullPage: true });
      // The share panel's embed fold, opened as an owner would (its summary by keyboard),
      // checked and pictured open as well.
      const fold = page.locator('#share details summary');
      let shareOpened = null;
      if (await fold.count()) {
        await fold.focus();
        await page.keyboard.press('Enter');
        shareOpened = (await page.locator('#share details[open]').count()) === 1;
        const open = await new AxeBuilder({ page }).include('#share').withTags(AXE_TAGS).analyze();
        axe.violations.push(...open.violations);
        if (shots) await page.locator('#share').screenshot({ path: `${shots}/${label}-share-${width}.png` });
      }
      seen[`${label}@${width}`] = {
        status: opened.status(),
        axe: axe.violations
          .filter((v) => v.impact === 'serious' || v.impact === 'critical')
          .map((v) => `${v.id}:${v.nodes.map((n) => n.target.join(' ')).join(',')}`),
        csp,
        shareOpened,
        ...layout,
      };
      await page.close();
    }
    await context.close();
  }
  console.log(JSON.stringify(seen));
} finally {
  await browser.close();
}
