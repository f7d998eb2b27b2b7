// Opens one page in Debian's headless Chromium with a cookie (e.g. a dashboard
// session), at phone width, and prints its serious and critical axe-core violations and
// the Content-Security-Policy violations the browser reported, as JSON.
//
//   node tests/browser/axe_page.mjs <url> <cookie name=value>
import { chromium } from 'playwright-core';
import { AxeBuilder } from '@axe-core/playwright';

const [url, cookie] = process.argv.slice(2);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
    '--disable-quic', '--no-first-run', '--disable-component-update', '--disable-sync'],
});
try {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const [name, ...value] = cookie.split('=');
  await context.addCookies([{ name, value: value.join('='), url }]);
  const page = await context.newPage();
  const cspViolations = [];
  page.on('console', (message) => {
    if (message.text().includes('Content Security Policy')) cspViolations.push(message.text());
  });
  const opened = await page.goto(url);
  const result = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).analyze();
  console.log(JSON.stringify({
    status: opened.status(),
    axe: result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id}:${v.impact}:${v.nodes.map((n) => n.target.join(' ')).join(',')}`),
    cspViolations,
  }));
} finally {
  await browser.close();
}
