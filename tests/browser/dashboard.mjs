// Walks the whole dashboard in Debian's headless Chromium through playwright-core, as
// an owner would: sign in with a link from the command line, build and publish a form,
// submit it from a second browser context through its hosted page, read the response
// in the inbox and its detail, download the CSV, subscribe a receiver that fails, watch
// the failed attempts, mend it and retry by hand, create a key and use it on the REST
// API, revoke it, and sign out. On every page: axe-core (serious and critical
// violations), a screenshot under the given directory, the page at phone width (no
// sideways scrolling of the page itself) and the first Tab stop (the skip link).
//
//   node tests/browser/dashboard.mjs <origin> <sign-in link> <screenshot dir> <OIDC login>
//
// Prints one JSON object: the steps passed, axe figures per page, CSP violations, and
// what the Rust test checks afterwards (form id, key id).
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { AxeBuilder } from '@axe-core/playwright';

const [origin, link, shots, oidcLogin] = process.argv.slice(2);
fs.mkdirSync(shots, { recursive: true });

// The webhook receiver: answers 500 until mended, then 200; counts what it got.
let mended = false;
const received = [];
const receiver = http.createServer((req, res) => {
  let body = '';
  req.on('data', (c) => { body += c; });
  req.on('end', () => {
    received.push({ status: mended ? 200 : 500, event: (() => { try { return JSON.parse(body).event; } catch { return null; } })() });
    res.writeHead(mended ? 200 : 500, { 'content-type': 'text/plain' });
    res.end(mended ? 'thanks' : 'receiver is down');
  });
});
await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const receiverUrl = `http://127.0.0.1:${receiver.address().port}/hook`;

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
    '--disable-quic', '--no-first-run', '--disable-component-update', '--disable-sync'],
});
const result = { steps: [], axe: {}, cspViolations: [], overflow: [], firstTab: {}, receiverUrl };
let step = 'start';
const done = (name) => { result.steps.push(name); };
let shotNo = 0;

async function check(page, name) {
  await page.waitForLoadState('load');
  const axe = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).analyze();
  const serious = axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  result.axe[name] = {
    url: page.url().replace(origin, ''),
    violations: axe.violations.length,
    serious: serious.length,
    ids: axe.violations.map((v) => `${v.id}:${v.impact}`),
    details: serious.map((v) => `${v.id}: ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`),
  };
  shotNo += 1;
  const file = `${String(shotNo).padStart(2, '0')}-${name}`;
  await page.screenshot({ path: path.join(shots, `${file}.png`), fullPage: true });
  // Keyboard: the first Tab stop is the skip link.
  await page.evaluate(() => { document.activeElement?.blur(); window.scrollTo(0, 0); });
  await page.keyboard.press('Tab');
  result.firstTab[name] = await page.evaluate(() => document.activeElement?.textContent?.trim() || '');
  // Phone width: the page itself does not scroll sideways (wide tables scroll in their box).
  const size = page.viewportSize();
  await page.setViewportSize({ width: 390, height: 844 });
  const wide = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  if (wide > 1) {
    const culprits = await page.evaluate(() => [...document.querySelectorAll('main *')]
      .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1)
      .slice(-4).map((e) => `${e.tagName.toLowerCase()}.${e.className}`));
    result.overflow.push(`${name}: ${wide}px (${culprits.join(', ')})`);
  }
  await page.screenshot({ path: path.join(shots, `${file}-phone.png`), fullPage: false });
  await page.setViewportSize(size);
}

function watchCsp(page) {
  page.on('console', (m) => {
    if (m.text().includes('Content Security Policy')) result.cspViolations.push(m.text());
  });
}

try {
  const context = await browser.newContext({ acceptDownloads: true, viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  watchCsp(page);

  step = 'sign in with the link';
  await page.goto(`${origin}/app/sign-in`);
  await check(page, 'sign-in');
  await page.goto(link);
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.waitForURL(/\/app\/forms$/);
  await check(page, 'forms-empty');
  done(step);

  step = 'build a form and publish it';
  await page.getByLabel('New form title').fill('Feedback');
  await page.getByRole('button', { name: 'Create form' }).click();
  await page.waitForURL(/\/app\/forms\/[0-9a-f-]{36}/);
  const formId = page.url().match(/forms\/([0-9a-f-]{36})/)[1];
  result.formId = formId;
  const builder = `${origin}/app/forms/${formId}`;
  for (const [kind, label, required] of [['short_text', 'Your name', true], ['email', 'Your email', true], ['long_text', 'What could we do better?', false]]) {
    await page.goto(builder);
    await page.locator('#new-label').fill(label);
    if (required) await page.locator('#add input[name=required]').check();
    await page.locator(`#add button[name=kind][value=${kind}]`).click();
    await page.locator('[data-editor]').waitFor();
  }
  await page.goto(builder);
  await check(page, 'builder');
  await page.getByRole('button', { name: 'Publish', exact: true }).click();
  await page.waitForLoadState('load');
  await page.goto(builder);
  const shortLink = await page.locator('#share-link').inputValue();
  result.hostedUrl = shortLink.startsWith('http') ? shortLink : `${origin}${shortLink}`;
  await check(page, 'form-published');
  done(step);

  step = 'submit it from a second browser context';
  const visitor = await browser.newContext();
  const visit = await visitor.newPage();
  await visit.goto(result.hostedUrl);
  await visit.getByLabel('Your name').fill('Grace Hopper');
  await visit.getByLabel('Your email').fill('grace@example.com');
  await visit.getByLabel('What could we do better?').fill('More compilers');
  await visit.waitForTimeout(1100);
  await Promise.all([visit.waitForNavigation(), visit.getByRole('button', { name: 'Submit' }).click()]);
  await visitor.close();
  done(step);

  step = 'see the response in the inbox and open it';
  await page.goto(`${builder}/responses`);
  await page.getByRole('cell', { name: 'Grace Hopper' }).first().waitFor({ timeout: 15000 });
  await check(page, 'inbox');
  await page.locator('tbody tr td a').first().click();
  await page.getByText('More compilers').waitFor();
  await check(page, 'response-detail');
  done(step);

  step = 'download the CSV';
  await page.goto(`${builder}/responses`);
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('link', { name: /CSV/ }).click(),
  ]);
  const csv = fs.readFileSync(await download.path(), 'utf8');
  result.csvHasResponse = csv.includes('Grace Hopper') && csv.includes('Your name');
  done(step);

  step = 'subscribe a failing receiver and watch the failed attempts';
  await page.goto(`${builder}/webhooks`);
  await check(page, 'webhooks-empty');
  await page.getByLabel('Name', { exact: true }).fill('Our receiver');
  await page.getByLabel('Receiver URL').fill(receiverUrl);
  await page.getByLabel('form.submitted').check();
  await page.getByRole('button', { name: 'Create webhook' }).click();
  await page.waitForLoadState('load');
  result.secretShown = (await page.locator('.secret').count()) > 0
    && (await page.locator('.secret').first().inputValue()).length > 10;
  await check(page, 'webhook-created');
  await page.getByRole('link', { name: /webhook.s page/ }).click();
  await page.waitForLoadState('load');
  const log = page.url().split('?')[0];
  await page.getByRole('button', { name: 'Send test event' }).click();
  await page.waitForLoadState('load');
  for (let i = 0; i < 40; i += 1) {
    await page.goto(log);
    if ((await page.locator('.badge.failed').count()) > 0) break;
    await page.waitForTimeout(500);
  }
  await page.getByRole('button', { name: /Retry/ }).first().waitFor({ timeout: 1000 });
  await check(page, 'delivery-log-failed');
  done(step);

  step = 'mend the receiver, retry by hand, and see the delivery succeed';
  mended = true;
  await page.getByRole('button', { name: /Retry/ }).first().click();
  await page.waitForLoadState('load');
  for (let i = 0; i < 40; i += 1) {
    await page.goto(log);
    if ((await page.locator('.badge.succeeded').count()) > 0) break;
    await page.waitForTimeout(500);
  }
  await page.locator('.badge.succeeded').first().waitFor({ timeout: 1000 });
  await check(page, 'delivery-log-succeeded');
  done(step);

  step = 'create a key, use it, revoke it, and get a 401';
  await page.goto(`${origin}/app/keys`);
  await check(page, 'keys');
  await page.getByLabel(/^Read/).check();
  await page.getByRole('button', { name: 'Create key' }).click();
  await page.waitForLoadState('load');
  const secret = (await page.locator('.secret').first().textContent()).trim();
  await check(page, 'key-created');
  const api = (key) => fetch(`${origin}/api/v1/forms`, { headers: { 'x-api-key': key } }).then((r) => r.status);
  result.keyWorks = await api(secret);
  await page.goto(`${origin}/app/keys`);
  await page.getByRole('link', { name: /Revoke/ }).first().click();
  await page.waitForLoadState('load');
  await check(page, 'key-revoke-confirm');
  await page.getByRole('button', { name: 'Revoke the key' }).click();
  await page.waitForLoadState('load');
  let after = 0;
  for (let i = 0; i < 20; i += 1) {
    after = await api(secret);
    if (after === 401) break;
    await page.waitForTimeout(100);
  }
  result.keyAfterRevoke = after;
  await page.goto(`${origin}/app/keys`);
  // Every key's row links its usage (the revoked one's too): no page is optional.
  await page.getByRole('link', { name: /^Usage/ }).first().click();
  await page.waitForLoadState('load');
  await check(page, 'key-usage');
  await page.goto(`${origin}/app/account`);
  await check(page, 'account');
  done(step);

  step = 'sign out and find the session gone';
  await page.goto(`${origin}/app/forms`);
  await check(page, 'forms');
  await page.getByRole('button', { name: /Sign out/ }).click();
  await page.waitForLoadState('load');
  await page.goto(`${origin}/app/forms`);
  result.afterSignOut = page.url().replace(origin, '');
  done(step);

  step = 'sign in with OpenID Connect';
  await page.goto(`${origin}/app/sign-in`);
  await page.getByRole('link', { name: 'Sign in with your identity provider' }).click();
  await page.locator('input[name=login]').fill(oidcLogin);
  await page.locator('input[name=password]').fill('any password');
  await page.locator('button[type=submit]').first().click();
  await page.waitForLoadState('load');
  if (!page.url().startsWith(origin)) {
    // The provider's consent page.
    await page.locator('button[type=submit]').first().click();
  }
  await page.waitForURL(/\/app\/forms$/);
  result.oidcAccount = (await page.locator('header .visually-hidden').first().textContent()).trim();
  done(step);
} catch (e) {
  result.failedStep = step;
  result.error = String(e && e.stack || e).slice(0, 2000);
} finally {
  result.received = received;
  console.log(JSON.stringify(result));
  await browser.close();
  receiver.close();
}
