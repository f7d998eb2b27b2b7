// Walks pages in Debian's headless Chromium, as the steps say, and after each step
// saves full-page screenshots at 1280 and 390 px wide and runs axe-core at 390 px;
// prints, as JSON, per step: the status, the page's headings and labels as shown, any
// sideways overflow at 390 px, and axe's serious and critical violations, with the
// Content-Security-Policy violations the browser reported.
//
//   node tests/browser/respond.mjs <url> <cookie name=value | -> <steps JSON> <dir> <name>
//
// A step is {"fill": [[selector, value]], "check": [selector], "open": [selector],
// "click": selector}: what to type, tick, unfold (`<details>`), then press (and wait
// for the page it leads to). The first step opens `url`.
import { chromium } from 'playwright-core';
import { AxeBuilder } from '@axe-core/playwright';

const [url, cookie, stepsJson, dir, name] = process.argv.slice(2);
const steps = JSON.parse(stepsJson);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
    '--disable-quic', '--no-first-run', '--disable-component-update', '--disable-sync'],
});
try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  if (cookie !== '-') {
    const [cname, ...value] = cookie.split('=');
    await context.addCookies([{ name: cname, value: value.join('='), url }]);
  }
  const page = await context.newPage();
  const cspViolations = [];
  page.on('console', (message) => {
    if (message.text().includes('Content Security Policy')) cspViolations.push(message.text());
  });
  let response = await page.goto(url);
  const seen = [];
  for (const [i, step] of steps.entries()) {
    for (const [selector, value] of step.fill || []) await page.fill(selector, value);
    for (const selector of step.check || []) await page.check(selector, { force: true });
    for (const selector of step.open || []) {
      await page.$eval(selector, (e) => { e.open = true; });
    }
    if (step.click) {
      [response] = await Promise.all([page.waitForNavigation(), page.click(step.click)]);
    }
    const shots = {};
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
      const path = `${dir}/${name}-${i}-${width}.png`;
      await page.screenshot({ path, fullPage: true });
      shots[width] = path;
    }
    const shown = await page.evaluate(() => ({
      title: document.title,
      texts: [...document.querySelectorAll('h1, h2, legend, label, .done p')]
        .map((e) => e.textContent.trim().replace(/\s+/g, ' ')),
      overflow: document.documentElement.scrollWidth > document.documentElement.clientWidth,
    }));
    const result = await new AxeBuilder({ page })
      .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).analyze();
    seen.push({
      status: response ? response.status() : null,
      ...shown,
      shots,
      axe: result.violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
    });
    await page.setViewportSize({ width: 1280, height: 900 });
  }
  console.log(JSON.stringify({ steps: seen, cspViolations }));
} finally {
  await browser.close();
}
