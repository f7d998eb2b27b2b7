// Account → Erase a respondent in Debian's headless Chromium, by keyboard where a
// person would type: the value is typed and sent, the matches are listed, the box is
// ticked and the erasure confirmed; axe-core (serious and critical) and CSP violations
// are collected on each step at 390 and 1280 px, and screenshots written to SHOTS (if
// set). Prints JSON.
//
//   node tests/browser/erasure.mjs <base url> <cookie name=value> <value>
import { chromium } from 'playwright-core';
import { AxeBuilder } from '@axe-core/playwright';

const [base, cookie, value] = process.argv.slice(2);
const shots = process.env.SHOTS;
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
    '--disable-quic', '--no-first-run', '--disable-component-update', '--disable-sync'],
});
const out = { axe: [], cspViolations: [], sideways: [] };
async function check(page, step, width) {
  const result = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).analyze();
  for (const v of result.violations) {
    if (v.impact === 'serious' || v.impact === 'critical') out.axe.push(`${step}@${width}:${v.id}`);
  }
  const wide = await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
  if (wide) out.sideways.push(`${step}@${width}`);
  if (shots) await page.screenshot({ path: `${shots}/erasure-${step}-${width}.png`, fullPage: true });
}
try {
  for (const width of [390, 1280]) {
    const context = await browser.newContext({ viewport: { width, height: 900 } });
    const [name, ...rest] = cookie.split('=');
    await context.addCookies([{ name, value: rest.join('='), url: base }]);
    const page = await context.newPage();
    page.on('console', (m) => {
      if (m.text().includes('Content Security Policy')) out.cspViolations.push(m.text());
    });
    await page.goto(`${base}/app/account`);
    await page.getByRole('link', { name: 'Erase a respondent' }).click();
    await check(page, 'start', width);
    await page.getByLabel('Address or answer to find').fill(value);
    await page.keyboard.press('Enter');
    await page.locator('#matches-h').waitFor();
    out[`found${width}`] = await page.locator('tbody tr').count();
    await check(page, 'matches', width);
    if (width === 1280) {
      await page.getByLabel(/Yes, erase/).check();
      await page.getByRole('button', { name: 'Erase', exact: true }).click();
      await page.locator('.notice').waitFor();
      out.notice = await page.locator('.notice').innerText();
      await check(page, 'done', width);
    }
    await context.close();
  }
} finally {
  await browser.close();
}
console.log(JSON.stringify(out));
