// Drives a hosted page with one field of every new kind (tests/api/hosted_kinds.rs) in
// Debian's headless Chromium through playwright-core, at phone width, with or without
// JavaScript: axe-core on the page, then each field answered by its label as a person
// would (radio, select, checkboxes, stars, scale, date, url, tel, consent box), and
// submitted. Prints what was seen as JSON.
//
//   node tests/browser/kinds.mjs <page url> <script|noscript>
import { chromium } from 'playwright-core';
import { AxeBuilder } from '@axe-core/playwright';

const [url, mode = 'script'] = process.argv.slice(2);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
    '--disable-quic', '--no-first-run', '--disable-component-update', '--disable-sync'],
});
try {
  const context = await browser.newContext({
    viewport: { width: 390, height: 844 },
    javaScriptEnabled: mode !== 'noscript',
  });
  const page = await context.newPage();
  const cspViolations = [];
  page.on('console', (message) => {
    if (message.text().includes('Content Security Policy')) cspViolations.push(message.text());
  });
  const opened = await page.goto(url);
  let axe = null;
  if (mode !== 'noscript') {
    const result = await new AxeBuilder({ page })
      .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
    axe = result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id}:${v.impact}:${v.nodes.map((n) => n.target.join(' ')).join(',')}`);
  }
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth > 390);
  await page.getByRole('radiogroup', { name: 'Colour' }).getByLabel('Green').check();
  await page.getByLabel('Country').selectOption({ label: 'Japan' });
  const toppings = page.getByRole('group', { name: 'Toppings' });
  await toppings.getByLabel('Cheese').check();
  await toppings.getByLabel('Olives').check();
  await toppings.getByLabel('Other', { exact: true }).check();
  await toppings.getByRole('textbox').fill('Pineapple');
  await page.getByRole('radiogroup', { name: 'Stars' }).getByLabel('3 stars').check();
  await page.getByRole('radiogroup', { name: 'Recommend' }).getByLabel('9', { exact: true }).check();
  await page.getByLabel('Arrival').fill('2026-05-01');
  await page.getByLabel('Website').fill('https://example.com/');
  await page.getByLabel('Phone').fill('+33 6 12 34 56 78');
  await page.getByLabel('I agree').check();
  const [answer] = await Promise.all([
    page.waitForNavigation(),
    page.getByRole('button', { name: 'Submit' }).click(),
  ]);
  console.log(JSON.stringify({
    openedStatus: opened.status(),
    submittedStatus: answer ? answer.status() : null,
    heading: (await page.locator('h1').first().textContent()).trim(),
    errors: await page.locator('.error').allTextContents(),
    axe,
    overflow,
    cspViolations,
  }));
} finally {
  await browser.close();
}
