// Drives a hosted form page in Debian's headless Chromium through playwright-core:
// fills the contact form by its labels, submits, and prints what the visitor saw as JSON.
//
//   node tests/browser/hosted.mjs <page url> <desktop|mobile|invalid> [file for the CV field]
import { chromium } from 'playwright-core';

const [url, mode = 'desktop', file] = process.argv.slice(2);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
    '--disable-quic', '--no-first-run', '--disable-component-update', '--disable-sync'],
});
try {
  const options = mode === 'mobile'
    ? {
      userAgent: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
      viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true,
    }
    : {};
  const context = await browser.newContext(options);
  const page = await context.newPage();
  const opened = await page.goto(url);
  await page.getByLabel('Name').fill('Ada Lovelace');
  await page.getByLabel('Email').fill(mode === 'invalid' ? 'not-an-email' : 'ada@example.com');
  await page.getByLabel('Age').fill('36');
  await page.getByLabel('Bio').fill('First programmer');
  if (file) await page.getByLabel('CV').setInputFiles(file);
  // A person takes a moment: completion_time_seconds is then at least 1.
  await page.waitForTimeout(1200);
  const [answer] = await Promise.all([
    page.waitForNavigation(),
    page.getByRole('button', { name: 'Submit' }).click(),
  ]);
  console.log(JSON.stringify({
    openedStatus: opened.status(),
    submittedStatus: answer ? answer.status() : null,
    heading: (await page.locator('h1').first().textContent()).trim(),
    text: (await page.locator('main').textContent()).trim(),
    errors: await page.locator('.error').allTextContents(),
    keptName: mode === 'invalid' ? await page.getByLabel('Name').inputValue() : null,
    userAgent: await page.evaluate(() => navigator.userAgent),
  }));
} finally {
  await browser.close();
}
