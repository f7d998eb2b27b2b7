// Walks the hosted page of a form with pages (tests/api/hosted_pages.rs) in Debian's
// headless Chromium through playwright-core, at phone width, with or without
// JavaScript, as a person would: page 1 answered "No" (with JavaScript, "Car model"
// first appears for "Yes", is filled in, and goes again for "No", so its value must not
// be sent), Next to page 3, Back to page 1 (answers kept), "Yes" and Next to page 2,
// a rating, Next to page 3, Submit without the email (refused, the field focused),
// then with it. Prints what was seen as JSON.
//
//   node tests/browser/pages.mjs <page url> <script|noscript>
import { chromium } from 'playwright-core';
import { AxeBuilder } from '@axe-core/playwright';

const [url, mode = 'script'] = process.argv.slice(2);
const scripted = mode !== 'noscript';
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
  const axe = [];
  let overflow = false;
  // What each page shows: where the visitor is, sideways scrolling, and (with
  // JavaScript, which axe-core needs) the page's serious violations.
  const look = async () => {
    steps.push((await page.locator('.steps').textContent().catch(() => '')).trim());
    overflow ||= await page.evaluate(() => document.documentElement.scrollWidth > 390)
      .catch(() => false);
    if (scripted) {
      const result = await new AxeBuilder({ page })
        .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).analyze();
      axe.push(...result.violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => `${v.id}:${v.impact}:${v.nodes.map((n) => n.target.join(' ')).join(',')}`));
    }
  };
  const press = async (name) => {
    await Promise.all([
      page.waitForNavigation(),
      page.getByRole('button', { name, exact: true }).click(),
    ]);
  };
  const car = page.getByRole('radiogroup', { name: 'Do you own a car?' });
  const model = page.getByLabel('Car model');
  const name = page.getByLabel('Name');

  await page.goto(url);
  await look();
  const modelShown = { unanswered: await model.isVisible() };
  const hintShown = await page.getByText('Answer only if “Do you own a car?” is Yes').isVisible();
  if (scripted) {
    await car.getByLabel('Yes').check();
    modelShown.yes = await model.isVisible();
    await model.fill('Zoe');
    await car.getByLabel('No').check();
    modelShown.no = await model.isVisible();
  } else {
    await car.getByLabel('No').check();
  }
  await name.fill('Ada');
  await press('Next');
  await look();

  await press('Back');
  await look();
  const keptAfterBack = { name: await name.inputValue(), model: await model.inputValue() };
  await car.getByLabel('Yes').check();
  await model.fill('Zoe');
  await press('Next');
  await look();

  await page.getByRole('radiogroup', { name: 'How much do you like it?' }).getByLabel('4 stars').check();
  await press('Next');
  await look();

  await press('Submit');
  const focused = scripted ? await page.evaluate(() => document.activeElement?.id) : null;
  const refusedErrors = await page.locator('.error').allTextContents();
  await page.getByLabel('Email').fill('ada@example.com');
  await press('Submit');
  console.log(JSON.stringify({
    steps,
    modelShown,
    hintShown,
    keptAfterBack,
    refusedErrors,
    focused,
    done: (await page.locator('h1').first().textContent()).trim(),
    axe,
    overflow,
    cspViolations,
  }));
} finally {
  await browser.close();
}
