// The share panel's own-HTML snippet on a page of another site (served by the Rust
// test), in Debian's headless Chromium through playwright-core: sent with the
// conditional question hidden, refused once when it is shown but left empty (then
// "Back to the form"), and sent with it shown and answered. Prints what was seen as
// JSON.
//
//   node tests/browser/endpoint_snippet.mjs <the page's url>
import { chromium } from 'playwright-core';
import { AxeBuilder } from '@axe-core/playwright';

const [url] = process.argv.slice(2);
// With SCREENSHOTS=<dir>, the confirmation and refusal pages are kept there.
const shots = process.env.SCREENSHOTS;
// axe-core's serious and critical violations of the page.
const axe = async (page) => (await new AxeBuilder({ page })
  .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).analyze())
  .violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id);
const shot = async (page, name) => {
  if (!shots) return;
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 800 });
    await page.screenshot({ path: `${shots}/${name}-${width}.png`, fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 800 });
};
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
    '--disable-quic', '--no-first-run', '--disable-component-update', '--disable-sync'],
});

async function send(page) {
  const [answer] = await Promise.all([
    page.waitForNavigation(),
    page.getByRole('button', { name: 'Send' }).click(),
  ]);
  return answer ? answer.status() : null;
}

try {
  const context = await browser.newContext();
  const page = await context.newPage();

  // Hidden: "No", and nothing for the model (the browser must not insist on it).
  await page.goto(url);
  await page.getByLabel('Your name').fill('Ada Hidden');
  await page.getByLabel('No', { exact: true }).check();
  const hidden = { status: await send(page), url: page.url() };
  hidden.back = await page.getByRole('link', { name: 'Back to the site' }).getAttribute('href');
  hidden.axe = await axe(page);
  await shot(page, 'endpoint-thanks');

  // Shown but empty: refused; "Back to the form" returns with what was typed.
  await page.goto(url);
  await page.getByLabel('Your name').fill('Grace Shown');
  await page.getByLabel('Yes', { exact: true }).check();
  const refused = { status: await send(page) };
  refused.text = (await page.locator('main').textContent()).trim();
  refused.axe = await axe(page);
  await shot(page, 'endpoint-refused');
  await Promise.all([
    page.waitForURL(url),
    page.getByRole('link', { name: 'Back to the form' }).click(),
  ]);
  refused.backUrl = page.url();
  refused.nameKept = await page.getByLabel('Your name').inputValue();
  refused.yesKept = await page.getByLabel('Yes', { exact: true }).isChecked();

  // Shown and answered, from where the visitor came back to.
  await page.getByLabel('Which model?').fill('Golf');
  const shown = { status: await send(page), url: page.url() };

  console.log(JSON.stringify({ hidden, refused, shown }));
} finally {
  await browser.close();
}
