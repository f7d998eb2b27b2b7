// Opens a form's builder in Debian's headless Chromium with the owner's session
// (tests/api/themes.rs), opens its Design fold, chooses an accent, a dark background,
// the dark appearance and round corners as an owner would, and reads what the preview
// beside the questions drew (its button's colour, its background, its corners); takes
// screenshots at 390 and 1280 px into <shots dir>. Prints what was seen as JSON.
//
//   node tests/browser/design.mjs <builder url> <cookie name=value> <shots dir>
import { chromium } from 'playwright-core';

const [url, cookie, shots] = process.argv.slice(2);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
    '--disable-quic', '--no-first-run', '--disable-component-update', '--disable-sync'],
});
const seen = { runs: [], cspViolations: [] };
try {
  for (const width of [390, 1280]) {
    const context = await browser.newContext({ viewport: { width, height: 900 } });
    const [name, ...value] = cookie.split('=');
    await context.addCookies([{ name, value: value.join('='), url }]);
    const page = await context.newPage();
    page.on('console', (message) => {
      if (message.text().includes('Content Security Policy')) seen.cspViolations.push(message.text());
    });
    await page.goto(url);
    await page.locator('#design summary').click();
    // A colour input's value is set as its picker would, then the events it fires.
    for (const [id, colour] of [['#design-accent', '#0f766e'], ['#design-background', '#10213a']]) {
      await page.locator(id).evaluate((input, value) => {
        input.value = value;
        input.dispatchEvent(new Event('input', { bubbles: true }));
        input.dispatchEvent(new Event('change', { bubbles: true }));
      }, colour);
    }
    await page.locator('#design-appearance').selectOption('dark');
    await page.locator('#design-radius').fill('20');
    const preview = await page.evaluate(() => {
      const box = document.querySelector('.static-preview');
      const button = document.querySelector('.pv-button');
      return {
        button: getComputedStyle(button).backgroundColor,
        background: getComputedStyle(box).backgroundColor,
        text: getComputedStyle(box).color,
        radius: getComputedStyle(box).borderTopLeftRadius,
      };
    });
    await page.locator('#design').scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${shots}/design-${width}.png`, fullPage: width === 390 });
    seen.runs.push({ width, ...preview });
    await context.close();
  }
  console.log(JSON.stringify(seen));
} finally {
  await browser.close();
}
