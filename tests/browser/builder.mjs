// Builds an 18-question, 3-page survey with a condition through the builder's own UI,
// in Debian's headless Chromium (playwright-core), as an owner with a mouse and a
// keyboard would: a new form, then each question from the palette (its label typed,
// its kind's button pressed), the options of the choices typed in the editor that opens
// on the new question, a condition ("Pro features" shown only if Plan is Pro) chosen
// in the conditions editor, one question moved by keyboard (Move up, Enter, twice) and
// one dragged by its handle. Counts the clicks and keystrokes it used and the full page
// loads it saw (none are expected once the builder is open: JavaScript swaps the page).
// Then, at 1280 and 390 px wide, collapsed and with a question open: the page's height,
// axe-core (serious and critical), sideways scrolling, CSP violations, and screenshots.
//
//   node tests/browser/builder.mjs <origin> <cookie name=value> <screenshot dir>
//
// Prints one JSON object.
import fs from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { AxeBuilder } from '@axe-core/playwright';

const [origin, cookie, shots] = process.argv.slice(2);
fs.mkdirSync(shots, { recursive: true });

// The survey: [kind, label, required, options (one per line)]; page breaks included.
const SURVEY = [
  ['short_text', 'Your name', true],
  ['email', 'Your email', true],
  ['single_choice', 'Plan', true, 'Free\nPro\nTeam'],
  ['short_text', 'Company', false],
  ['number', 'Team size', false],
  ['dropdown', 'Country', false, 'France\nGermany\nJapan\nOther country'],
  ['page_break', 'Your experience', false],
  ['rating', 'How do you rate us?', true],
  ['scale', 'Would you recommend us?', false],
  ['multiple_choice', 'Features you use', false, 'Forms\nWebhooks\nExports'],
  ['long_text', 'Pro features', false],
  ['date', 'Customer since', false],
  ['url', 'Your website', false],
  ['page_break', 'Last words', false],
  ['phone', 'Phone', false],
  ['file_upload', 'A screenshot', false],
  ['checkbox', 'You may contact me', false],
  ['hidden', 'utm_source', false],
  ['textarea', 'Anything else?', false],
  ['long_text', 'What should we build next?', false],
];

// What no one should read on a page (issue 31 §5): option ids, the REST query's syntax,
// operator and kind names, UUIDs (link addresses are not text, and are not scanned).
const FORBIDDEN = [/opt_[0-9a-z]/, /answers\[/, /\[(gte|lte|gt|lt|eq|in)\]/,
  /\b(greater_than|less_than|not_equals|any_of|none_of|not_answered|not_contains|page_break|short_text|long_text|single_choice|multiple_choice|file_upload)\b/,
  /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i];
const forbiddenIn = (text) => FORBIDDEN.flatMap((re) => (text.match(re) ? [text.match(re)[0]] : []));

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
    '--disable-quic', '--no-first-run', '--disable-component-update', '--disable-sync'],
});
const result = {
  clicks: 0, keystrokes: 0, fullLoads: 0, cspViolations: [], axe: {}, overflow: {},
  heights: {}, shots: [], steps: [], forbidden: {},
};
let step = 'start';
try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const [name, ...value] = cookie.split('=');
  await context.addCookies([{ name, value: value.join('='), url: origin }]);
  const page = await context.newPage();
  page.on('console', (m) => {
    if (m.text().includes('Content Security Policy')) result.cspViolations.push(m.text());
  });
  page.on('pageerror', (e) => { result.scriptErrors = (result.scriptErrors || []).concat(String(e)); });
  globalThis.lastPage = page;
  // After each step and on each view: the words on the page that no one should read.
  const scan = async (name) => {
    const found = forbiddenIn(await page.evaluate(() => document.body.innerText));
    if (found.length) result.forbidden[name] = found;
  };
  const click = async (locator) => { result.clicks += 1; await locator.click(); };
  const type = async (locator, text) => {
    await locator.click();
    result.clicks += 1;
    await locator.pressSequentially(text);
    result.keystrokes += text.length;
  };
  const questions = () => page.locator('#question-list > li.q').count();
  // Opens a question by its line's link, and waits until its own editor is there (the
  // one open before stays in the page until the answer is swapped in).
  const open = async (label) => {
    const line = page.locator('#question-list > li.q', { has: page.locator('a.q-label', { hasText: label }) }).first();
    const fid = await line.getAttribute('data-field');
    await click(line.locator('a.q-label'));
    await page.locator(`#q-${fid} [data-editor]`).waitFor();
    return fid;
  };
  const saved = async () => {
    await page.locator('[data-save-state].saved').waitFor({ timeout: 10000 });
  };

  step = 'create the form';
  await page.goto(`${origin}/app/forms`);
  await type(page.getByLabel('New form title'), 'Customer feedback');
  await click(page.getByRole('button', { name: 'Create form' }));
  await page.waitForURL(/\/app\/forms\/[0-9a-f-]{36}/);
  const builder = page.url().split('?')[0];
  result.formId = builder.split('/').pop();
  await page.waitForFunction(() => document.documentElement.classList.contains('js-drag'));
  // From here on, every full page load is counted: adding and editing must not reload.
  page.on('load', () => { result.fullLoads += 1; });
  await page.evaluate(() => { window.builderSession = 'same page'; });
  await scan(step);
  result.steps.push(step);

  step = 'add the questions from the palette';
  for (const [i, [kind, label, required, options]] of SURVEY.entries()) {
    await type(page.locator('#new-label'), label);
    if (required) await click(page.locator('#add input[name=required]'));
    await click(page.locator(`#add button[name=kind][value=${kind}]`));
    await page.waitForFunction((n) => document.querySelectorAll('#question-list > li.q').length === n, i + 1);
    // The new question is open in its editor, focused on its label.
    const editor = page.locator('[data-editor]');
    await editor.waitFor();
    if (options) {
      // A new choice comes with "Option 1" and "Option 2": rename them, add the rest.
      const lines = options.split('\n');
      const boxes = editor.locator('input[name=option_label]');
      const named = await boxes.count();
      for (let k = 0; k < named; k += 1) {
        await boxes.nth(k).click();
        result.clicks += 1;
        await page.keyboard.press('ControlOrMeta+a');
        await page.keyboard.type(lines[k]);
        result.keystrokes += 2 + lines[k].length;
      }
      await type(editor.locator('textarea[name=options]'), lines.slice(named).join('\n'));
      // The preview follows the typing before anything is saved.
      const last = options.split('\n').pop();
      await page.locator('#preview').getByText(last, { exact: true }).first().waitFor({ state: 'attached', timeout: 5000 });
      await click(editor.getByRole('button', { name: 'Save question' }));
      await saved();
    }
  }
  result.questions = await questions();
  await scan(step);
  result.steps.push(step);

  step = 'edit one question without reloading';
  await open('Company');
  const company = page.locator('[data-editor] input[name=label]');
  await type(company, ' name');
  result.previewFollows = await page.locator('#preview [data-pv-label]', { hasText: 'Company name' }).first()
    .waitFor({ state: 'attached', timeout: 5000 }).then(() => true, () => false);
  result.stateBeforeSave = (await page.locator('[data-editor] [data-save-state]').textContent()).trim();
  // No click on Save: the question saves itself once the typing stops, and the focus
  // stays in the box with the caret at its end.
  await saved();
  result.stateAfterSave = (await page.locator('[data-editor] [data-save-state]').textContent()).trim();
  result.focusAfterAutosave = await page.evaluate(() => {
    const el = document.activeElement;
    return el && el.name === 'label' && el.selectionStart === el.value.length ? el.value : null;
  });
  result.autosaved = await page.evaluate(async (url) => {
    const html = await (await fetch(url, { credentials: 'same-origin' })).text();
    return [...new DOMParser().parseFromString(html, 'text/html').querySelectorAll('#question-list .q-label')]
      .some((a) => a.textContent.trim() === 'Company name');
  }, builder);
  // A refused save keeps what was typed and says why.
  const label = page.locator('[data-editor] input[name=label]');
  await label.fill('   ');
  await label.evaluate((input) => input.removeAttribute('required'));
  await page.getByRole('button', { name: 'Save question' }).click();
  await page.locator('[data-editor] [data-save-state].failed').waitFor({ timeout: 10000 });
  result.refusal = (await page.locator('[data-editor] [data-save-state]').textContent()).trim();
  result.keptTyped = await label.inputValue();
  await label.fill('Company name');
  await page.getByRole('button', { name: 'Save question' }).click();
  await saved();
  await scan(step);
  result.steps.push(step);

  step = 'a condition: Pro features only if Plan is Pro';
  const proId = await open('Pro features');
  const when = page.locator(`#q-${proId}`).getByLabel('Add a condition on the answer to');
  await when.waitFor();
  result.clicks += 1;
  await when.selectOption({ label: 'Plan' });
  const row = page.locator(`#q-${proId} [data-condition]`).last();
  await row.waitFor();
  result.offered = await row.locator('select[data-condition-op] option').allTextContents();
  result.values = await row.locator('[data-for-ops] select option').allTextContents();
  result.clicks += 1;
  await row.locator('[data-for-ops] select').selectOption({ label: 'Pro' });
  await click(page.getByRole('button', { name: 'Save conditions' }));
  await page.locator(`#q-${proId} .q-when`, { hasText: 'Shown only if “Plan” is “Pro”.' }).waitFor({ timeout: 10000 });
  await scan(step);
  result.steps.push(step);

  step = 'move a question up twice by keyboard';
  const up = page.getByRole('button', { name: 'Move “Your website” up' });
  await up.focus();
  await page.keyboard.press('Enter');
  result.keystrokes += 1;
  await page.waitForFunction(() => {
    const labels = [...document.querySelectorAll('#question-list .q-label')].map((a) => a.textContent.trim());
    return labels.indexOf('Your website') === labels.indexOf('Customer since') - 1;
  });
  result.focusAfterMove = await page.evaluate(() => document.activeElement?.getAttribute('aria-label'));
  await page.keyboard.press('Enter');
  result.keystrokes += 1;
  await page.waitForFunction(() => {
    const labels = [...document.querySelectorAll('#question-list .q-label')].map((a) => a.textContent.trim());
    return labels.indexOf('Your website') === labels.indexOf('Pro features') - 1;
  });
  await scan(step);
  result.steps.push(step);

  step = 'drag a question by its handle';
  const handle = page.locator('#question-list > li.q', { hasText: 'What should we build next?' }).locator('.q-handle');
  const target = page.locator('#question-list > li.q', { hasText: 'Anything else?' });
  const ordered = page.waitForResponse((r) => r.url().endsWith('/order') || r.url().includes('done=field-moved'));
  await handle.dragTo(target, { targetPosition: { x: 200, y: 5 } });
  await ordered;
  result.clicks += 1;
  await page.waitForFunction(() => {
    const labels = [...document.querySelectorAll('#question-list .q-label')].map((a) => a.textContent.trim());
    return labels.indexOf('What should we build next?') === labels.indexOf('Anything else?') - 1
      && document.querySelector('#builder-notices .notice')?.textContent.includes('moved');
  }, null, { timeout: 10000 });
  result.order = await page.locator('#question-list .q-label').allTextContents();
  result.sameDocument = await page.evaluate(() => window.builderSession === 'same page');
  await scan(step);
  result.steps.push(step);

  step = 'delete a question, undo it, delete it again';
  await type(page.locator('#new-label'), 'Temporary');
  await click(page.locator('#add button[name=kind][value=short_text]'));
  await page.waitForFunction(() => document.querySelectorAll('#question-list > li.q').length === 21);
  const temporary = page.locator('#question-list > li.q', { has: page.locator('a.q-label', { hasText: 'Temporary' }) });
  const temporaryId = await temporary.getAttribute('data-field');
  const onServer = () => page.evaluate(async (url) => {
    const html = await (await fetch(url, { credentials: 'same-origin' })).text();
    return [...new DOMParser().parseFromString(html, 'text/html').querySelectorAll('#question-list .q-label')]
      .some((a) => a.textContent.trim() === 'Temporary');
  }, builder);
  const deleteButton = page.locator(`#q-${temporaryId}`).getByRole('button', { name: 'Delete “Temporary”' });
  await click(deleteButton);
  await page.locator('.toast').waitFor();
  result.toast = (await page.locator('.toast').innerText()).replace(/\s+/g, ' ').trim();
  result.hiddenAfterDelete = await temporary.isHidden();
  result.undoFocused = await page.evaluate(() => document.activeElement?.textContent === 'Undo');
  await page.screenshot({ path: path.join(shots, 'builder-undo-1280.png') });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: path.join(shots, 'builder-undo-390.png') });
  await page.setViewportSize({ width: 1280, height: 900 });
  result.shots.push(path.join(shots, 'builder-undo-1280.png'), path.join(shots, 'builder-undo-390.png'));
  await page.keyboard.press('Enter');
  result.keystrokes += 1;
  result.backAfterUndo = await temporary.isVisible();
  result.keptOnServer = await onServer();
  // Deleted again, and the owner carries on: the deletion is sent.
  await click(deleteButton);
  await page.locator('.toast').waitFor();
  const removal = page.waitForResponse((r) => r.url().endsWith('/remove') && r.request().method() === 'POST', { timeout: 20000 });
  await click(page.locator('#questions-h'));
  result.removalStatus = (await removal).status();
  await page.waitForFunction(() => !document.querySelector('.toast'));
  result.goneAfterDelete = !(await onServer()) && (await questions()) === 20;
  await scan(step);
  result.steps.push(step);

  step = 'look at the builder, collapsed and with a question open, at 1280 and 390';
  const look = async (name, url) => {
    await page.goto(url);
    await page.waitForLoadState('load');
    const axe = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).analyze();
    result.axe[name] = axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id}: ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`);
    result.heights[`${name}-1280`] = await page.evaluate(() => document.documentElement.scrollHeight);
    await scan(`view ${name}`);
    const wide = path.join(shots, `builder-${name}-1280.png`);
    await page.screenshot({ path: wide, fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    result.overflow[name] = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    result.heights[`${name}-390`] = await page.evaluate(() => document.documentElement.scrollHeight);
    const phone = path.join(shots, `builder-${name}-390.png`);
    await page.screenshot({ path: phone, fullPage: true });
    // One phone screen as a person sees it: the top, or the open question.
    await page.evaluate(() => document.getElementById('editor')?.scrollIntoView({ block: 'start' }));
    const screen = path.join(shots, `builder-${name}-390-screen.png`);
    await page.screenshot({ path: screen });
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.evaluate(() => document.getElementById('editor')?.closest('li')?.scrollIntoView({ block: 'start' }));
    const desk = path.join(shots, `builder-${name}-1280-screen.png`);
    await page.screenshot({ path: desk });
    result.shots.push(wide, phone, screen, desk);
  };
  const fullLoads = result.fullLoads;
  await look('collapsed', builder);
  const plan = await page.locator('#question-list > li.q', { hasText: 'Plan' }).first().getAttribute('data-field');
  await look('open', `${builder}?edit=${plan}`);
  // The reference's in-browser check works: its pattern compiles under the `v` flag
  // browsers use for `pattern`, and a name with a space is flagged before any post.
  result.patterns = await page.evaluate(() => [...document.querySelectorAll('input[pattern]')].map((input) => {
    try { new RegExp(`^(?:${input.pattern})$`, 'v'); } catch (e) { return `${input.name}: ${e.message}`; }
    input.value = 'a plate';
    const flagged = input.validity.patternMismatch;
    input.value = '';
    return flagged ? 'ok' : `${input.name}: not flagged`;
  }));
  const pro = await page.locator('#question-list > li.q', { hasText: 'Pro features' }).first().getAttribute('data-field');
  await look('condition', `${builder}?edit=${pro}`);
  result.fullLoadsWhileBuilding = fullLoads;
  await scan(step);
  result.steps.push(step);
} catch (e) {
  result.failedStep = step;
  result.error = String(e && e.stack || e).slice(0, 2000);
  if (globalThis.lastPage) {
    await globalThis.lastPage.screenshot({ path: path.join(shots, 'builder-failed.png'), fullPage: true }).catch(() => {});
    result.failedAt = globalThis.lastPage.url();
  }
} finally {
  console.log(JSON.stringify(result));
  await browser.close();
}
