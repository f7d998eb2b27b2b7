// The audit page in Debian's headless Chromium, by keyboard only, at 390 and 1280 px:
// Tab to the "What" filter, type a method's name, press Enter, and read the entries the
// filtered page lists (what each did, in words). axe-core (serious and critical) and CSP
// violations on both the whole and the filtered page, sideways scrolling noted, and
// screenshots written to SHOTS (if set). Prints JSON.
//
//   node tests/browser/audit.mjs <base url> <cookie name=value> <action to filter by>
import { launch, signedIn, axeSerious } from './lib.mjs';

const [base, cookie, action] = process.argv.slice(2);
const shots = process.env.SHOTS;
const browser = await launch();
const out = { axe: [], cspViolations: [], sideways: [], listed: {}, reachedFilter: {} };
async function check(page, step, width) {
  for (const id of await axeSerious(page)) out.axe.push(`${step}@${width}:${id}`);
  const wide = await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
  if (wide) out.sideways.push(`${step}@${width}`);
  if (shots) await page.screenshot({ path: `${shots}/audit-${step}-${width}.png`, fullPage: true });
}
try {
  for (const width of [390, 1280]) {
    const context = await signedIn(browser, base, cookie, { viewport: { width, height: 900 } });
    const page = await context.newPage();
    page.on('console', (m) => {
      if (m.text().includes('Content Security Policy')) out.cspViolations.push(m.text());
    });
    await page.goto(`${base}/app/audit`);
    await check(page, 'all', width);
    let reached = false;
    for (let i = 0; i < 40 && !reached; i++) {
      await page.keyboard.press('Tab');
      reached = await page.evaluate(() => document.activeElement.id === 'action');
    }
    out.reachedFilter[width] = reached;
    if (!reached) continue;
    await page.keyboard.type(action);
    await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
    await check(page, 'filtered', width);
    out.listed[width] = await page.locator('.audit-entries tbody th[scope="row"]').allInnerTexts();
    await context.close();
  }
} finally {
  await browser.close();
}
console.log(JSON.stringify(out));
