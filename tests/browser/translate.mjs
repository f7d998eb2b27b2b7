// A form's German texts written in the builder, in Debian's headless Chromium, by
// keyboard only at 1280 px: the Languages fold opened with Enter, German chosen by
// typing its name in the list, added with Enter; on German's page the title and the
// first question typed box after box with Tab, saved with Enter. Then at 390 px the
// fold and the page again, and a redirect the service refuses (its words beside the
// box, what was typed kept). On every view: axe-core (serious and critical), CSP
// violations, sideways scrolling, boxes without a label; screenshots into SHOTS (if
// set). Last, the hosted page with ?lang=de. Prints JSON.
//
//   node tests/browser/translate.mjs <base url> <cookie name=value> <form id> <short id>
import { chromium } from 'playwright-core';
import { AxeBuilder } from '@axe-core/playwright';

const [base, cookie, formId, shortId] = process.argv.slice(2);
const shots = process.env.SHOTS;
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
    '--disable-quic', '--no-first-run', '--disable-component-update', '--disable-sync'],
});
const out = { axe: [], cspViolations: [], sideways: [], unlabelled: [], steps: [] };
async function check(page, step, width) {
  const result = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).analyze();
  for (const v of result.violations) {
    if (v.impact === 'serious' || v.impact === 'critical') out.axe.push(`${step}@${width}:${v.id}`);
  }
  const wide = await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
  if (wide) out.sideways.push(`${step}@${width}`);
  const bare = await page.evaluate(() => [...document.querySelectorAll('main input, main select, main textarea')]
    .filter((e) => e.type !== 'hidden' && !e.labels?.length && !e.getAttribute('aria-label'))
    .map((e) => e.name || e.id));
  for (const name of bare) out.unlabelled.push(`${step}@${width}:${name}`);
  if (shots) await page.screenshot({ path: `${shots}/translate-${step}-${width}.png`, fullPage: true });
  out.steps.push(`${step}@${width}`);
}
// Tab until `selector` has the focus (at most `limit` presses): a keyboard user's way.
async function tabTo(page, selector, limit = 40) {
  for (let i = 0; i < limit; i += 1) {
    if (await page.evaluate((s) => document.activeElement?.matches(s), selector)) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`${selector} not reached by Tab`);
}
const builder = `${base}/app/forms/${formId}`;
let step = 'start';
try {
  for (const width of [1280, 390]) {
    const context = await browser.newContext({ viewport: { width, height: 900 } });
    const [name, ...rest] = cookie.split('=');
    await context.addCookies([{ name, value: rest.join('='), url: base }]);
    const page = await context.newPage();
    page.on('console', (m) => {
      if (m.text().includes('Content Security Policy')) out.cspViolations.push(m.text());
    });
    step = 'fold';
    await page.goto(builder);
    await page.locator('#languages > summary').focus();
    await page.keyboard.press('Enter');
    await page.locator('#languages[open]').waitFor();
    await check(page, 'fold', width);
    if (width === 1280) {
      step = 'add German by keyboard';
      await tabTo(page, '#lang-add');
      await page.keyboard.type('German');
      out.chosen = await page.locator('#lang-add').inputValue();
      await page.keyboard.press('Tab');
      await page.keyboard.press('Enter');
      await page.waitForURL(/\/languages\/de\?done=added/);
      await check(page, 'empty', width);
      step = 'type two texts by keyboard';
      await tabTo(page, 'input[name="title"]');
      await page.keyboard.type('Umfrage');
      await page.keyboard.press('Tab');
      await page.keyboard.type('Farbe');
      await page.keyboard.press('Enter');
      await page.waitForURL(/\?done=saved/);
      out.progress = (await page.locator('.lang-progress strong').innerText()).trim();
      await check(page, 'saved', width);
    } else {
      step = 'page';
      await page.goto(`${builder}/languages/de`);
      await check(page, 'saved', width);
      step = 'a redirect the service refuses';
      // An address the browser takes but the service does not (http or https only).
      await page.locator('input[name="redirect_url"]').focus();
      await page.keyboard.type('ftp://example.com/danke');
      await page.keyboard.press('Enter');
      await page.locator('.field-error').waitFor();
      out.refusal = (await page.locator('.field-error').innerText()).trim();
      out.keptTitle = await page.locator('input[name="title"]').inputValue();
      await check(page, 'refused', width);
      step = 'hosted';
      await page.goto(`${base}/f/${shortId}?lang=de`);
      out.hostedLang = await page.evaluate(() => document.documentElement.lang);
      out.hostedTitle = (await page.locator('h1').first().innerText()).trim();
      if (shots) await page.screenshot({ path: `${shots}/translate-hosted-${width}.png`, fullPage: true });
    }
    await context.close();
  }
} catch (e) {
  out.error = `${step}: ${e.message}`;
} finally {
  await browser.close();
}
console.log(JSON.stringify(out));
