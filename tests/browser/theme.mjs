// Opens a themed form's page in Debian's headless Chromium, with the device set to light
// and then to dark, at 390 and 1280 px (tests/api/themes.rs): chooses an option, takes a
// screenshot into <shots dir>, runs axe-core, and reads the colours the page drew
// (the button's, the card's, the text's), the typeface and whether the logo loaded.
// Prints what was seen as JSON.
//
//   node tests/browser/theme.mjs <url> <shots dir>
import { chromium } from 'playwright-core';
import { AxeBuilder } from '@axe-core/playwright';

const [url, shots] = process.argv.slice(2);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
    '--disable-quic', '--no-first-run', '--disable-component-update', '--disable-sync'],
});
const seen = { runs: [], cspViolations: [] };
try {
  for (const colorScheme of ['light', 'dark']) {
    for (const width of [390, 1280]) {
      const context = await browser.newContext({ viewport: { width, height: 900 }, colorScheme });
      const page = await context.newPage();
      page.on('console', (message) => {
        if (message.text().includes('Content Security Policy')) {
          seen.cspViolations.push(message.text());
        }
      });
      const opened = await page.goto(url);
      await page.locator('.opt').first().click();
      const drawn = await page.evaluate(() => {
        const style = (selector, property) => {
          const element = document.querySelector(selector);
          return element ? getComputedStyle(element)[property] : null;
        };
        const logo = document.querySelector('img.logo');
        return {
          button: style('button[type=submit]', 'backgroundColor'),
          buttonText: style('button[type=submit]', 'color'),
          card: style('form', 'backgroundColor'),
          text: style('body', 'color'),
          radius: style('form', 'borderTopLeftRadius'),
          font: style('body', 'fontFamily'),
          logoLoaded: !!logo && logo.complete && logo.naturalWidth > 0,
          logoAlt: logo && logo.alt,
          overflow: document.documentElement.scrollWidth > window.innerWidth,
        };
      });
      await page.screenshot({ path: `${shots}/theme-${colorScheme}-${width}.png`, fullPage: true });
      const result = await new AxeBuilder({ page })
        .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).analyze();
      seen.runs.push({
        colorScheme,
        width,
        status: opened.status(),
        ...drawn,
        axe: result.violations
          .filter((v) => v.impact === 'serious' || v.impact === 'critical')
          .map((v) => `${v.id}:${v.impact}:${v.nodes.map((n) => n.target.join(' ')).join(',')}`),
      });
      await context.close();
    }
  }
  console.log(JSON.stringify(seen));
} finally {
  await browser.close();
}
