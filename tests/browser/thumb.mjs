// Answers a form of every kind over three pages (a fourth, for teams, skipped) in
// Debian's headless Chromium at 390×844 as a person with a thumb would
// (tests/api/hosted_thumb.rs): it measures every choice's target, checks that the 0-10
// scale stands on one line and that "Other"'s box waits for "Other", types on page 2,
// goes Back and Next again, chooses a file before a refused Submit (and reports
// whether the page still names it), and reads the progress on every page. With a second URL (a one-page form of every kind) it takes
// screenshots at 390 and 1280 px of that page and of the thank-you page into <shots dir>.
// Prints what was seen as JSON.
//
//   node tests/browser/thumb.mjs <paged url> <file to attach> [<one-page url> <shots dir>]
import { chromium } from 'playwright-core';
import { AxeBuilder } from '@axe-core/playwright';

const [url, file, onePage, shots] = process.argv.slice(2);
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
  const steps = [];
  const axe = [];
  const small = [];
  let overflow = false;
  // Every radio's and checkbox's target (its label, or itself without one) must be
  // 44×44 px at least; a scale's buttons 24×44.
  const measure = async () => {
    small.push(...await page.evaluate(() => {
      const out = [];
      for (const input of document.querySelectorAll('input[type=radio], input[type=checkbox]')) {
        const target = input.labels?.[0] ?? input;
        const box = target.getBoundingClientRect();
        const wide = input.closest('.scale') ? 24 : 44;
        if (box.width < wide || box.height < 44) {
          out.push(`${input.name}=${input.value}: ${Math.round(box.width)}×${Math.round(box.height)}`);
        }
      }
      return out;
    }));
  };
  const look = async () => {
    steps.push((await page.locator('.steps').textContent().catch(() => '')).trim());
    overflow ||= await page.evaluate(() => document.documentElement.scrollWidth > 390);
    await measure();
    const result = await new AxeBuilder({ page })
      .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).analyze();
    axe.push(...result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id}:${v.impact}:${v.nodes.map((n) => n.target.join(' ')).join(',')}`));
  };
  const press = async (name) => {
    await Promise.all([
      page.waitForNavigation(),
      page.getByRole('button', { name, exact: true }).click(),
    ]);
  };
  const plan = page.getByRole('radiogroup', { name: 'Plan' });
  const planOther = page.getByLabel('Other (please specify)').first();

  // Page 1: choices as cards; "Other"'s box only once "Other" is chosen.
  await page.goto(url);
  await look();
  const otherShown = { before: await planOther.isVisible() };
  await plan.getByLabel('Other', { exact: true }).check();
  otherShown.chosen = await planOther.isVisible();
  await plan.getByLabel('Pro', { exact: true }).check();
  otherShown.after = await planOther.isVisible();
  // Key letters: with the focus on the first extra, C chooses the third.
  await page.getByRole('group', { name: 'Extras' }).getByLabel('Stickers').focus();
  await page.keyboard.press('c');
  const keyChose = await page.getByRole('group', { name: 'Extras' }).getByLabel('Support')
    .isChecked();
  await page.getByLabel('Name').fill('Ada');
  await press('Next');

  // Page 2: stars, the 0-10 row, and typing kept across Back and Next.
  await look();
  const scale = await page.evaluate(() => {
    const boxes = [...document.querySelectorAll('.scale label')]
      .map((l) => l.getBoundingClientRect());
    return {
      count: boxes.length,
      lines: new Set(boxes.map((b) => Math.round(b.top))).size,
      right: Math.round(Math.max(...boxes.map((b) => b.right))),
      narrowest: Math.round(Math.min(...boxes.map((b) => b.width))),
    };
  });
  await page.getByRole('radiogroup', { name: 'How was it?' }).getByLabel('4 stars').check();
  await page.getByRole('radiogroup', { name: 'Would you recommend us?' })
    .getByLabel('9', { exact: true }).check();
  await page.getByLabel('Tell us more').fill('Typed before Back');
  await press('Back');
  await look();
  const nameAfterBack = await page.getByLabel('Name').inputValue();
  await press('Next');
  await look();
  const keptAfterBack = {
    text: await page.getByLabel('Tell us more').inputValue(),
    stars: await page.getByLabel('4 stars').isChecked(),
    scale: await page.getByLabel('9', { exact: true }).isChecked(),
    name: nameAfterBack,
  };
  await press('Next');

  // The last page: a file chosen, then Submit refused for another field.
  await look();
  await page.getByLabel('CV').setInputFiles(file);
  await press('Submit');
  await look();
  const fileAfterRefusal = (await page.locator('.picked').allTextContents()).join(' ').trim();
  await page.getByLabel('Email').fill('ada@example.com');
  await press('Submit');
  const thanks = {
    headings: await page.locator('h1').allTextContents(),
    text: (await page.locator('main').textContent()).trim(),
  };

  if (shots) {
    await page.screenshot({ path: `${shots}/hosted-thanks-390.png`, fullPage: true });
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.screenshot({ path: `${shots}/hosted-thanks-1280.png`, fullPage: true });
    await page.goto(onePage);
    await page.screenshot({ path: `${shots}/hosted-every-kind-1280.png`, fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: `${shots}/hosted-every-kind-390.png`, fullPage: true });
  }
  console.log(JSON.stringify({
    steps,
    small,
    scale,
    otherShown,
    keyChose,
    keptAfterBack,
    fileAfterRefusal,
    thanks,
    axe,
    overflow,
    cspViolations,
  }));
} finally {
  await browser.close();
}
