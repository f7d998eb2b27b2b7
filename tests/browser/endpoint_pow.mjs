// Endpoint mode with the proof of work in Debian's headless Chromium: an owner's page
// (served by the Rust test on its own origin) loads the service's pow.js, which fetches
// the form's challenge from the service, solves it and fills `_pow`; the visitor then
// sends the plain form. Prints what the visitor saw as JSON.
//
//   node tests/browser/endpoint_pow.mjs <site page url>
import { chromium } from 'playwright-core';

const [url] = process.argv.slice(2);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
    '--disable-quic', '--no-first-run', '--disable-component-update', '--disable-sync'],
});
try {
  const page = await (await browser.newContext()).newPage();
  const consoleErrors = [];
  page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });
  await page.goto(url);
  const send = page.getByRole('button', { name: 'Send' });
  // Disabled while the script solves the challenge, enabled once `_pow` is filled.
  await page.waitForFunction(() => document.querySelector('input[name="_pow"]').value !== '');
  const solvedIn = await page.locator('form').getAttribute('data-pow-ms');
  await page.getByLabel('Name').fill('Ada Proven');
  await page.getByLabel('Email').fill('ada@example.com');
  const [answer] = await Promise.all([page.waitForNavigation(), send.click()]);
  console.log(JSON.stringify({
    status: answer ? answer.status() : null,
    url: page.url(),
    text: (await page.locator('body').textContent()).trim(),
    solvedIn,
    consoleErrors,
  }));
} finally {
  await browser.close();
}
