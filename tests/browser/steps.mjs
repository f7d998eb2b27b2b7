// Walks a one-question-at-a-time form (tests/api/hosted_steps.rs) in Debian's headless
// Chromium through playwright-core at 390×844. With JavaScript, by keyboard only: each
// step's question has the focus, Enter continues from a text box and from a choice, a
// text area takes Enter as a new line, Tab then Enter sends. Without JavaScript, each
// step is filled and its button pressed. Records each step's progress, the live
// region's words, axe-core's serious violations and CSP violations, and takes
// screenshots (390 and 1280) of the first step into $SHOTS when set. Prints JSON.
//
//   node tests/browser/steps.mjs <page url> <script|noscript>
import { chromium } from 'playwright-core';
import { AxeBuilder } from '@axe-core/playwright';

const [url, mode = 'script'] = process.argv.slice(2);
const scripted = mode !== 'noscript';
const shots = process.env.SHOTS;
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
    '--disable-quic', '--no-first-run', '--disable-component-update', '--disable-sync'],
});
try {
  const context = await browser.newContext({
    viewport: { width: 390, height: 844 },
    javaScriptEnabled: scripted,
  });
  const page = await context.newPage();
  const cspViolations = [];
  page.on('console', (message) => {
    if (message.text().includes('Content Security Policy')) cspViolations.push(message.text());
  });
  const steps = [];
  const progress = [];
  const focused = [];
  const live = [];
  const axe = [];
  const look = async () => {
    steps.push((await page.locator('.steps').textContent().catch(() => '')).trim());
    progress.push(await page.locator('progress').getAttribute('value').catch(() => null));
    focused.push(await page.evaluate(() => document.activeElement?.getAttribute('type') ||
      document.activeElement?.tagName.toLowerCase()));
    if (scripted) {
      await page.waitForTimeout(250);
      live.push((await page.locator('#step-live').textContent().catch(() => '')).trim());
      const result = await new AxeBuilder({ page })
        .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).analyze();
      axe.push(...result.violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => `${v.id}:${v.impact}:${v.nodes.map((n) => n.target.join(' ')).join(',')}`));
    }
  };
  const key = async (k) => {
    await Promise.all([page.waitForNavigation(), page.keyboard.press(k)]);
  };
  const press = async (name) => {
    await Promise.all([
      page.waitForNavigation(),
      page.getByRole('button', { name, exact: true }).click(),
    ]);
  };

  await page.goto(url);
  await look();
  if (shots) {
    await page.screenshot({ path: `${shots}/steps-${mode}-390.png`, fullPage: true });
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.screenshot({ path: `${shots}/steps-${mode}-1280.png`, fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
  }
  let newlineKept = null;
  if (scripted) {
    await page.keyboard.type('Ada');
    await key('Enter');
    await look();
    // The choice: Space picks the focused option, Enter continues.
    await page.keyboard.press('Space');
    await key('Enter');
    await look();
    await page.keyboard.type('ada@example.com');
    await key('Enter');
    await look();
    if (shots) await page.screenshot({ path: `${shots}/steps-${mode}-last-390.png`, fullPage: true });
    await page.keyboard.type('Hello');
    await page.keyboard.press('Enter');
    await page.keyboard.type('there');
    newlineKept = await page.locator('textarea').inputValue();
    await page.keyboard.press('Tab');
    await key('Enter');
  } else {
    await page.getByLabel('Name').fill('Ada');
    await press('Next');
    await look();
    await page.getByLabel('Red').check();
    await press('Next');
    await look();
    await page.getByLabel('Email').fill('ada@example.com');
    await press('Next');
    await look();
    await page.getByLabel('Comments').fill('Hello\nthere');
    await press('Submit');
  }
  const done = (await page.locator('h1').first().textContent()).trim();
  if (shots) await page.screenshot({ path: `${shots}/steps-${mode}-done-390.png`, fullPage: true });
  console.log(JSON.stringify({ steps, progress, focused, live, axe, cspViolations, done,
    textarea: newlineKept }));
} finally {
  await browser.close();
}
