// Drives the conditions' script of a hosted page (tests/api/hosted_pages.rs) in
// Debian's headless Chromium: a chain on one page, "Boxes" shown when "Extras" has
// "Roof box" ticked, "Trip" when Boxes is more than 1, "Notes" when Trip is before 2027
// and Extras is answered. Records which fields are visible after each answer, then
// submits with Trip and Notes filled in but hidden (their values must not be sent).
// Prints what was seen as JSON.
//
//   node tests/browser/conditions.mjs <page url>
import { chromium } from 'playwright-core';
import { AxeBuilder } from '@axe-core/playwright';

const [url] = process.argv.slice(2);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
    '--disable-quic', '--no-first-run', '--disable-component-update', '--disable-sync'],
});
try {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const page = await context.newPage();
  const cspViolations = [];
  page.on('console', (message) => {
    if (message.text().includes('Content Security Policy')) cspViolations.push(message.text());
  });
  const opened = await page.goto(url);
  const extras = page.getByRole('group', { name: 'Extras' });
  const boxes = page.getByLabel('Boxes');
  const trip = page.getByLabel('Trip');
  const notes = page.getByLabel('Notes');
  const seen = [];
  const snapshot = async (after) => {
    const shown = [];
    for (const [label, field] of [['Boxes', boxes], ['Trip', trip], ['Notes', notes]]) {
      if (await field.isVisible()) shown.push(label);
    }
    seen.push({ after, shown });
  };
  await snapshot('nothing');
  const axe = (await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).analyze())
    .violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}:${v.impact}:${v.nodes.map((n) => n.target.join(' ')).join(',')}`);
  const hintsShown = await page.locator('.hint').evaluateAll(
    (hints) => hints.filter((h) => h.checkVisibility()).length,
  );
  await extras.getByLabel('Roof box').check();
  await snapshot('roof box');
  await boxes.fill('2');
  await snapshot('2 boxes');
  await trip.fill('2026-06-01');
  await snapshot('a trip in 2026');
  await notes.fill('Bring straps');
  await trip.fill('2027-06-01');
  await snapshot('a trip in 2027');
  await trip.fill('2026-06-01');
  await boxes.fill('1');
  await snapshot('1 box');
  await extras.getByLabel('Roof box').uncheck();
  await snapshot('no roof box');
  await extras.getByLabel('Roof box').check();
  await boxes.fill('3');
  await snapshot('3 boxes');
  const kept = { trip: await trip.inputValue(), notes: await notes.inputValue() };
  // Trip and Notes hidden again, with their values in them: not sent.
  await boxes.fill('1');
  const [answer] = await Promise.all([
    page.waitForNavigation(),
    page.getByRole('button', { name: 'Submit' }).click(),
  ]);
  console.log(JSON.stringify({
    openedStatus: opened.status(),
    seen,
    hintsShown,
    kept,
    submittedStatus: answer ? answer.status() : null,
    heading: (await page.locator('h1').first().textContent()).trim(),
    axe,
    cspViolations,
  }));
} finally {
  await browser.close();
}
