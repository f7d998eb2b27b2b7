// Endpoint mode in Debian's headless Chromium through playwright-core: pages of other
// sites (served by the Rust test on their own origins) carry the owner's own HTML
// form, posting to the service plainly, and a `fetch` of JSON. Prints what the visitor
// saw on each as JSON.
//
//   node tests/browser/endpoint.mjs <allowed site base url> <refused site base url>
//
// Each site serves `/plain` (a plain form) and `/fetch` (a form whose script posts
// JSON with fetch and writes the outcome into #result).
import { chromium } from 'playwright-core';

const [allowed, refused] = process.argv.slice(2);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
    '--disable-quic', '--no-first-run', '--disable-component-update', '--disable-sync'],
});

async function plain(context, site, name) {
  const page = await context.newPage();
  await page.goto(`${site}/plain`);
  await page.getByLabel('Name').fill(name);
  await page.getByLabel('Email').fill('ada@example.com');
  const [answer] = await Promise.all([
    page.waitForNavigation(),
    page.getByRole('button', { name: 'Send' }).click(),
  ]);
  const seen = {
    status: answer ? answer.status() : null,
    url: page.url(),
    heading: (await page.locator('h1').first().textContent()).trim(),
    text: (await page.locator('body').textContent()).trim(),
  };
  await page.close();
  return seen;
}

async function fetched(context, site, name) {
  const page = await context.newPage();
  const consoleErrors = [];
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  await page.goto(`${site}/fetch`);
  await page.getByLabel('Name').fill(name);
  await page.getByLabel('Email').fill('grace@example.com');
  await page.getByRole('button', { name: 'Send' }).click();
  await page.locator('#result:not(:empty)').waitFor();
  const result = JSON.parse(await page.locator('#result').textContent());
  await page.close();
  return { ...result, consoleErrors };
}

try {
  const context = await browser.newContext();
  console.log(JSON.stringify({
    allowedPlain: await plain(context, allowed, 'Ada Plain'),
    allowedFetch: await fetched(context, allowed, 'Grace Fetch'),
    refusedPlain: await plain(context, refused, 'Eve Plain'),
    refusedFetch: await fetched(context, refused, 'Eve Fetch'),
  }));
} finally {
  await browser.close();
}
