// A hosted page whose form turns `proof_of_work` on, in Debian's headless Chromium
// through playwright-core. Prints what the visitor saw as JSON.
//
//   node tests/browser/pow.mjs <page url> <submit|measure|nojs>
//
// submit:  waits for the page's script to solve the challenge (Submit is disabled and a
//          live region says why meanwhile), fills the contact form, checks the page with
//          axe-core and submits it.
// measure: loads the page `LOADS` times on a desktop CPU and as many with the CPU slowed
//          fourfold (Chromium's emulation, as Lighthouse does for a mid-range phone)
//          and reports each solve: milliseconds, the number found, and milliseconds per
//          50,000 hashes (the expected work). Nothing is submitted.
// nojs:    JavaScript off: the page's note, then a submission, refused with the page
//          again.
// pages:   a form with two pages (Name; Email): each page solves its own challenge
//          before Next or Submit is enabled.
// Content-Security-Policy violations the browser reports are printed in every mode.
import { chromium } from 'playwright-core';
import { AxeBuilder } from '@axe-core/playwright';

const [url, mode = 'submit'] = process.argv.slice(2);
const LOADS = 5;
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
    '--disable-quic', '--no-first-run', '--disable-component-update', '--disable-sync'],
});

async function newPage(options = {}) {
  const context = await browser.newContext(options);
  const page = await context.newPage();
  const cspViolations = [];
  page.on('console', (message) => {
    if (message.text().includes('Content Security Policy')) cspViolations.push(message.text());
  });
  return { page, cspViolations };
}

// Loads the page and waits for its script to finish; what it took and found.
async function solveOnce(page) {
  const opened = await page.goto(url);
  const form = page.locator('form[data-pow-challenge]');
  await form.waitFor();
  await page.waitForFunction(() => document.querySelector('form').dataset.powMs !== undefined,
    null, { timeout: 60000 });
  const ms = Number(await form.getAttribute('data-pow-ms'));
  const solution = await page.locator('input[name="pow_solution"]').inputValue();
  const { number } = JSON.parse(Buffer.from(solution, 'base64').toString());
  return { openedStatus: opened.status(), ms, number, msPer50k: Math.round((ms / (number + 1)) * 50000) };
}

try {
  if (mode === 'measure') {
    const out = { desktop: [], phoneLike: [] };
    const { page, cspViolations } = await newPage();
    for (let i = 0; i < LOADS; i++) out.desktop.push(await solveOnce(page));
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
    for (let i = 0; i < LOADS; i++) out.phoneLike.push(await solveOnce(page));
    console.log(JSON.stringify({ ...out, cspViolations }));
  } else if (mode === 'pages') {
    const { page, cspViolations } = await newPage();
    const opened = await page.goto(url);
    const solved = () => page.waitForFunction(
      () => document.querySelector('form').dataset.powMs !== undefined, null, { timeout: 60000 },
    );
    await page.getByLabel('Name').fill('Ada Lovelace');
    await solved();
    const firstMs = Number(await page.locator('form').getAttribute('data-pow-ms'));
    await Promise.all([page.waitForURL(/page=2/), page.getByRole('button', { name: 'Next' }).click()]);
    await page.getByLabel('Email').fill('ada@example.com');
    await solved();
    const secondMs = Number(await page.locator('form').getAttribute('data-pow-ms'));
    const [answer] = await Promise.all([
      page.waitForNavigation(),
      page.getByRole('button', { name: 'Submit' }).click(),
    ]);
    console.log(JSON.stringify({
      openedStatus: opened.status(),
      ms: [firstMs, secondMs],
      submittedStatus: answer ? answer.status() : null,
      text: (await page.locator('main').textContent()).trim(),
      cspViolations,
    }));
  } else if (mode === 'nojs') {
    const { page, cspViolations } = await newPage({ javaScriptEnabled: false });
    const opened = await page.goto(url);
    const note = (await page.locator('main').textContent()).trim();
    await page.getByLabel('Name').fill('Ada Lovelace');
    await page.getByLabel('Email').fill('ada@example.com');
    const [answer] = await Promise.all([
      page.waitForNavigation(),
      page.getByRole('button', { name: 'Submit' }).click(),
    ]);
    console.log(JSON.stringify({
      openedStatus: opened.status(),
      note,
      submittedStatus: answer ? answer.status() : null,
      banner: (await page.locator('.banner[role=alert]').textContent()).trim(),
      keptName: await page.getByLabel('Name').inputValue(),
      cspViolations,
    }));
  } else {
    const { page, cspViolations } = await newPage();
    // Records each thing the live region says, and whether Submit was disabled then
    // (an init script of the test, injected by the browser: not the page's).
    await page.addInitScript(() => {
      window.powSaid = [];
      new MutationObserver(() => {
        const status = document.getElementById('pow-status');
        const button = document.querySelector('button[type=submit]');
        const text = status ? status.textContent : '';
        const last = window.powSaid[window.powSaid.length - 1];
        if (text && (!last || last.text !== text)) {
          window.powSaid.push({ text, disabled: button.disabled, live: status.getAttribute('aria-live') });
        }
      }).observe(document, { subtree: true, childList: true, characterData: true });
    });
    const opened = await page.goto(url);
    const button = page.getByRole('button', { name: 'Submit' });
    await page.getByLabel('Name').fill('Ada Lovelace');
    await page.getByLabel('Email').fill('ada@example.com');
    await page.waitForFunction(() => document.querySelector('form').dataset.powMs !== undefined,
      null, { timeout: 60000 });
    const ms = Number(await page.locator('form').getAttribute('data-pow-ms'));
    const said = await page.evaluate(() => window.powSaid);
    // The page as the visitor is about to submit it: serious and critical axe-core
    // violations.
    const axe = (await new AxeBuilder({ page })
      .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).analyze())
      .violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => ({ id: v.id, nodes: v.nodes.map((n) => n.target.join(' ')) }));
    const [answer] = await Promise.all([page.waitForNavigation(), button.click()]);
    console.log(JSON.stringify({
      openedStatus: opened.status(),
      said,
      axe,
      ms,
      submittedStatus: answer ? answer.status() : null,
      text: (await page.locator('main').textContent()).trim(),
      cspViolations,
    }));
  }
} finally {
  await browser.close();
}
