// Drives a hosted form page in Debian's headless Chromium through playwright-core:
// fills the contact form by its labels, submits, and prints what the visitor saw as JSON.
//
//   node tests/browser/hosted.mjs <page url> <desktop|mobile|invalid|embedded> [file for the CV field]
//
// `embedded` serves a page of another site (http://localhost:PORT, while the form is on
// 127.0.0.1) that frames the form, and fills the form inside the frame. In every mode
// the Content-Security-Policy violations the browser reports are printed too.
import http from 'node:http';
import { chromium } from 'playwright-core';

const [url, mode = 'desktop', file] = process.argv.slice(2);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
    '--disable-quic', '--no-first-run', '--disable-component-update', '--disable-sync'],
});
let host;
try {
  const options = mode === 'mobile'
    ? {
      userAgent: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
      viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true,
    }
    : {};
  const context = await browser.newContext(options);
  const page = await context.newPage();
  const cspViolations = [];
  page.on('console', (message) => {
    if (message.text().includes('Content Security Policy')) cspViolations.push(message.text());
  });

  let opened;
  let form = page;
  if (mode === 'embedded') {
    host = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><title>Host site</title><h1>Host site</h1>
        <iframe src="${url}" style="width:100%;height:60rem;border:0" title="Contact"></iframe>`);
    });
    await new Promise((resolve) => host.listen(0, '127.0.0.1', resolve));
    opened = await page.goto(`http://localhost:${host.address().port}/`);
    form = page.frameLocator('iframe');
  } else {
    opened = await page.goto(url);
  }
  await form.getByLabel('Name').fill('Ada Lovelace');
  await form.getByLabel('Email').fill(mode === 'invalid' ? 'not-an-email' : 'ada@example.com');
  await form.getByLabel('Age').fill('36');
  await form.getByLabel('Bio').fill('First programmer');
  if (file) await form.getByLabel('CV').setInputFiles(file);
  // A person takes a moment: completion_time_seconds is then at least 1.
  await page.waitForTimeout(1200);
  let submittedStatus = null;
  if (mode === 'embedded') {
    const answered = page.waitForResponse((r) => r.request().method() === 'POST');
    await form.getByRole('button', { name: 'Submit' }).click();
    submittedStatus = (await answered).status();
    await form.locator('h1').first().waitFor();
  } else {
    const [answer] = await Promise.all([
      page.waitForNavigation(),
      page.getByRole('button', { name: 'Submit' }).click(),
    ]);
    submittedStatus = answer ? answer.status() : null;
  }
  console.log(JSON.stringify({
    openedStatus: opened.status(),
    submittedStatus,
    heading: (await form.locator('h1').first().textContent()).trim(),
    text: (await form.locator('main').textContent()).trim(),
    errors: await form.locator('.error').allTextContents(),
    keptName: mode === 'invalid' ? await form.getByLabel('Name').inputValue() : null,
    userAgent: await page.evaluate(() => navigator.userAgent),
    cspViolations,
  }));
} finally {
  await browser.close();
  host?.close();
}
